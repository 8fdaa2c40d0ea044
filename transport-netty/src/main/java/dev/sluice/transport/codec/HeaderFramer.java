package dev.sluice.transport.codec;

import dev.sluice.transport.FrameTooLargeException;
import dev.sluice.transport.Internal;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import java.util.List;

/**
 * Cuts a byte stream into frames that start with a fixed-length header holding an optional magic and a 4-byte
 * big-endian body length (Dubbo: {@code 0xdabb}, a 16-byte header, the length at offset 12), so that each protocol
 * decoder only decodes whole frames. The framer owns everything between: it refuses a wrong magic at its first
 * byte, waits for whole headers and bodies, and never buffers a body the limit refuses: a frame whose declared length
 * is negative or over the limit is reported to its {@link Frames} from the header alone, and its body is skipped as
 * it arrives, however many reads that takes, so the stream stays in sync.
 *
 * <p>One instance per connection, used as the body of a {@link FrameDecoder#decode}: only that connection's event
 * loop calls it (it keeps the skip state of a refused frame).
 */
@Internal
public final class HeaderFramer {
    /** Where a protocol's header keeps its magic and length. Immutable. */
    public static final class Layout {
        private final byte[] magic;
        private final int headerLength;
        private final int lengthOffset;

        /**
         * @param magic the bytes every frame starts with; empty for none
         * @param headerLength bytes before the body, magic and length field included
         * @param lengthOffset where the 4-byte body length sits in the header
         */
        public Layout(byte[] magic, int headerLength, int lengthOffset) {
            if (lengthOffset < magic.length || lengthOffset + 4 > headerLength) {
                throw new IllegalArgumentException("the length field must sit inside the header, after the magic:"
                        + " header " + headerLength + " bytes, magic " + magic.length + ", length at " + lengthOffset);
            }
            this.magic = magic.clone();
            this.headerLength = headerLength;
            this.lengthOffset = lengthOffset;
        }

        public int headerLength() {
            return headerLength;
        }
    }

    /** What a protocol does with the frames the framer cuts. Called on the connection's event loop. */
    public interface Frames {
        /**
         * A whole frame: its header at {@code in[start, start + headerLength)}, its body of {@code bodyLength} bytes
         * right after. Decode it into {@code out} without moving {@code in}'s reader index (the framer moves it past
         * the frame afterwards) and without keeping a reference to {@code in}.
         */
        void frame(ByteBuf in, int start, int bodyLength, List<Object> out);

        /**
         * A frame refused from its header, before any body byte was buffered: its declared body length is negative
         * ({@code declared < 0}, the body is then taken as empty) or over {@code limit}. Report it into {@code out}
         * (e.g. an error the peer can be answered with) or throw to close the connection. The framer skips the header
         * and the declared body.
         */
        void refused(ByteBuf in, int start, long declared, long limit, List<Object> out);

        /**
         * The stream does not start with the magic and cannot be resynchronised. Returns the exception that closes
         * the connection; {@code detail} names the bytes found.
         */
        RuntimeException badMagic(String detail);
    }

    /** Largest body a frame can have with no limit set: header and body must fit one buffer. */
    private final long maxBody;
    private final Layout layout;
    private final long limit;
    private final Frames frames;
    /** Body bytes of a refused frame still to drop. */
    private long skip;
    /** Set after a wrong magic: every later byte is discarded while the transport closes the connection. */
    private boolean unusable;

    /**
     * @param limit the largest body accepted in bytes; 0 or less for no limit but what one buffer holds
     */
    public HeaderFramer(Layout layout, long limit, Frames frames) {
        this.layout = layout;
        this.maxBody = Integer.MAX_VALUE - layout.headerLength;
        this.limit = limit > 0 ? limit : maxBody;
        this.frames = frames;
    }

    /** Cuts every whole frame of {@code in}; see {@link FrameDecoder#decode}. */
    public void decode(ByteBuf in, List<Object> out) {
        if (unusable) {
            in.skipBytes(in.readableBytes());
            return;
        }
        while (in.isReadable()) {
            if (skip > 0) {
                int n = (int) Math.min(skip, in.readableBytes());
                in.skipBytes(n);
                skip -= n;
                continue;
            }
            int start = in.readerIndex();
            int readable = in.readableBytes();
            checkMagic(in, start, readable);
            if (readable < layout.headerLength) {
                return;
            }
            int declared = in.getInt(start + layout.lengthOffset);
            if (declared < 0 || declared > limit) {
                frames.refused(in, start, declared, limit, out);
                in.readerIndex(start + layout.headerLength);
                skip = Math.max(declared, 0);
                continue;
            }
            int frameLength = layout.headerLength + declared;
            if (readable < frameLength) {
                return;
            }
            frames.frame(in, start, declared, out);
            in.readerIndex(start + frameLength);
        }
    }

    /** Refuses a wrong magic as soon as its bytes are here, without waiting for a whole header. */
    private void checkMagic(ByteBuf in, int start, int readable) {
        byte[] magic = layout.magic;
        for (int i = 0; i < magic.length && i < readable; i++) {
            if (in.getByte(start + i) != magic[i]) {
                // Drop what is buffered and everything after, so neither a retry nor the final decode on close
                // rethrows.
                unusable = true;
                String detail = "wrong magic, expected 0x" + ByteBufUtil.hexDump(magic) + ", got 0x"
                        + ByteBufUtil.hexDump(in, start, Math.min(readable, magic.length)) + " (next bytes: "
                        + ByteBufUtil.hexDump(in, start, Math.min(readable, layout.headerLength))
                        + "); closing the connection";
                in.skipBytes(readable);
                throw frames.badMagic(detail);
            }
        }
    }

    /** The usual refusal text for {@code declared} against {@code limit}, for protocols that throw. */
    public static FrameTooLargeException tooLarge(long declared, long limit, String what) {
        return new FrameTooLargeException(declared & 0xffffffffL, limit, what);
    }
}
