package dev.sluice.transport.codec;

import io.netty.buffer.ByteBuf;

/**
 * Encodes one outbound message into a pooled buffer. Runs on the thread that calls {@code Connection.send}, so
 * implementations must be thread-safe (stateless or thread-confined state).
 */
public interface FrameEncoder {
    /**
     * Writes the whole frame for {@code message} into {@code out}. On exception the transport releases
     * {@code out} and rethrows to the caller; nothing is queued. Implementations check the payload limit here
     * and throw {@link dev.sluice.transport.FrameTooLargeException} (or answer in kind, for a response).
     */
    void encode(Object message, ByteBuf out);

    /** A guess of the encoded size, to size the first buffer. */
    default int sizeHint(Object message) {
        return 256;
    }
}
