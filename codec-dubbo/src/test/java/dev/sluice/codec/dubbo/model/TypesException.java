package dev.sluice.codec.dubbo.model;

/** A checked business exception declared by {@link TypesService}, so the allowlist accepts it. */
public class TypesException extends Exception {
    private static final long serialVersionUID = 1L;
    private final int code;

    public TypesException(String message, int code) {
        super(message);
        this.code = code;
    }

    public int getCode() {
        return code;
    }
}
