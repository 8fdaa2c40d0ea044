package dev.sluice.codec.dubbo;

/**
 * What one frame's walk may still spend under its {@link DecodeLimits}, and an estimate of the heap its values take
 * once decoded (docs/reliability.md A34): per value a small constant (a boxed scalar or a reference slot), per list,
 * map or object the cost of an empty JDK container, per string its header and one byte a char (most text is
 * Latin-1), per binary its bytes. A rough upper bound for small values, close for large ones; a server charges it
 * to its queued-request budget. Reused frame after frame ({@link #reset}), or one per deferred value parsed off the
 * loop; not thread-safe (the thread that walks the frame).
 */
final class DecodeBudget {
    /** A boxed scalar, or the slot that refers to any value. */
    static final int VALUE_BYTES = 16;
    /** An empty {@code ArrayList}, {@code HashMap} or object with its first table. */
    static final int CONTAINER_BYTES = 56;
    /** A {@code String} and its array, before the chars. */
    static final int STRING_BYTES = 40;

    final DecodeLimits limits;
    private long elements;
    private long estimate;
    private long bodyBytes;

    DecodeBudget(DecodeLimits limits) {
        this.limits = limits;
    }

    /** Starts a frame whose body has {@code bodyBytes} bytes. */
    void reset(long bodyBytes) {
        this.elements = 0;
        this.estimate = 0;
        this.bodyBytes = bodyBytes;
    }

    /** The estimated heap of the values walked since {@link #reset}, in bytes. */
    long estimate() {
        return estimate;
    }

    /**
     * One more value of {@code bytes} estimated heap.
     *
     * @throws IllegalArgumentException past {@link DecodeLimits#maxDecodedElements()}, naming the limit and the size
     */
    void value(long bytes) {
        estimate += bytes;
        if (++elements > limits.maxDecodedElements()) {
            throw new IllegalArgumentException("a body of " + bodyBytes + " bytes decodes to more than "
                    + limits.maxDecodedElements() + " values (lists, maps, objects, strings and their elements; about "
                    + estimate + " bytes of heap so far): over the limit of " + limits.maxDecodedElements()
                    + " (maxDecodedElements)");
        }
    }

    /** More estimated heap for the value just counted (a container's table, a string's chars). */
    void extra(long bytes) {
        estimate += bytes;
    }

    /** Refuses the number text fed to {@code number}, if any, beyond the limits; {@code where} names the place. */
    void check(NumberText number, String where) {
        number.check(limits.maxNumberDigits(), where);
    }

    /**
     * Refuses a big integer of {@code bytes} magnitude bytes whose decimal text would exceed the digit limit: readers
     * turn it into text where a string is expected, which costs as much as parsing that text.
     */
    void checkBigInteger(long bytes, String where) {
        long digits = (bytes * 2_409 + 999) / 1_000; // at most log10(256) = 2.408… digits a byte
        if (digits > limits.maxNumberDigits()) {
            throw new IllegalArgumentException("a big integer of " + bytes + " bytes (up to " + digits + " digits)"
                    + where + ": more than the limit of " + limits.maxNumberDigits() + " digits (maxNumberDigits)");
        }
    }
}
