package dev.sluice.transport.codec;

import dev.sluice.transport.Connection;
import io.netty.buffer.ByteBuf;
import java.util.List;

/**
 * A protocol-agnostic codec for frames whose header carries a 4-byte big-endian body length at a fixed offset
 * (Dubbo: a 16-byte header with the length at offset 12). Decoding cuts whole frames, header included, as
 * retained slices the receiver must release; no body byte is interpreted. Encoding accepts an already built frame
 * ({@link ByteBuf}, copied) or {@code byte[]}. Used for echo servers and the transport-bound benchmarks.
 */
public final class LengthFieldFrames implements Codec {
    private final HeaderFramer.Layout layout;
    private final int maxBody;

    /**
     * @param headerLength bytes before the body, including the length field
     * @param lengthOffset where the 4-byte body length sits inside the header
     * @param maxBody largest body accepted (at least 1); a larger declared length fails the connection
     */
    public LengthFieldFrames(int headerLength, int lengthOffset, int maxBody) {
        if (lengthOffset < 0 || maxBody < 1) {
            throw new IllegalArgumentException("length field must sit inside the header and bodies be allowed:"
                    + " header=" + headerLength + " offset=" + lengthOffset + " maxBody=" + maxBody);
        }
        this.layout = new HeaderFramer.Layout(new byte[0], headerLength, lengthOffset);
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
    public FrameDecoder newDecoder(Connection connection) {
        HeaderFramer framer = new HeaderFramer(layout, maxBody, new HeaderFramer.Frames() {
            @Override
            public void frame(ByteBuf in, int start, int bodyLength, List<Object> out) {
                out.add(in.retainedSlice(start, layout.headerLength() + bodyLength));
            }

            @Override
            public void refused(ByteBuf in, int start, long declared, long limit, List<Object> out) {
                throw HeaderFramer.tooLarge(declared, limit, "Inbound frame body");
            }

            @Override
            public RuntimeException badMagic(String detail) {
                throw new AssertionError("no magic to be wrong"); // the layout has none
            }
        });
        return framer::decode;
    }
}
