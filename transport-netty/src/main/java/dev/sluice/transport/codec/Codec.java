package dev.sluice.transport.codec;

import dev.sluice.transport.Connection;

/** A protocol's pair of encoder and decoder factory, as the transport needs them. */
public interface Codec {
    /** Shared by every connection and called from any thread. */
    FrameEncoder encoder();

    /** A fresh decoder for a new connection. */
    FrameDecoder newDecoder();

    /**
     * A fresh decoder for {@code connection}, for protocols whose decoding needs the connection it reads from (the
     * Dubbo adapter hands Dubbo's codec the connection's Dubbo channel). Called on the connection's event loop while
     * the channel is set up, before it is active; defaults to {@link #newDecoder()}.
     */
    default FrameDecoder newDecoder(Connection connection) {
        return newDecoder();
    }
}
