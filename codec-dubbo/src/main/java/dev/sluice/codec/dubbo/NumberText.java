package dev.sluice.codec.dubbo;

import java.math.BigDecimal;

/**
 * The characters of a number as {@code BigDecimal(String)} and {@code BigInteger(String)} read them, fed one code point
 * at a time by a bounds walker ({@link JsonbBounds}, {@link Hessian2Bounds}) before any library parses the text.
 *
 * <p>Why: those constructors take time quadratic in the digit count (hundreds of thousands of digits keep a thread
 * busy for seconds), and a decimal with a large exponent costs a power of ten that size when a service converts it
 * ({@code "1e999999999"}: minutes). Text with more digits than {@link DecodeLimits#maxNumberDigits()} or an exponent
 * beyond {@link #MAX_EXPONENT} is refused (docs/reliability.md A31). {@code BigDecimal} takes any Unicode decimal
 * digit, so digits are counted with {@link Character#digit(int, int)}.
 *
 * <p>One instance per text; not thread-safe (the walker's thread).
 */
final class NumberText {
    /**
     * Largest decimal exponent (or scale) accepted: converting {@code BigDecimal} with a larger one to an integer
     * computes a power of ten that size (a billion costs minutes; this costs microseconds).
     */
    static final int MAX_EXPONENT = 9_999;
    private static final String BIG_DECIMAL = BigDecimal.class.getName();

    private boolean exponentMark;
    private boolean notANumber;
    private long exponent;
    private long digits;

    /** Whether a hessian2 class or type name is read from a digit string ({@code BigDecimal}'s {@code value}). */
    static boolean isTextNumberClass(String typeName) {
        return BIG_DECIMAL.equals(typeName);
    }

    static boolean startsNumber(int c) {
        return (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '+';
    }

    /**
     * False when {@code cp} cannot be part of a number (or is a second exponent mark): the text is not one, and every
     * later code point is ignored.
     */
    boolean accept(int cp) {
        if (notANumber) {
            return false;
        }
        if (cp == 'e' || cp == 'E') {
            if (exponentMark) {
                notANumber = true;
                return false;
            }
            exponentMark = true;
            return true;
        }
        if (cp == '.' || cp == '-' || cp == '+') {
            return true;
        }
        int digit = Character.digit(cp, 10);
        if (digit < 0) {
            notANumber = true;
            return false;
        }
        digits++;
        if (exponentMark) {
            exponent = Math.min(exponent * 10 + digit, Integer.MAX_VALUE);
        }
        return true;
    }

    /**
     * Refuses the text fed so far, if it is a number, when it has more than {@code maxDigits} digits or an exponent
     * beyond {@link #MAX_EXPONENT}.
     *
     * @param where where the text is, for the message (e.g. {@code "at offset 12"}), or empty
     * @throws IllegalArgumentException naming the size and the limit
     */
    void check(int maxDigits, String where) {
        if (notANumber) {
            return;
        }
        if (digits > maxDigits) {
            throw new IllegalArgumentException("a number written as text with " + digits + " digits" + where
                    + ": more than the limit of " + maxDigits + " digits (maxNumberDigits)");
        }
        if (exponent > MAX_EXPONENT) {
            throw new IllegalArgumentException("a number written as text with exponent " + exponent + where
                    + " (more than " + MAX_EXPONENT + ")");
        }
    }
}
