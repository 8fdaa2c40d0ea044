package dev.sluice.transport.codec;

import dev.sluice.transport.FrameTooLargeException;
import io.netty.buffer.ByteBuf;
import java.util.List;

/**
 * A protocol-agnostic codec for frames whose header carries a 4-byte big-endian body length at a fixed offset
 * (Dubbo: a 16-byte header with the length at offset 12). Decoding cuts whole frames, header included, as
 * retained slices the receiver must release; no body byte is interpreted. Encoding accepts an already built frame
 * ({@link ByteBuf}, copied) or {@code byte[]}. Used for echo servers and the transport-bound benchmarks.
 */
public final class LengthFieldFrames implements Codec {
    private final int headerLength;
    private final int lengthOffset;
    private final int maxBody;

    /**
     * @param headerLength bytes before the body, including the length field
     * @param lengthOffset where the 4-byte body length sits inside the header
     * @param maxBody largest body accepted; a larger declared length fails the connection
     */
    public LengthFieldFrames(int headerLength, int lengthOffset, int maxBody) {
        if (lengthOffset < 0 || lengthOffset + 4 > headerLength || maxBody < 0) {
            throw new IllegalArgumentException("length field must sit inside the header: header=" + headerLength
                    + " offset=" + lengthOffset + " maxBody=" + maxBody);
        }
        this.headerLength = headerLength;
        this.lengthOffset = lengthOffset;
        this.maxBody = maxBody;
    }

    @Override
    public FrameEncoder encoder() {
        return new FrameEncoder() {
            @Override
            public void encode(Object message, ByteBuf out) {
                if (message instanceof byte[]) {
                    out.writeBytes((byte[]) message);
                } else if (message instanceof ByteBuf) {
                    ByteBuf b = (ByteBuf) message;
                    out.writeBytes(b, b.readerIndex(), b.readableBytes());
                } else {
                    throw new IllegalArgumentException("LengthFieldFrames encodes byte[] or ByteBuf frames, not "
                            + (message == null ? "null" : message.getClass().getName()));
                }
            }

            @Override
            public int sizeHint(Object message) {
                return message instanceof byte[] ? ((byte[]) message).length : 256;
            }
        };
    }

    @Override
    public FrameDecoder newDecoder() {
        return (in, out) -> cut(in, out);
    }

    private void cut(ByteBuf in, List<Object> out) {
        while (in.readableBytes() >= headerLength) {
            int body = in.getInt(in.readerIndex() + lengthOffset);
            if (body < 0 || body > maxBody) {
                throw new FrameTooLargeException(body & 0xffffffffL, maxBody, "Inbound frame body");
            }
            int frame = headerLength + body;
            if (in.readableBytes() < frame) {
                return;
            }
            out.add(in.readRetainedSlice(frame));
        }
    }
}
