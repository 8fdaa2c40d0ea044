package dev.sluice.dubbo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.dubbo.remoting.Channel;
import org.apache.dubbo.remoting.Codec2;
import org.apache.dubbo.remoting.buffer.ChannelBuffer;
import org.apache.dubbo.remoting.exchange.Request;
import org.apache.dubbo.remoting.exchange.Response;
import org.apache.dubbo.remoting.exchange.support.MultiMessage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The decode loop around Dubbo's codec, with a stand-in codec that decodes a Dubbo header and returns the body as a
 * string (or, should non-Dubbo input ever reach it, a line of text): kept bytes of incomplete frames, several frames
 * per read, frames
 * above the payload limit skipped without buffering, codec failures. Direct calls, no channel; the cumulation buffer
 * is one pooled buffer written to between calls.
 */
class DubboFrameDecoderTest {
    private static final int LIMIT = 64;

    private ByteBuf in;
    private final List<Object> out = new ArrayList<>();
    private final FakeCodec codec = new FakeCodec();
    private final DubboFrameDecoder decoder = new DubboFrameDecoder(codec, LIMIT, () -> null);

    @BeforeEach
    void allocate() {
        in = PooledByteBufAllocator.DEFAULT.buffer();
    }

    @AfterEach
    void release() {
        in.release();
    }

    @Test
    void incompleteFramesAreKeptUntilComplete() {
        byte[] frame = frame(0x80 | 0x40, 7, "hello");
        in.writeBytes(frame, 0, 10);
        decoder.decode(in, out);
        in.writeBytes(frame, 10, 8);
        decoder.decode(in, out);
        assertEquals(0, out.size());
        assertEquals(0, codec.calls.get(), "the codec is not called for an incomplete frame");
        assertEquals(0, in.readerIndex());
        in.writeBytes(frame, 18, frame.length - 18);
        decoder.decode(in, out);
        assertEquals(List.of("hello"), out);
        assertEquals(1, codec.calls.get());
        assertEquals(0, in.readableBytes());
    }

    @Test
    void severalFramesInOneReadDecodeInOrderAndTheRestIsKept() {
        in.writeBytes(frame(0x80 | 0x40, 1, "a"));
        in.writeBytes(frame(0x80 | 0x40, 2, "bb"));
        in.writeBytes(frame(0, 3, "ccc"));
        byte[] partial = frame(0x80, 4, "dddd");
        in.writeBytes(partial, 0, 17);
        decoder.decode(in, out);
        assertEquals(List.of("a", "bb", "ccc"), out);
        assertEquals(17, in.readableBytes());
    }

    @Test
    void oversizedResponseBecomesClientErrorAndItsBodyIsSkippedAcrossReads() {
        byte[] big = frame(0x17, 42, "x".repeat(100));
        in.writeBytes(big, 0, 40);
        decoder.decode(in, out);
        assertEquals(1, out.size());
        Response res = assertInstanceOf(Response.class, out.get(0));
        assertEquals(42, res.getId());
        assertEquals(Response.CLIENT_ERROR, res.getStatus());
        assertTrue(res.getErrorMessage().contains("100 bytes") && res.getErrorMessage().contains("limit of " + LIMIT),
                res.getErrorMessage());
        in.writeBytes(big, 40, big.length - 40);
        in.writeBytes(frame(0x17, 43, "next"));
        decoder.decode(in, out);
        assertEquals(List.of(res, "next"), out);
        assertEquals(1, codec.calls.get(), "no byte of the skipped body reached the codec");
    }

    @Test
    void oversizedTwoWayRequestBecomesBrokenRequestAndOneWayIsDropped() {
        in.writeBytes(frame(0x80 | 0x40 | 0x17, 5, "y".repeat(LIMIT + 1)));
        in.writeBytes(frame(0x80 | 0x17, 6, "z".repeat(LIMIT + 1)));
        in.writeBytes(frame(0x80 | 0x40 | 0x17, 7, "ok"));
        decoder.decode(in, out);
        assertEquals(2, out.size());
        Request broken = assertInstanceOf(Request.class, out.get(0));
        assertEquals(5, broken.getId());
        assertTrue(broken.isBroken() && broken.isTwoWay());
        assertTrue(String.valueOf(broken.getData()).contains((LIMIT + 1) + " bytes"), String.valueOf(broken.getData()));
        assertEquals("ok", out.get(1));
    }

    @Test
    void nonDubboInputIsRefusedAtItsFirstByteWithoutReachingTheCodec() {
        in.writeBytes("l".getBytes(StandardCharsets.US_ASCII)); // trickled garbage: one byte is enough to refuse
        DubboCodecException e = assertThrows(DubboCodecException.class, () -> decoder.decode(in, out));
        assertTrue(e.getMessage().contains("wrong magic") && e.getMessage().contains("0x6c"), e.getMessage());
        assertEquals(0, in.readableBytes(), "the buffered bytes are dropped");
        assertEquals(0, codec.calls.get(), "Dubbo's telnet fallback never sees the bytes");
        // Whatever follows, even a valid frame, is discarded without output while the transport closes.
        in.writeBytes("s -l\n".getBytes(StandardCharsets.US_ASCII));
        in.writeBytes(frame(0x80 | 0x40, 9, "after"));
        decoder.decode(in, out);
        assertEquals(List.of(), out);
        assertEquals(0, in.readableBytes());
        assertEquals(0, codec.calls.get());
    }

    @Test
    void wrongSecondMagicByteIsRefused() {
        in.writeBytes(new byte[] {(byte) 0xda, 0x00});
        DubboCodecException e = assertThrows(DubboCodecException.class, () -> decoder.decode(in, out));
        assertTrue(e.getMessage().contains("0xda00"), e.getMessage());
    }

    @Test
    void negativeBodyLengthIsReportedAndTheNextFrameStillDecodes() {
        in.writeBytes(header(0x80 | 0x40 | 0x17, 77, -5));   // two-way request
        in.writeBytes(header(0x17, 78, Integer.MIN_VALUE));  // response
        in.writeBytes(header(0x80 | 0x17, 79, -1));          // one-way request: nobody to answer
        in.writeBytes(frame(0x80 | 0x40, 80, "next"));
        decoder.decode(in, out);
        assertEquals(3, out.size(), String.valueOf(out));
        Request broken = assertInstanceOf(Request.class, out.get(0));
        assertEquals(77, broken.getId());
        assertTrue(broken.isBroken() && broken.isTwoWay());
        assertTrue(String.valueOf(broken.getData()).contains("Invalid body length -5"),
                String.valueOf(broken.getData()));
        Response res = assertInstanceOf(Response.class, out.get(1));
        assertEquals(78, res.getId());
        assertEquals(Response.CLIENT_ERROR, res.getStatus());
        assertTrue(res.getErrorMessage().contains("Invalid body length " + Integer.MIN_VALUE), res.getErrorMessage());
        assertEquals("next", out.get(2));
        assertEquals(0, in.readableBytes());
    }

    @Test
    void multiMessageIsUnpacked() {
        in.writeBytes(frame(0x80 | 0x40, 1, "multi"));
        decoder.decode(in, out);
        assertEquals(List.of("m1", "m2"), out);
    }

    @Test
    void codecFailureIsUncheckedAndNamesTheCause() {
        in.writeBytes(frame(0x80 | 0x40, 1, "boom"));
        DubboCodecException e = assertThrows(DubboCodecException.class, () -> decoder.decode(in, out));
        assertInstanceOf(IOException.class, e.getCause());
        assertTrue(e.getMessage().contains("boom"), e.getMessage());
    }

    private static byte[] header(int flag, long id, int length) {
        return java.nio.ByteBuffer.allocate(16).put((byte) 0xda).put((byte) 0xbb).put((byte) flag).put((byte) 0)
                .putLong(id).putInt(length).array();
    }

    private static byte[] frame(int flag, long id, String body) {
        byte[] b = body.getBytes(StandardCharsets.UTF_8);
        ByteBuf f = PooledByteBufAllocator.DEFAULT.heapBuffer(16 + b.length);
        try {
            f.writeByte(0xda).writeByte(0xbb).writeByte(flag).writeByte(20).writeLong(id).writeInt(b.length).writeBytes(
                    b);
            byte[] bytes = new byte[f.readableBytes()];
            f.readBytes(bytes);
            return bytes;
        } finally {
            f.release();
        }
    }

    /** Decodes a Dubbo frame into its body as a string, or a line of other input into "line:...". */
    private static final class FakeCodec implements Codec2 {
        final AtomicInteger calls = new AtomicInteger();

        @Override
        public void encode(Channel channel, ChannelBuffer buffer, Object message) {
            throw new UnsupportedOperationException();
        }

        @Override
        public Object decode(Channel channel, ChannelBuffer buffer) throws IOException {
            calls.incrementAndGet();
            int readable = buffer.readableBytes();
            if (buffer.getByte(buffer.readerIndex()) != (byte) 0xda) {
                byte[] text = new byte[readable];
                buffer.readBytes(text);
                String s = new String(text, StandardCharsets.US_ASCII);
                int nl = s.indexOf('\n');
                if (nl < 0) {
                    return DecodeResult.NEED_MORE_INPUT;
                }
                buffer.readerIndex(buffer.readerIndex() - readable + nl + 1);
                return "line:" + s.substring(0, nl);
            }
            if (readable < 16) {
                return DecodeResult.NEED_MORE_INPUT;
            }
            int len = buffer.getByte(buffer.readerIndex() + 12) << 24
                    | (buffer.getByte(buffer.readerIndex() + 13) & 0xff) << 16
                    | (buffer.getByte(buffer.readerIndex() + 14) & 0xff) << 8
                    | (buffer.getByte(buffer.readerIndex() + 15) & 0xff);
            if (readable < 16 + len) {
                return DecodeResult.NEED_MORE_INPUT;
            }
            buffer.skipBytes(16);
            byte[] body = new byte[len];
            buffer.readBytes(body);
            String s = new String(body, StandardCharsets.UTF_8);
            if (s.equals("boom")) {
                throw new IOException("boom in body");
            }
            if (s.equals("multi")) {
                return MultiMessage.createFromArray("m1", "m2");
            }
            return s;
        }
    }
}
