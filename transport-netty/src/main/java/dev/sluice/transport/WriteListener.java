package dev.sluice.transport;

/**
 * Told once whether a message reached the socket. Runs on the connection's event loop, so it must not block;
 * an RPC layer implements it on its pending-call object to avoid one future per message.
 */
public interface WriteListener {
    /** The batch holding this message was written to the socket. */
    void onWritten();

    /** The message was not written; {@code cause} says why (closed connection, failed write, rejected drain). */
    void onWriteFailed(Throwable cause);

    /** A listener that ignores both outcomes, for fire-and-forget messages. */
    WriteListener NONE = new WriteListener() {
        @Override
        public void onWritten() {
        }

        @Override
        public void onWriteFailed(Throwable cause) {
        }
    };
}
