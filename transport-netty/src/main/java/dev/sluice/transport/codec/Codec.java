package dev.sluice.transport.codec;

import dev.sluice.transport.Connection;

/** A protocol's pair of encoder and decoder factory, as the transport needs them. */
public interface Codec {
    /** Shared by every connection and called from any thread. */
    FrameEncoder encoder();

    /**
     * A fresh decoder for a new connection, called on that connection's event loop while its channel is set up
     * (before it is active). Protocols whose decoding needs the connection (the Dubbo adapter hands Dubbo's codec the
     * connection's Dubbo channel) keep it; others ignore it, and tests that decode without a connection pass null.
     */
    FrameDecoder newDecoder(Connection connection);
}
