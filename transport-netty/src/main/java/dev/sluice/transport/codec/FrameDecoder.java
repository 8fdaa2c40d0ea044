package dev.sluice.transport.codec;

import io.netty.buffer.ByteBuf;
import java.util.List;

/**
 * Cuts inbound bytes into frames and decodes them. One instance per connection (it may keep state, such as bytes
 * left to skip of an oversized frame); only that connection's event loop calls it.
 */
public interface FrameDecoder {
    /**
     * Consumes as many whole frames from {@code in} as are available and adds one decoded message per frame to
     * {@code out}. Leaves an incomplete frame unread (the transport keeps the bytes and calls again when more
     * arrive). A message that holds a buffer is owned by the receiver. A frame larger than the payload limit must
     * never be buffered: protocols whose frames start with a length-carrying header get that, and the skipping of
     * refused bodies, from a {@link HeaderFramer}, and only decode whole frames. Throw only for input that makes the
     * stream unusable (for example a wrong magic): the transport then closes the connection with that reason.
     */
    void decode(ByteBuf in, List<Object> out);

    /** Called once when the connection closes, to release anything the decoder holds. */
    default void close() {
    }
}
