package dev.sluice.codec.dubbo.model;

/** Thrown by an implementation but declared by no service: a consumer refuses it. */
public class UndeclaredException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public UndeclaredException(String message) {
        super(message);
    }
}
