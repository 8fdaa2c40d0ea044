package dev.sluice.transport;

/**
 * What the peer can have seen of a request that did not complete. Only {@link #NOT_SENT} makes a retry safe for a
 * call that is not idempotent.
 */
public enum SendState {
    /**
     * No byte of it reached the socket, and none ever will: it failed or was withdrawn while still queued. The peer
     * cannot have seen it; retrying is safe.
     */
    NOT_SENT,
    /**
     * Handed to the socket, but the write was not confirmed: it was still being written, or the write failed part
     * way. Some or all of it may have reached the peer, which may have acted on it.
     */
    UNKNOWN,
    /** Written to the socket in full; no response arrived. The peer may or may not have acted on it. */
    SENT
}
