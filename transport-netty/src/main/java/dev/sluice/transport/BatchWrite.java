package dev.sluice.transport;

/** How the write queue hands one drained batch to the channel. Both flush once per batch. */
public enum BatchWrite {
    /** One write of a {@code CompositeByteBuf} holding the batch; one listener completes the batch (default). */
    COMPOSITE,
    /** One write per frame, then one flush (grpc-java's shape); each frame's listener completes on its own write. */
    GATHER
}
