package dev.sluice.codec.dubbo;

import static dev.sluice.codec.dubbo.TestBytes.concat;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.codec.dubbo.internal.DubboConstants;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** docs/reliability.md A1–A7, on {@link DubboDecoder}. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class FramingTest {
    private static final byte[] EXIST_USER = Vectors.frame("existUser.request");
    private static final byte[] GET_USER = Vectors.frame("getUser.request");
    private static final byte[] HEARTBEAT = Vectors.frame("heartbeat.request");
    private static final byte[] GET_USER_RESPONSE = Vectors.frame("getUser.response");

    /** A copy of {@code frame} with header byte {@code index} replaced. */
    static byte[] patch(byte[] frame, int index, int value) {
        byte[] b = frame.clone();
        b[index] = (byte) value;
        return b;
    }

    /** A copy of {@code frame} with the header's body length replaced. */
    static byte[] withLength(byte[] frame, int len) {
        byte[] b = frame.clone();
        ByteBuffer.wrap(b).putInt(12, len);
        return b;
    }

    static long id(byte[] frame) {
        return ByteBuffer.wrap(frame).getLong(4);
    }

    static byte[] header(int flags, int status, long id, int len) {
        return ByteBuffer.allocate(16).putShort((short) 0xdabb).put((byte) flags).put((byte) status).putLong(id)
                .putInt(len).array();
    }

    /** Feeds chunks into one cumulation buffer, as the transport does, collecting everything decoded. */
    static final class Feeder implements AutoCloseable {
        final DubboDecoder decoder;
        final ByteBuf cumulation = PooledByteBufAllocator.DEFAULT.directBuffer(256);
        final List<Object> out = new ArrayList<>();

        Feeder(DubboDecoder decoder) {
            this.decoder = decoder;
        }

        Feeder feed(byte[] bytes, int from, int to) {
            cumulation.writeBytes(bytes, from, to - from);
            decoder.decode(cumulation, out);
            cumulation.discardReadBytes();
            return this;
        }

        Feeder feed(byte[] bytes) {
            return feed(bytes, 0, bytes.length);
        }

        @Override
        public void close() {
            cumulation.release();
        }
    }

    // ---- 1. wrong magic

    @Test
    void zeroBytesInsteadOfMagicCloseTheConnection() {
        DubboDecoder decoder = Codecs.serverDecoder();
        ByteBuf in = Unpooled.wrappedBuffer(new byte[32]);
        try {
            DubboProtocolException e = assertThrows(DubboProtocolException.class,
                    () -> decoder.decode(in, new ArrayList<>()));
            assertTrue(e.getMessage().contains("wrong magic"), e.getMessage());
            // A defined reaction, not a loop: the buffered bytes are dropped, later bytes (even a valid frame)
            // are discarded without output while the transport closes.
            assertFalse(in.isReadable());
            ByteBuf more = Unpooled.wrappedBuffer(EXIST_USER);
            try {
                List<Object> out = new ArrayList<>();
                decoder.decode(more, out);
                assertTrue(out.isEmpty());
                assertFalse(more.isReadable());
            } finally {
                more.release();
            }
        } finally {
            in.release();
        }
    }

    @Test
    void oneWrongMagicByteIsRefusedAsSoonAsItArrives() {
        for (int index : new int[] {0, 1}) {
            byte[] bad = patch(EXIST_USER, index, EXIST_USER[index] ^ 0x01);
            try (Feeder f = new Feeder(Codecs.serverDecoder())) {
                // Only the bytes up to the wrong one are needed to refuse the stream.
                if (index == 1) {
                    f.feed(bad, 0, 1);
                    assertTrue(f.out.isEmpty());
                }
                assertThrows(DubboProtocolException.class, () -> f.feed(bad, index, index + 1));
            }
        }
    }

    @Test
    void magicInTheMiddleOfABufferIsNotResynchronised() {
        byte[] bytes = concat(new byte[] {0x01, 0x02}, EXIST_USER);
        DubboDecoder decoder = Codecs.serverDecoder();
        assertThrows(DubboProtocolException.class, () -> Codecs.decodeHeap(decoder, bytes));
    }

    @Test
    void garbageAfterAValidFrameStillDeliversTheFrame() {
        ByteBuf in = Unpooled.wrappedBuffer(concat(EXIST_USER, "GET / HTTP/1.1\r\n".getBytes()));
        try {
            List<Object> out = new ArrayList<>();
            assertThrows(DubboProtocolException.class, () -> Codecs.serverDecoder().decode(in, out));
            assertEquals(1, out.size());
            assertEquals(id(EXIST_USER), ((DubboRequest) out.get(0)).id());
        } finally {
            in.release();
        }
    }

    // ---- 2. truncated header and body, every split point

    @ParameterizedTest
    @ValueSource(strings = {"existUser.request", "getUser.response", "heartbeat.request", "createUser.request",
        "listUser.response"})
    void everySplitPointDecodesOnceComplete(String vector) {
        byte[] frame = Vectors.frame(vector);
        for (int split = 1; split < frame.length; split++) {
            try (Feeder f = new Feeder(Codecs.serverDecoder())) {
                f.feed(frame, 0, split);
                assertTrue(f.out.isEmpty(), "decoded before complete at split " + split);
                f.feed(frame, split, frame.length);
                assertEquals(1, f.out.size(), "split " + split);
                assertFalse(f.cumulation.isReadable());
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"existUser.request", "getUser.response", "heartbeat.request"})
    void oneByteAtATime(String vector) {
        byte[] frame = Vectors.frame(vector);
        try (Feeder f = new Feeder(Codecs.clientDecoder(org.apache.dubbo.benchmark.bean.User.class))) {
            for (int i = 0; i < frame.length; i++) {
                f.feed(frame, i, i + 1);
                assertEquals(i == frame.length - 1 ? 1 : 0, f.out.size(), "after byte " + i);
            }
            Object m = f.out.get(0);
            if (m instanceof DubboRequest) {
                assertEquals(id(frame), ((DubboRequest) m).id());
            } else {
                DubboResponse r = (DubboResponse) m;
                assertTrue(r.isOk(), r::toString);
                assertEquals(id(frame), r.id());
            }
        }
    }

    // ---- 3. several frames per read, frames across reads

    @Test
    void twoFramesInOneBuffer() {
        List<Object> out = Codecs.decodeDirect(Codecs.serverDecoder(), concat(EXIST_USER, GET_USER));
        assertEquals(2, out.size());
        assertEquals("existUser", ((DubboRequest) out.get(0)).methodName());
        assertEquals("getUser", ((DubboRequest) out.get(1)).methodName());
    }

    @Test
    void oneAndAHalfFramesThenTheRest() {
        byte[] all = concat(EXIST_USER, GET_USER, HEARTBEAT);
        int cut = EXIST_USER.length + GET_USER.length / 2;
        try (Feeder f = new Feeder(Codecs.serverDecoder())) {
            f.feed(all, 0, cut);
            assertEquals(1, f.out.size());
            assertEquals(GET_USER.length / 2, f.cumulation.readableBytes(), "the half frame stays unread");
            f.feed(all, cut, all.length);
            assertEquals(3, f.out.size());
            assertEquals("getUser", ((DubboRequest) f.out.get(1)).methodName());
            assertTrue(((DubboRequest) f.out.get(2)).isHeartbeat());
        }
    }

    @Test
    void manyFramesInOneRead() {
        byte[][] frames = new byte[100][];
        Arrays.fill(frames, GET_USER);
        List<Object> out = Codecs.decodeHeap(Codecs.serverDecoder(), concat(frames));
        assertEquals(100, out.size());
        for (Object o : out) {
            assertEquals(2L, ((DubboRequest) o).arguments()[0]);
        }
    }

    // ---- 4. body length checked from the header

    @Test
    void negativeBodyLengthIsReportedAndTheNextFrameStillDecodes() {
        byte[] bad = header(0xd7, 0, 77L, -5);
        List<Object> out = Codecs.decodeDirect(Codecs.serverDecoder(), concat(bad, GET_USER));
        assertEquals(2, out.size());
        DubboRequest broken = (DubboRequest) out.get(0);
        assertTrue(broken.isBroken());
        assertEquals(77L, broken.id());
        assertTrue(broken.isTwoWay());
        assertEquals(DubboConstants.STATUS_BAD_REQUEST, broken.brokenStatus());
        assertTrue(broken.errorMessage().contains("-5"), broken.errorMessage());
        assertEquals("getUser", ((DubboRequest) out.get(1)).methodName());
    }

    @Test
    void zeroBodyLengthIsABrokenRequestWithItsId() {
        List<Object> out = Codecs.decodeDirect(Codecs.serverDecoder(), concat(header(0xd7, 0, 78L, 0), HEARTBEAT));
        assertEquals(2, out.size());
        DubboRequest broken = (DubboRequest) out.get(0);
        assertTrue(broken.isBroken());
        assertEquals(78L, broken.id());
        assertTrue(((DubboRequest) out.get(1)).isHeartbeat());
        // A zero-length response fails its call instead of hanging it.
        DubboResponse r = (DubboResponse) Codecs.decodeOne(Codecs.clientDecoder(Object.class),
                header(0x17, 20, 79L, 0));
        assertEquals(79L, r.id());
        assertEquals(DubboConstants.STATUS_CLIENT_ERROR, r.status());
    }

    @Test
    void bodyExactlyAtTheLimitIsDecodedOneMoreIsRejected() {
        int bodyLength = EXIST_USER.length - 16;
        DubboRequest ok = (DubboRequest) Codecs.decodeOne(Codecs.serverDecoder(bodyLength), EXIST_USER);
        assertFalse(ok.isBroken(), ok::toString);

        DubboRequest rejected = (DubboRequest) Codecs.decodeOne(Codecs.serverDecoder(bodyLength - 1), EXIST_USER);
        assertTrue(rejected.isBroken());
        assertEquals(id(EXIST_USER), rejected.id());
        assertEquals(DubboConstants.STATUS_BAD_REQUEST, rejected.brokenStatus());
        assertEquals("Data length too large: " + bodyLength + ", max payload: " + (bodyLength - 1)
                + " (frame rejected from its header; body skipped)", rejected.errorMessage());
    }

    @Test
    void hugeDeclaredLengthIsRejectedFromTheHeaderWithoutBuffering() {
        try (Feeder f = new Feeder(Codecs.serverDecoder())) {
            f.feed(header(0xd7, 0, 80L, 0x7fffffff));
            assertEquals(1, f.out.size(), "reported before any body byte");
            DubboRequest r = (DubboRequest) f.out.get(0);
            assertEquals(80L, r.id());
            assertTrue(r.errorMessage().contains("2147483647") && r.errorMessage().contains("8388608"),
                    r.errorMessage());
            // Body bytes are consumed as they come, never kept.
            byte[] chunk = new byte[64 * 1024];
            for (int i = 0; i < 32; i++) {
                f.feed(chunk);
                assertFalse(f.cumulation.isReadable());
            }
            assertEquals(1, f.out.size());
        }
        // Same for a response: the waiting call fails at once with CLIENT_ERROR.
        DubboResponse resp = (DubboResponse) Codecs.decodeOne(Codecs.clientDecoder(Object.class),
                header(0x17, 20, 81L, 0x7fffffff));
        assertEquals(81L, resp.id());
        assertEquals(DubboConstants.STATUS_CLIENT_ERROR, resp.status());
        assertTrue(resp.errorMessage().startsWith("Data length too large: 2147483647, max payload: 8388608"));
    }

    // ---- 5. oversized request, then a valid one

    @Test
    void oversizedRequestIsSkippedAcrossReadsAndTheNextIsServed() {
        byte[] big = Codecs.encode(new DubboEncoder(0), DubboRequest.invocation(90L, Codecs.EXIST_USER,
                new Object[] {"x".repeat(5000)}, Codecs.benchmarkAttachments("1000")));
        byte[] stream = concat(big, GET_USER);
        try (Feeder f = new Feeder(Codecs.serverDecoder(2000))) {
            for (int off = 0; off < stream.length; off += 700) {
                f.feed(stream, off, Math.min(stream.length, off + 700));
            }
            assertEquals(2, f.out.size());
            DubboRequest first = (DubboRequest) f.out.get(0);
            assertTrue(first.isBroken());
            assertEquals(90L, first.id());
            assertTrue(first.errorMessage().contains(String.valueOf(big.length - 16))
                    && first.errorMessage().contains("2000"), first.errorMessage());
            DubboRequest second = (DubboRequest) f.out.get(1);
            assertFalse(second.isBroken(), second::toString);
            assertEquals(id(GET_USER), second.id());
            assertFalse(f.cumulation.isReadable());
        }
    }

    // ---- 6. declared length larger than the items

    @Test
    void bytesAfterTheLastItemAreSkipped() {
        byte[] padded = withLength(concat(EXIST_USER, new byte[] {1, 2, 3, 4, 5, 6, 7}), EXIST_USER.length - 16 + 7);
        List<Object> out = Codecs.decodeHeap(Codecs.serverDecoder(), concat(padded, GET_USER));
        assertEquals(2, out.size());
        DubboRequest first = (DubboRequest) out.get(0);
        assertFalse(first.isBroken(), first::toString);
        assertEquals(Codecs.benchmarkAttachments("1000"), first.attachments());
        assertEquals("getUser", ((DubboRequest) out.get(1)).methodName());

        byte[] paddedResponse = withLength(concat(GET_USER_RESPONSE, new byte[3]), GET_USER_RESPONSE.length - 16 + 3);
        DubboResponse r = (DubboResponse) Codecs.decodeOne(
                Codecs.clientDecoder(org.apache.dubbo.benchmark.bean.User.class), paddedResponse);
        assertTrue(r.isOk(), r::toString);
    }

    // ---- 7. unknown serialization, unknown flag, corrupt body: an error with the right id

    @Test
    void unknownSerializationIdOnARequest() {
        for (int ser : new int[] {9, 2, 0, 31}) {
            byte[] frame = patch(EXIST_USER, 2, 0xc0 | ser);
            List<Object> out = Codecs.decodeHeap(Codecs.serverDecoder(), concat(frame, GET_USER));
            DubboRequest r = (DubboRequest) out.get(0);
            assertTrue(r.isBroken(), r::toString);
            assertEquals(id(EXIST_USER), r.id());
            assertEquals(ser, r.serializationId());
            assertEquals(DubboConstants.STATUS_BAD_REQUEST, r.brokenStatus());
            // hessian2 (2) is spoken: a fastjson2 body labelled hessian2 is refused as a corrupt hessian2 body.
            assertTrue(r.errorMessage().contains(ser == 2 ? "hessian2" : "serialization id " + ser), r.errorMessage());
            assertFalse(((DubboRequest) out.get(1)).isBroken(), "the connection goes on");
        }
    }

    @Test
    void unknownSerializationIdOnAResponse() {
        DubboResponse r = (DubboResponse) Codecs.decodeOne(Codecs.clientDecoder(Object.class),
                patch(GET_USER_RESPONSE, 2, 0x09));
        assertEquals(id(GET_USER_RESPONSE), r.id());
        assertEquals(DubboConstants.STATUS_CLIENT_ERROR, r.status());
    }

    @Test
    void unknownResultFlag() {
        // The flag item is 00 00 00 02 BD 04 right after the header.
        byte[] frame = patch(GET_USER_RESPONSE, 21, 9);
        List<Object> out = Codecs.decodeHeap(Codecs.clientDecoder(Object.class), concat(frame, GET_USER_RESPONSE));
        DubboResponse r = (DubboResponse) out.get(0);
        assertEquals(id(GET_USER_RESPONSE), r.id());
        assertEquals(DubboConstants.STATUS_CLIENT_ERROR, r.status());
        assertTrue(r.errorMessage().contains("Unknown result flag") && r.errorMessage().contains("9"),
                r.errorMessage());
        assertTrue(((DubboResponse) out.get(1)).isOk());
    }

    @Test
    void corruptFastjsonBodies() {
        // The argument item of existUser("1") is 00 00 00 02 4A 31; make it an unknown JSONB type.
        int arg = indexOf(EXIST_USER, new byte[] {0, 0, 0, 2, 0x4a, 0x31}) + 4;
        byte[] corrupt = patch(EXIST_USER, arg, 0x8f);
        DubboRequest r = (DubboRequest) Codecs.decodeOne(Codecs.serverDecoder(), corrupt);
        assertTrue(r.isBroken());
        assertEquals(id(EXIST_USER), r.id());
        assertEquals(Codecs.EXIST_USER, r.method(), "the target decoded before the failure is kept");

        // An item length running past the body (0x7f02 bytes).
        byte[] overrun = patch(EXIST_USER, arg - 2, 0x7f);
        DubboRequest r2 = (DubboRequest) Codecs.decodeOne(Codecs.serverDecoder(), overrun);
        assertTrue(r2.isBroken());
        assertTrue(r2.errorMessage().contains("exceeds"), r2.errorMessage());

        // Garbage inside the User of a response.
        byte[] badUser = GET_USER_RESPONSE.clone();
        for (int i = 60; i < 120; i++) {
            badUser[i] = (byte) 0xff;
        }
        DubboResponse resp = (DubboResponse) Codecs.decodeOne(
                Codecs.clientDecoder(org.apache.dubbo.benchmark.bean.User.class), badUser);
        assertEquals(id(GET_USER_RESPONSE), resp.id());
        assertEquals(DubboConstants.STATUS_CLIENT_ERROR, resp.status());
    }

    @Test
    void forgedHugeArrayCountIsAnErrorNotACrash() {
        // A List<Integer> field whose count claims 2^31-1 elements.
        byte[] value = TestBytes.hex("a4 48 7f ff ff ff 01 02");
        byte[] body = concat(TestBytes.hex("00 00 00 02 bd 01"), ByteBuffer.allocate(4).putInt(value.length).array(),
                value);
        byte[] frame = concat(header(0x17, 20, 82L, body.length), body);
        DubboResponse r = (DubboResponse) Codecs.decodeOne(Codecs.clientDecoder(Object[].class), frame);
        assertEquals(82L, r.id());
        assertEquals(DubboConstants.STATUS_CLIENT_ERROR, r.status(), r::toString);
    }

    @Test
    void unknownServiceOrDescriptorIsABadRequest() {
        DubboRequest wrongDesc = DubboRequest.invocation(5L, DubboMethod.of(Codecs.USER_SERVICE, null, "getUser",
                "I"), new Object[] {1}, null);
        DubboRequest r = (DubboRequest) Codecs.decodeOne(Codecs.serverDecoder(), Codecs.encode(wrongDesc));
        assertTrue(r.isBroken());
        assertEquals(5L, r.id());
        assertTrue(r.errorMessage().startsWith("Service not found"), r.errorMessage());
        assertEquals("getUser", r.methodName());
    }

    @Test
    void eventsInHessian2AndLongEventBodies() {
        // hessian2 heartbeat: body 4E.
        byte[] hb = concat(header(0xe2, 0, 83L, 1), new byte[] {0x4e});
        DubboRequest r = (DubboRequest) Codecs.decodeOne(Codecs.serverDecoder(), hb);
        assertTrue(r.isHeartbeat());
        assertEquals(DubboConstants.SERIALIZATION_HESSIAN2, r.serializationId());
        assertEquals(83L, r.id());
        // answered in kind: event flag, same id and serialization, body 4E
        byte[] reply = Codecs.encode(DubboResponse.replyHeartbeat(r));
        assertEquals(Arrays.toString(concat(header(0x22, 20, 83L, 1), new byte[] {0x4e})), Arrays.toString(reply));

        // hessian2 readonly event: body 01 52.
        byte[] ro = concat(header(0xa2, 0, 84L, 2), new byte[] {0x01, 0x52});
        DubboRequest e = (DubboRequest) Codecs.decodeOne(Codecs.clientDecoder(Object.class), ro);
        assertEquals("R", e.eventData());
        assertFalse(e.isTwoWay());
        assertArrayEquals(ro, Codecs.encode(DubboRequest.readonlyEvent(84L, DubboConstants.SERIALIZATION_HESSIAN2)));

        // An event body over 15 bytes is refused, as Dubbo does.
        byte[] longEvent = Codecs.encode(DubboRequest.event(85L, true, (byte) 23, "0123456789abcdef"));
        DubboRequest refused = (DubboRequest) Codecs.decodeOne(Codecs.serverDecoder(), longEvent);
        assertTrue(refused.isBroken());
        assertEquals(85L, refused.id());
        assertTrue(refused.errorMessage().contains("Event data too long"));
    }

    private static void assertArrayEquals(byte[] expected, byte[] actual) {
        org.junit.jupiter.api.Assertions.assertArrayEquals(expected, actual);
    }

    static int indexOf(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 0; i <= haystack.length - needle.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        throw new AssertionError("not found");
    }

    @Test
    void decodedMessagesAreValues() {
        // The decoder holds nothing between frames: a message survives later decoding on the same decoder.
        DubboDecoder decoder = Codecs.serverDecoder();
        DubboRequest first = (DubboRequest) Codecs.decodeOne(decoder, EXIST_USER);
        Codecs.decodeOne(decoder, GET_USER);
        assertInstanceOf(String.class, first.arguments()[0]);
        assertEquals("1", first.arguments()[0]);
    }
}
