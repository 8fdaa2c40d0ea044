package dev.sluice.transport.codec;

/** A protocol's pair of encoder and decoder factory, as the transport needs them. */
public interface Codec {
    /** Shared by every connection and called from any thread. */
    FrameEncoder encoder();

    /** A fresh decoder for a new connection. */
    FrameDecoder newDecoder();
}
