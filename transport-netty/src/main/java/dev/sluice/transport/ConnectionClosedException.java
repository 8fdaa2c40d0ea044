package dev.sluice.transport;

/**
 * The connection closed (or was never open) before a message could be written or answered. {@link #sendState()}
 * says what the peer can have seen of it: retrying elsewhere is safe only for {@link SendState#NOT_SENT}.
 */
public class ConnectionClosedException extends SluiceException {
    private static final long serialVersionUID = 1L;
    private final SendState sendState;

    public ConnectionClosedException(String message, SendState sendState, Throwable cause) {
        super(message, cause);
        this.sendState = java.util.Objects.requireNonNull(sendState, "sendState");
    }

    /** {@code sent} true means written before the close ({@link SendState#SENT}); false, never written. */
    public ConnectionClosedException(String message, boolean sent, Throwable cause) {
        this(message, sent ? SendState.SENT : SendState.NOT_SENT, cause);
    }

    public ConnectionClosedException(String message) {
        this(message, SendState.NOT_SENT, null);
    }

    /** False only when the peer cannot have seen the message ({@link SendState#NOT_SENT}). */
    public boolean wasSent() {
        return sendState != SendState.NOT_SENT;
    }

    /** What the peer can have seen of the message. */
    public SendState sendState() {
        return sendState;
    }
}
