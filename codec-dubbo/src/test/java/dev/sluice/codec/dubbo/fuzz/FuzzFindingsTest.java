package dev.sluice.codec.dubbo.fuzz;

import static dev.sluice.codec.dubbo.TestBytes.concat;
import static dev.sluice.codec.dubbo.TestBytes.hex;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.codec.dubbo.ClassAllowlist;
import dev.sluice.codec.dubbo.DubboDecoder;
import dev.sluice.codec.dubbo.DubboProtocolException;
import dev.sluice.codec.dubbo.DubboRequest;
import dev.sluice.codec.dubbo.DubboResponse;
import dev.sluice.codec.dubbo.DubboSerializationException;
import dev.sluice.codec.dubbo.DubboTypeResolver;
import dev.sluice.codec.dubbo.Vectors;
import dev.sluice.codec.dubbo.internal.DubboConstants;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What the fuzz targets found, pinned down as plain tests (the crashing inputs themselves are also committed in
 * the targets' {@code Inputs} directories, where Jazzer replays them).
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class FuzzFindingsTest {

    /**
     * FrameDecoderFuzzTest found that the same frame decoded differently from a heap and from a direct buffer:
     * fastjson2 bounds its reads by the backing array, not by the item, so an attachments map whose end marker
     * lies past its item was completed with the bytes that follow the frame. The value must end inside its item.
     */
    @Test
    void aValueRunningPastItsItemIsABrokenRequestNotAReadOfTheNextBytes() {
        byte[] frame = Vectors.frame("getUser.request");
        int attachments = lastItemOffset(frame);
        int itemLength = ByteBuffer.wrap(frame).getInt(attachments);
        // Cut the map's last 6 bytes ("1000" and the end marker) out of the item and the frame; they follow it.
        int cut = 6;
        byte[] shortened = Arrays.copyOf(frame, frame.length - cut);
        ByteBuffer.wrap(shortened).putInt(attachments, itemLength - cut).putInt(12, frame.length - 16 - cut);
        byte[] stream = concat(shortened, Arrays.copyOfRange(frame, frame.length - cut, frame.length));

        List<Object> out = new ArrayList<>();
        ByteBuf in = Unpooled.wrappedBuffer(stream); // heap: fastjson2 reads the cumulation's own array
        try {
            FuzzDecoders.server().decode(in, out);
            throw new AssertionError("the bytes after the frame are not a frame: expected a protocol error");
        } catch (DubboProtocolException expected) {
            // the leftover "1000" + end marker is not a Dubbo header
        } finally {
            in.release();
        }
        DubboRequest r = assertInstanceOf(DubboRequest.class, out.get(0));
        assertTrue(r.isBroken(), () -> "decoded with bytes from beyond its frame: " + r);
        assertEquals(ByteBuffer.wrap(frame).getLong(4), r.id());
        assertEquals(DubboConstants.STATUS_BAD_REQUEST, r.brokenStatus());
        assertTrue(r.errorMessage().contains("past the end of its"), r.errorMessage());
    }

    /**
     * BodyDecoderFuzzTest found that fastjson2 allocates what a value declares before reading it: a 26-byte array
     * claiming 100 million elements cost 400 MB of heap (strings, binaries, big integers and symbol ids alike).
     * Declared sizes the bytes do not back are refused before fastjson2 runs; the answer is an error with the id.
     */
    @Test
    void sizesTheBytesDoNotBackAllocateNothing() {
        String[] values = {
            "a4 48 05 f5 e1 00 01 02",          // array of 100,000,000 (as Object, List, int[] below)
            "79 48 05 f5 e1 00 41 42",          // ASCII string of 100,000,000 bytes
            "7a 48 05 f5 e1 00 41 42",          // UTF-8 string
            "91 48 05 f5 e1 00 01",             // binary
            "bb 48 05 f5 e1 00 01",             // big integer
            "92 79 11 6a 61 76 61 2e 6c 61 6e 67 2e 49 6e 74 65 67 65 72 48 05 f5 e1 00 05", // typed, symbol id 10^8
            "a6 7f 4a 61 48 05 f5 e1 00 01 a5", // field name symbol with id 100,000,000
        };
        for (String hex : values) {
            byte[] value = hex(hex);
            for (int type : new int[] {0, 4, 5}) { // Object, List<User>, int[]
                byte[] body = concat(hex("00 00 00 02 bd 01"), ByteBuffer.allocate(4).putInt(value.length).array(),
                        value);
                byte[] frame = concat(FuzzDecoders.header(0x17, 20, type, body.length), body);
                decodeOne(FuzzDecoders.client(), frame); // first use loads classes; measure the steady state
                long before = FuzzDecoders.allocated();
                DubboResponse r = decodeOne(FuzzDecoders.client(), frame);
                long allocated = FuzzDecoders.allocated() - before;
                assertEquals(type, r.id());
                assertEquals(DubboConstants.STATUS_CLIENT_ERROR, r.status(), () -> hex + ": " + r);
                assertTrue(allocated < (1 << 20), hex + " made the decoder allocate " + allocated + " bytes");
            }
        }
    }

    /**
     * BodyDecoderFuzzTest found that a 2.5 KB response of nested arrays overflowed the decoding thread's stack. The
     * error escaped the decoder, so on a connection the frame stayed in the cumulation and every later read failed
     * the same way. Nesting is capped; what is refused is an error response with the id.
     */
    @Test
    void deepNestingIsAnErrorWithTheIdNotAStackOverflow() {
        for (int depth : new int[] {150, 5_000, 100_000}) {
            byte[] value = new byte[depth + 1];
            Arrays.fill(value, 0, depth, (byte) 0x95); // an array of one element, nested
            value[depth] = 0x01;
            byte[] body = concat(hex("00 00 00 02 bd 01"), ByteBuffer.allocate(4).putInt(value.length).array(), value);
            byte[] frame = concat(FuzzDecoders.header(0x17, 20, 8, body.length), body); // expects Object
            ClassAllowlist none = ClassAllowlist.strict();
            DubboResponse r = decodeOne(
                    new DubboDecoder(1 << 20, none, DubboTypeResolver.forClient(id -> Object.class)),
                    frame);
            assertEquals(8, r.id());
            if (depth <= JSONB_MAX_DEPTH) {
                assertTrue(r.isOk(), r::toString);
            } else {
                assertEquals(DubboConstants.STATUS_CLIENT_ERROR, r.status(), r::toString);
                assertTrue(r.errorMessage().contains("nested deeper than"), r.errorMessage());
            }
        }
    }

    /**
     * FrameDecoderFuzzTest found an input that kept one decode call busy for good: fastjson2's map reader takes the
     * object-start byte as optional and an object read starts on any type byte from 0xa6 up, so it read an
     * attachments item holding the int -1 as a map, on past the item, until a string with a negative length sent it
     * back a few bytes, for ever. Even inside one item, {@code a6 4a 61 7a fc} (key "a", a UTF-8 string of length
     * -4) spins fastjson2 for ever. Every token of the item is checked first and fastjson2 reads only a copy of the
     * item, so the answer is an error with the id, at once.
     */
    @Test
    void malformedMapsAreAnErrorAtOnceNotALoop() {
        String[] attachments = {
            "a6 4a 61 7a fc",                   // hangs fastjson2 2.0.56 (and so Dubbo) as it is
            "ff 4a 61 7a fc",                   // an int that fastjson2's map reader takes for a map
            "ff",                               // the same, with the loop's bytes after the item
        };
        for (String hex : attachments) {
            byte[] value = hex(hex);
            byte[] body = concat(hex("00 00 00 02 bd 04 00 00 00 01 b1"),
                    ByteBuffer.allocate(4).putInt(value.length).array(), value);
            byte[] frame = concat(FuzzDecoders.header(0x17, 20, 9, body.length), body,
                    hex("4a 61 4a 62 79 fc 7a fa a5")); // what follows the frame in the cumulation
            DubboResponse r = org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(
                    java.time.Duration.ofSeconds(10), () -> decodeFirst(FuzzDecoders.client(), frame), hex);
            assertEquals(9, r.id());
            assertEquals(DubboConstants.STATUS_CLIENT_ERROR, r.status(), () -> hex + ": " + r);
        }
    }

    /**
     * BodyDecoderFuzzTest found a decimal whose scale is a billion: read where an int is expected, fastjson2 turns it
     * into an integer by computing ten to the billionth power, minutes of CPU on the event loop. Number text with a
     * huge exponent does the same. Both are refused at once.
     */
    @Test
    void hugeDecimalExponentsAreAnErrorAtOnce() {
        String[] ints = {
            "95 b9 48 c4 65 36 00 01",                  // [BigDecimal(1, scale -1,000,000,000)]
            "95 b9 48 3b 9a ca 00 01",                  // scale +1,000,000,000
            "95 54 31 65 39 39 39 39 39 39 39 39 39",   // ["1e999999999"]
            "95 7a 0c 2d 31 45 2d 39 39 39 39 39 39 39 39", // UTF-8 "-1E-99999999"
        };
        for (String hex : ints) {
            byte[] value = hex(hex);
            byte[] body = concat(hex("00 00 00 02 bd 01"), ByteBuffer.allocate(4).putInt(value.length).array(), value);
            byte[] frame = concat(FuzzDecoders.header(0x17, 20, 5, body.length), body); // id 5: expects int[]
            DubboResponse r = org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(
                    java.time.Duration.ofSeconds(10), () -> decodeFirst(FuzzDecoders.client(), frame), hex);
            assertEquals(5, r.id());
            assertEquals(DubboConstants.STATUS_CLIENT_ERROR, r.status(), () -> hex + ": " + r);
        }
        // Ordinary integers still pass; number text for an int element is refused as for an int parameter (A31b).
        byte[] value = hex("96 01 0c"); // [1, 12] read as int[]
        byte[] body = concat(hex("00 00 00 02 bd 01"), ByteBuffer.allocate(4).putInt(value.length).array(), value);
        DubboResponse ok = decodeFirst(FuzzDecoders.client(), concat(FuzzDecoders.header(0x17, 20, 5, body.length),
                body));
        assertTrue(ok.isOk(), ok::toString);
        assertEquals(12, ((int[]) ok.value())[1]);
        byte[] text = hex("96 01 4b 31 32"); // [1, "12"]
        byte[] textBody = concat(hex("00 00 00 02 bd 01"), ByteBuffer.allocate(4).putInt(text.length).array(), text);
        DubboResponse refused = decodeFirst(FuzzDecoders.client(), concat(FuzzDecoders.header(0x17, 20, 5,
                textBody.length), textBody));
        assertEquals(DubboConstants.STATUS_CLIENT_ERROR, refused.status(), refused::toString);
        assertTrue(refused.errorMessage().contains("expected int but the value is text"), refused::toString);
    }

    /**
     * BigDecimal reads any Unicode decimal digit: number text in full-width or Arabic-Indic digits, in any of JSONB's
     * string encodings, read where a BigInteger is expected, cost seconds to minutes of CPU and a huge BigInteger
     * before the bounds check read such text as code points. Now refused at once, eagerly and deferred.
     */
    @Test
    void hugeExponentsInNonAsciiDigitsAreAnErrorAtOnce() throws Exception {
        byte[][] strings = {
            jsonbString(0x7a, "\uFF11.5e99999999".getBytes(java.nio.charset.StandardCharsets.UTF_8)),
            jsonbString(0x7c, "1.5e\uFF19\uFF19\uFF19\uFF19\uFF19\uFF19\uFF19\uFF19"
                    .getBytes(java.nio.charset.StandardCharsets.UTF_16LE)),
            jsonbString(0x7d, "\u0661e99999999".getBytes(java.nio.charset.StandardCharsets.UTF_16BE)),
            jsonbString(0x7b, concat(hex("ff fe"), "1e\u0669\u0669\u0669\u0669\u0669\u0669\u0669\u0669"
                    .getBytes(java.nio.charset.StandardCharsets.UTF_16LE))),
            jsonbString(0x7b, "1e\uFF19\uFF19\uFF19\uFF19\uFF19\uFF19\uFF19\uFF19"
                    .getBytes(java.nio.charset.StandardCharsets.UTF_16BE)),
            jsonbString(0x7e, "\uFF11e99999999".getBytes(java.nio.charset.Charset.forName("GB18030"))),
        };
        ClassAllowlist jdk = ClassAllowlist.strict();
        for (byte[] value : strings) {
            String hex = io.netty.buffer.ByteBufUtil.hexDump(value);
            byte[] body = concat(hex("00 00 00 02 bd 01"), ByteBuffer.allocate(4).putInt(value.length).array(), value);
            byte[] frame = concat(FuzzDecoders.header(0x17, 20, 6, body.length), body);
            DubboResponse r = org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(
                    java.time.Duration.ofSeconds(10), () -> decodeFirst(new DubboDecoder(1 << 20, jdk,
                            DubboTypeResolver.forClient(id -> java.math.BigInteger.class)), frame), hex);
            assertEquals(DubboConstants.STATUS_CLIENT_ERROR, r.status(), () -> hex + ": " + r);
            assertTrue(r.errorMessage().contains("exponent 99999999"), r::errorMessage);
            DubboResponse deferred = decodeFirst(new DubboDecoder(1 << 20, jdk, DubboTypeResolver.NONE, true), frame);
            DubboSerializationException e = org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(
                    java.time.Duration.ofSeconds(10), () -> org.junit.jupiter.api.Assertions.assertThrows(
                            DubboSerializationException.class, () -> deferred.readValue(java.math.BigInteger.class)),
                    hex);
            assertTrue(e.getMessage().contains("exponent 99999999"), e::getMessage);
        }
        // Digits that are not ASCII still make ordinary numbers, and text that is not a number is left alone.
        byte[] twelve = jsonbString(0x7c, "\uFF11\uFF12".getBytes(java.nio.charset.StandardCharsets.UTF_16LE));
        byte[] body = concat(hex("00 00 00 02 bd 01"), ByteBuffer.allocate(4).putInt(twelve.length).array(), twelve);
        DubboResponse ok = decodeFirst(new DubboDecoder(1 << 20, jdk,
                DubboTypeResolver.forClient(id -> java.math.BigInteger.class)),
                concat(FuzzDecoders.header(0x17, 20, 6, body.length), body));
        assertTrue(ok.isOk(), ok::toString);
        assertEquals(java.math.BigInteger.valueOf(12), ok.value());
        byte[] words = jsonbString(0x7a, "北京 e99999999".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        body = concat(hex("00 00 00 02 bd 01"), ByteBuffer.allocate(4).putInt(words.length).array(), words);
        DubboResponse text = decodeFirst(
                new DubboDecoder(1 << 20, jdk, DubboTypeResolver.forClient(id -> String.class)),
                concat(FuzzDecoders.header(0x17, 20, 6, body.length), body));
        assertEquals("北京 e99999999", text.value());
    }

    /** A JSONB string of type {@code type} (0x7a–0x7e) holding {@code bytes} (fewer than 48: a one-byte length). */
    private static byte[] jsonbString(int type, byte[] bytes) {
        assertTrue(bytes.length < 48);
        return concat(new byte[] {(byte) type, (byte) bytes.length}, bytes);
    }

    private static DubboResponse decodeFirst(DubboDecoder decoder, byte[] stream) {
        List<Object> out = new ArrayList<>();
        ByteBuf in = Unpooled.wrappedBuffer(stream);
        try {
            decoder.decode(in, out);
        } catch (DubboProtocolException expected) {
            // the bytes after the frame are not a frame
        } finally {
            in.release();
        }
        return assertInstanceOf(DubboResponse.class, out.get(0));
    }

    /** The walk's depth limit (package-private in the codec); 200 levels. */
    private static final int JSONB_MAX_DEPTH = 200;

    private static DubboResponse decodeOne(DubboDecoder decoder, byte[] frame) {
        List<Object> out = new ArrayList<>();
        ByteBuf in = Unpooled.wrappedBuffer(frame);
        try {
            decoder.decode(in, out);
        } finally {
            in.release();
        }
        assertEquals(1, out.size());
        return assertInstanceOf(DubboResponse.class, out.get(0));
    }


    /** Offset of the last item of a frame's body (each item: 4-byte length, then its bytes). */
    static int lastItemOffset(byte[] frame) {
        int pos = 16;
        int last = -1;
        while (pos < frame.length) {
            last = pos;
            pos += 4 + ByteBuffer.wrap(frame).getInt(pos);
        }
        return last;
    }
}
