package dev.sluice.transport;

/**
 * Base of every exception Sluice raises. Unchecked: a transport failure is not something a caller can
 * recover from at the call site by declaring it, and typed subclasses say what happened and what to do.
 */
public class SluiceException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public SluiceException(String message) {
        super(message);
    }

    public SluiceException(String message, Throwable cause) {
        super(message, cause);
    }
}
