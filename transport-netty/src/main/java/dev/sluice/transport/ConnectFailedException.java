package dev.sluice.transport;

/** Connecting to a peer failed or timed out; the message names the address and the timeout. */
public class ConnectFailedException extends SluiceException {
    private static final long serialVersionUID = 1L;

    public ConnectFailedException(String message, Throwable cause) {
        super(message, cause);
    }
}
