package dev.sluice.transport.netty;

import dev.sluice.transport.Connection;
import dev.sluice.transport.codec.Codec;
import dev.sluice.transport.codec.FrameDecoder;
import dev.sluice.transport.codec.FrameEncoder;
import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * A minimal length-prefixed protocol for transport tests: a frame is a 4-byte length then that many bytes. The
 * encoder takes a {@code byte[]} or a String; the decoder emits each frame's payload as a retained slice the
 * receiver must release.
 */
final class TestFrames implements Codec {
    static final TestFrames INSTANCE = new TestFrames();
    static final int MAX_FRAME = 1 << 20;

    @Override
    public FrameEncoder encoder() {
        return new FrameEncoder() {
            @Override
            public void encode(Object message, ByteBuf out) {
                byte[] payload = message instanceof String
                        ? ((String) message).getBytes(StandardCharsets.UTF_8) : (byte[]) message;
                out.writeInt(payload.length);
                out.writeBytes(payload);
            }
        };
    }

    @Override
    public FrameDecoder newDecoder(Connection connection) {
        return new FrameDecoder() {
            @Override
            public void decode(ByteBuf in, List<Object> out) {
                while (in.readableBytes() >= 4) {
                    int len = in.getInt(in.readerIndex());
                    if (len < 0 || len > MAX_FRAME) {
                        throw new IllegalStateException("bad frame length " + len);
                    }
                    if (in.readableBytes() < 4 + len) {
                        return;
                    }
                    in.skipBytes(4);
                    out.add(in.readRetainedSlice(len));
                }
            }
        };
    }

    /** A whole frame (length + payload) in a fresh buffer, as a caller would hand it to a write queue. */
    static ByteBuf frame(io.netty.buffer.ByteBufAllocator alloc, int producer, int seq, int padding) {
        ByteBuf b = alloc.directBuffer(12 + padding);
        b.writeInt(8 + padding);
        b.writeInt(producer);
        b.writeInt(seq);
        b.writeZero(padding);
        return b;
    }
}
