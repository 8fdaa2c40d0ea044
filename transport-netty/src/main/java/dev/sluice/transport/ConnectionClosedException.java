package dev.sluice.transport;

/**
 * The connection closed (or was never open) before a message could be written or answered. Safe to retry on
 * another connection: the peer either never received the message or the call's outcome is unknown, as
 * {@link #wasSent()} tells.
 */
public class ConnectionClosedException extends SluiceException {
    private static final long serialVersionUID = 1L;
    private final boolean sent;

    public ConnectionClosedException(String message, boolean sent, Throwable cause) {
        super(message, cause);
        this.sent = sent;
    }

    public ConnectionClosedException(String message) {
        this(message, false, null);
    }

    /** True when the message had been written before the connection closed (outcome unknown). */
    public boolean wasSent() {
        return sent;
    }
}
