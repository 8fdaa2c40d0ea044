package dev.sluice.transport;

/**
 * Told how a queued message left (or did not leave) the connection. Every method runs on the connection's event
 * loop, so none may block; an RPC layer implements it on its pending-call object to avoid one future per message.
 *
 * <p>Exactly one of {@link #onWritten}, {@link #onWriteFailed} and {@link #onWriteOutcomeUnknown} is called, once,
 * unless {@link #beforeWrite} withdrew the message (then none is).
 */
public interface WriteListener {
    /**
     * The message is about to be handed to the socket; from the moment this returns true the peer may see it.
     * Returning false withdraws it instead: the queue releases it unwritten and tells this listener nothing more.
     * A caller that gives up on a message (a timeout) withdraws it by making this return false: if it won that race,
     * the message is guaranteed never to be written. Default: true.
     */
    default boolean beforeWrite() {
        return true;
    }

    /** The message was written to the socket in full. */
    void onWritten();

    /**
     * The message was not written: it failed while still queued (closed connection, rejected drain, released
     * buffer), so no byte of it reached the socket and the peer cannot have seen it.
     */
    void onWriteFailed(Throwable cause);

    /**
     * The message had been handed to the socket when its write failed (reset, close while flushing, a batch that
     * failed part way): some or all of its bytes may have reached the peer. The default calls
     * {@link #onWriteFailed}, for listeners that only need "it failed"; a listener that tells its caller whether a
     * request was sent must override it.
     */
    default void onWriteOutcomeUnknown(Throwable cause) {
        onWriteFailed(cause);
    }

    /** A listener that ignores every outcome, for fire-and-forget messages. */
    WriteListener NONE = new WriteListener() {
        @Override
        public void onWritten() {
        }

        @Override
        public void onWriteFailed(Throwable cause) {
        }
    };
}
