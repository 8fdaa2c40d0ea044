package dev.sluice.transport.internal;

import dev.sluice.transport.codec.HeaderFramer;

/**
 * The 16-byte header of Apache Dubbo's {@code dubbo} protocol (docs/wire-format.md §1), defined once for the two
 * decoders that read it: the standalone codec ({@code dev.sluice.codec.dubbo}) and the Dubbo {@code Transporter}
 * adapter ({@code dev.sluice.dubbo}). Both cut frames with a {@link HeaderFramer} on {@link #LAYOUT}.
 *
 * <pre>
 * 0-1 magic 0xdabb | 2 flags | 3 status | 4-11 request id | 12-15 body length | body
 * </pre>
 */
public final class DubboHeader {
    public static final short MAGIC = (short) 0xdabb;
    public static final byte MAGIC_HIGH = (byte) 0xda;
    public static final byte MAGIC_LOW = (byte) 0xbb;
    public static final int LENGTH = 16;
    /** Offset of the 4-byte body length. */
    public static final int BODY_LENGTH_OFFSET = 12;
    /** Flag bit: a request (else a response). */
    public static final int FLAG_REQUEST = 0x80;
    /** Flag bit: the request expects a response. */
    public static final int FLAG_TWO_WAY = 0x40;
    /** Flag bit: an event (heartbeat, readonly, writeable). */
    public static final int FLAG_EVENT = 0x20;
    /** The low five flag bits: the body's serialization id. */
    public static final int SERIALIZATION_MASK = 0x1f;
    /** Where the magic and the length are, for a {@link HeaderFramer}. */
    public static final HeaderFramer.Layout LAYOUT =
            new HeaderFramer.Layout(new byte[] {MAGIC_HIGH, MAGIC_LOW}, LENGTH, BODY_LENGTH_OFFSET);

    private DubboHeader() {
    }
}
