package dev.sluice.transport;

/** The client or server transport was closed by its owner; nothing more can be sent through it. */
public class TransportClosedException extends SluiceException {
    private static final long serialVersionUID = 1L;

    public TransportClosedException(String message) {
        super(message);
    }
}
