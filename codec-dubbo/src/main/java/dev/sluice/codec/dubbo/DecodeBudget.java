package dev.sluice.codec.dubbo;

/**
 * What one frame's walk may still spend under its {@link DecodeLimits}. One per frame (or per deferred value parsed
 * off the loop); not thread-safe (the thread that walks the frame).
 */
final class DecodeBudget {
    final DecodeLimits limits;

    DecodeBudget(DecodeLimits limits) {
        this.limits = limits;
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
