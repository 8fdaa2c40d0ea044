package dev.sluice.codec.dubbo;

import java.lang.reflect.Type;

/**
 * Checks that one JSONB value is whole inside its item before fastjson2 reads it: every declared length and count
 * is backed by the bytes that follow, nothing runs past the item, and nesting stays shallow.
 *
 * <p>Why: fastjson2 sizes what it allocates from the declared numbers, before it reads the bytes they announce.
 * An array whose header claims 100 million elements made it allocate 400 MB for a 26-byte item (a string, a binary,
 * a big integer or a symbol id does the same), on the event loop and once per frame; and a few thousand nested
 * arrays in a 2 KB item overflowed the event loop's stack; a decimal with a scale of a billion, read where an int
 * was expected, kept it busy for minutes. All were found by {@code BodyDecoderFuzzTest}. After this walk, every
 * element a value declares exists in the item, so fastjson2 allocates in proportion to the bytes it was given.
 *
 * <p>fastjson2's readers are lenient about structure (a map reader takes the object-start byte as optional, an
 * object read starts on any type byte from 0xa6 up), so they may group the tokens of an item differently from the
 * writer. The whole item is therefore walked token by token, and {@link DubboDecoder} hands fastjson2 a copy of
 * the item padded with zeros: whatever grouping it picks, it meets only checked tokens (no negative length to step
 * back on, which made a 5-byte map {@code a6 4a 61 7a fc} spin forever) and cannot read past the copy.
 *
 * <p>The grammar: fastjson2 2.0.56's JSONB ({@code JSONB.Constants}, docs/wire-format.md §4.3). The walk accepts every
 * value fastjson2's writer produces; it rejects unknown type bytes, negative or unbacked sizes and symbol ids larger
 * than the item. Stateless; any thread.
 */
final class JsonbBounds {
    /** Deeper values are refused: fastjson2 reads them recursively on the event loop's stack. */
    static final int MAX_DEPTH = 200;
    private static final java.nio.charset.Charset GB18030 = java.nio.charset.Charset.forName("GB18030");

    private JsonbBounds() {
    }

    /**
     * Walks the item {@code b[off, end)}: it must be one or more whole values (Dubbo writes exactly one), so every
     * token fastjson2 may meet in the item has been checked, whatever type it reads the item as.
     *
     * @throws IllegalArgumentException when the item is malformed in a way that would make fastjson2 allocate for
     *     bytes that are not there, read past {@code end}, step backwards, or recurse deeper than {@link #MAX_DEPTH}
     */
    static void check(byte[] b, int off, int end, DecodeBudget budget) {
        int item = end - off;
        int p = value(b, off, end, item, 0, budget);
        while (p < end) {
            p = value(b, p, end, item, 0, budget);
        }
    }

    private static int value(byte[] b, int p, int end, int item, int depth, DecodeBudget budget) {
        if (depth > MAX_DEPTH) {
            throw new IllegalArgumentException("JSONB value nested deeper than " + MAX_DEPTH + " levels");
        }
        budget.value(DecodeBudget.VALUE_BYTES);
        need(p, 1, end);
        int t = b[p++];
        if (t >= -16 && t <= 47) { // int32 in the type byte (0xf0..0x2f)
            return p;
        }
        if (t >= 0x30 && t <= 0x3f) {
            return need(p, 1, end);
        }
        if (t >= 0x40 && t <= 0x47) {
            return need(p, 2, end);
        }
        if (t == 0x48) {
            return need(p, 4, end);
        }
        if (t >= 0x49 && t <= 0x78) { // ASCII string of 0..47 bytes
            int next = need(p, t - 0x49, end);
            budget.extra(DecodeBudget.STRING_BYTES + next - p);
            checkNumberText(b, p, next, 0x79, budget);
            return next;
        }
        if (t >= 0x79 && t <= 0x7e) { // ASCII, UTF-8, UTF-16, UTF-16LE, UTF-16BE, GB18030 with a length
            int next = sized(b, p, end, "string");
            budget.extra(DecodeBudget.STRING_BYTES + intValue(b, p));
            checkNumberText(b, next - (int) intValue(b, p), next, t, budget);
            return next;
        }
        if (t == 0x7f) {
            return symbol(b, p, end, item);
        }
        switch (t & 0xff) {
            case 0x90: // char: an int
                return number(b, p, end, item, depth, budget);
            case 0x91: // binary
                budget.extra(length(b, p, end, "binary"));
                return sized(b, p, end, "binary");
            case 0xbb: { // big integer: fastjson2 turns it into text where a string is expected
                int next = sized(b, p, end, "big integer");
                budget.checkBigInteger(intValue(b, p), "");
                budget.extra(intValue(b, p));
                return next;
            }
            case 0x92: // typed value: a type name, then the value
                return value(b, typeName(b, p, end, item), end, item, depth + 1, budget);
            case 0x93: // reference: a path string
                return value(b, p, end, item, depth + 1, budget);
            case 0xa4: { // array with a count
                long count = length(b, p, end, "array");
                budget.extra(DecodeBudget.CONTAINER_BYTES);
                p = intEnd(b, p, end);
                for (long i = 0; i < count; i++) {
                    p = element(b, p, end, item, depth, budget);
                }
                return p;
            }
            case 0xa5:
                throw new IllegalArgumentException("JSONB object end where a value was expected");
            case 0xa6: // object: (name value)* 0xa5; a name is any value (a string or symbol, or a map key)
                budget.extra(DecodeBudget.CONTAINER_BYTES);
                for (;;) {
                    need(p, 1, end);
                    if (b[p] == (byte) 0xa5) {
                        return p + 1;
                    }
                    p = element(b, element(b, p, end, item, depth, budget), end, item, depth, budget);
                }
            case 0xa7: // LocalTime: hour, minute, second, nano
                return number(b, need(p, 3, end), end, item, depth, budget);
            case 0xa8: // LocalDateTime: 7 bytes, nano
                return number(b, need(p, 7, end), end, item, depth, budget);
            case 0xa9: // LocalDate
                return need(p, 4, end);
            case 0xaa: // ZonedDateTime: 7 bytes, nano, zone id string
                return value(b, number(b, need(p, 7, end), end, item, depth, budget), end, item, depth + 1, budget);
            case 0xab: // millis
                return need(p, 8, end);
            case 0xac: // seconds
            case 0xad: // minutes
                return need(p, 4, end);
            case 0xae: // Instant: seconds, nanos
                return number(b, number(b, p, end, item, depth, budget), end, item, depth, budget);
            case 0xaf: // null
            case 0xb0: // false
            case 0xb1: // true
            case 0xb2: // 0.0
            case 0xb3: // 1.0
                return p;
            case 0xb4: // double as long
            case 0xb6: // float as int
            case 0xb8: // BigDecimal as long
            case 0xba: // BigInteger as long
                return number(b, p, end, item, depth, budget);
            case 0xb5: // double
                return need(p, 8, end);
            case 0xb7: // float
                return need(p, 4, end);
            case 0xb9: { // BigDecimal: scale, then the unscaled big integer
                int next = intEnd(b, p, end);
                long scale = intValue(b, p);
                if (scale < -NumberText.MAX_EXPONENT || scale > NumberText.MAX_EXPONENT) {
                    throw new IllegalArgumentException("JSONB decimal with scale " + scale + ": more than "
                            + NumberText.MAX_EXPONENT + " digits");
                }
                return number(b, next, end, item, depth, budget);
            }
            case 0xbc: // int16
                return need(p, 2, end);
            case 0xbd: // int8
                return need(p, 1, end);
            case 0xbe: // int64
                return need(p, 8, end);
            case 0xbf: // int64 as int32
                return need(p, 4, end);
            default:
                break;
        }
        int u = t & 0xff;
        if (u >= 0x94 && u <= 0xa3) { // array of 0..15
            budget.extra(DecodeBudget.CONTAINER_BYTES);
            for (int i = 0, n = u - 0x94; i < n; i++) {
                p = element(b, p, end, item, depth, budget);
            }
            return p;
        }
        if (u >= 0xc0 && u <= 0xc7) { // int64 in 3 bytes
            return need(p, 2, end);
        }
        if (u >= 0xc8 && u <= 0xd7) { // int64 in 2 bytes
            return need(p, 1, end);
        }
        if (u >= 0xd8 && u <= 0xef) { // int64 in the type byte
            return p;
        }
        throw new IllegalArgumentException("unknown JSONB type 0x" + Integer.toHexString(u));
    }

    /**
     * An element of a container at {@code depth}: the common scalars (short strings, small ints, symbol references)
     * inline, anything else through {@link #value}. Most of a payload is these, so this keeps the walk cheap.
     */
    private static int element(byte[] b, int p, int end, int item, int depth, DecodeBudget budget) {
        if (p < end) {
            int t = b[p];
            if (t >= 0x49 && t <= 0x78 && (t == 0x49 || p + 1 >= end || !NumberText.startsNumber(b[p + 1]))) {
                budget.value(DecodeBudget.VALUE_BYTES + DecodeBudget.STRING_BYTES + t - 0x49);
                return need(p + 1, t - 0x49, end); // text that does not start like a number
            }
            if (t >= -16 && t <= 47) {
                budget.value(DecodeBudget.VALUE_BYTES);
                return p + 1;
            }
            if (t == 0x7f && p + 1 < end && b[p + 1] >= -16 && b[p + 1] <= 47) {
                budget.value(DecodeBudget.VALUE_BYTES);
                return p + 2;
            }
        }
        return value(b, p, end, item, depth + 1, budget);
    }

    /**
     * fastjson2 reads a string as a number where it expects one, through {@code BigDecimal}: the text
     * {@code "1e999999999"} then costs a power of ten with a billion digits (minutes of CPU), and a few hundred
     * thousand digits cost seconds of quadratic parsing. Refuses text that is a number with more digits than the
     * budget's limit or an exponent beyond {@link NumberText#MAX_EXPONENT}; any other text is left alone.
     * {@code BigDecimal} takes any Unicode decimal digit ({@code "１.5e９９９９９９９"} in full-width digits costs
     * seconds and a 4 MB {@code BigInteger}), so the text is read as code points in its encoding ({@code type}:
     * 0x49–0x79 ASCII, 0x7a UTF-8, 0x7b UTF-16 with an optional byte order mark, 0x7c UTF-16LE, 0x7d UTF-16BE, 0x7e
     * GB18030). The scan stops at the first code point a number cannot contain, so ordinary text costs a character or
     * two.
     */
    private static void checkNumberText(byte[] b, int from, int to, int type, DecodeBudget budget) {
        NumberText number = new NumberText();
        switch (type) {
            case 0x7a: // UTF-8
                for (int i = from; i < to; ) {
                    int c = b[i] & 0xff;
                    int cp;
                    if (c < 0x80) {
                        cp = c;
                        i++;
                    } else if (c >= 0xc0 && c < 0xe0 && i + 1 < to) {
                        cp = ((c & 0x1f) << 6) | (b[i + 1] & 0x3f);
                        i += 2;
                    } else if (c >= 0xe0 && c < 0xf0 && i + 2 < to) {
                        cp = ((c & 0x0f) << 12) | ((b[i + 1] & 0x3f) << 6) | (b[i + 2] & 0x3f);
                        i += 3;
                    } else if (c >= 0xf0 && i + 3 < to) {
                        cp = ((c & 0x07) << 18) | ((b[i + 1] & 0x3f) << 12) | ((b[i + 2] & 0x3f) << 6)
                                | (b[i + 3] & 0x3f);
                        i += 4;
                    } else {
                        return; // malformed: read as replacement characters, never a number
                    }
                    if (!number.accept(cp)) {
                        return;
                    }
                }
                break;
            case 0x7b: // UTF-16: BOM, else big-endian (as java.nio's UTF-16)
            case 0x7c: // UTF-16LE
            case 0x7d: // UTF-16BE
                boolean bigEndian = type != 0x7c;
                if (type == 0x7b && to - from >= 2) {
                    if (b[from] == (byte) 0xfe && b[from + 1] == (byte) 0xff) {
                        from += 2;
                    } else if (b[from] == (byte) 0xff && b[from + 1] == (byte) 0xfe) {
                        from += 2;
                        bigEndian = false;
                    }
                }
                for (int i = from; i + 1 < to; i += 2) {
                    int unit = bigEndian ? ((b[i] & 0xff) << 8) | (b[i + 1] & 0xff)
                            : ((b[i + 1] & 0xff) << 8) | (b[i] & 0xff);
                    // Decimal digits are all in the basic plane: a surrogate is never part of a number.
                    if (!number.accept(unit)) {
                        return;
                    }
                }
                break;
            case 0x7e: // GB18030: decode only what starts like a number or with a multi-byte character
                if (from < to && (b[from] < 0 || NumberText.startsNumber(b[from]))) {
                    String text = new String(b, from, to - from, GB18030);
                    for (int i = 0; i < text.length(); i++) {
                        if (!number.accept(text.charAt(i))) {
                            return;
                        }
                    }
                }
                break;
            default: // ASCII
                for (int i = from; i < to; i++) {
                    if (!number.accept(b[i])) {
                        return;
                    }
                }
                break;
        }
        budget.check(number, "");
    }

    /**
     * A value read where an integral number is expected ({@code long}, {@code int}, {@code short}, {@code byte}, boxed
     * or not) must be a JSONB integer in that type's range, or null. fastjson2 would otherwise read text through
     * {@code BigInteger} or {@code BigDecimal} and truncate it ({@code "1.5"} as 1) or wrap it
     * ({@code "99999999999999999999"}), and narrow a long or a decimal the same way; no Dubbo writer sends those for an
     * integral parameter. Any other type is left alone. {@code b[off, off + n)} has been walked by {@link #check}.
     *
     * @throws IllegalArgumentException naming the expected type and what was sent
     */
    static void checkIntegral(byte[] b, int off, int n, Type type) {
        Class<?> raw = ValueTypes.rawClass(type);
        long max = ValueTypes.integralMax(raw);
        if (max == 0 || n == 0) {
            return;
        }
        checkIntegral(b, off, max, raw.getName(), null);
    }

    /**
     * The value at {@code off} (a whole token) must be a JSONB integer in {@code [-max - 1, max]}, or null.
     *
     * @param typeName the expected type, for the message
     * @param field the field whose value it is, named in the message; null for a parameter
     * @throws IllegalArgumentException naming the expected type, the kind of value sent and the range
     */
    static void checkIntegral(byte[] b, int off, long max, String typeName, String field) {
        long min = -max - 1;
        int u = b[off] & 0xff;
        if (u == 0xaf) {
            return; // null: fastjson2 decides (boxed: null; primitive: its default)
        }
        if (!isInt32(b[off]) && !(u >= 0xbc && u <= 0xef)) { // int32 forms, int16, int8, int64 forms
            throw new IllegalArgumentException(where(field) + "expected " + typeName + " but the value is " + kind(u)
                    + ", not an integer in [" + min + ", " + max + "]");
        }
        long v = intValue(b, off);
        if (v < min || v > max) {
            throw new IllegalArgumentException(where(field) + "expected " + typeName + " but the value " + v
                    + " is out of its range [" + min + ", " + max + "]");
        }
    }

    private static String where(String field) {
        return field == null ? "" : "field " + field + ": ";
    }

    /** What a value of JSONB type byte {@code u} is, for a message. */
    private static String kind(int u) {
        if (u >= 0x49 && u <= 0x7e) {
            return "text";
        } else if (u >= 0xb2 && u <= 0xb5) {
            return "a double";
        } else if (u == 0xb6 || u == 0xb7) {
            return "a float";
        } else if (u == 0xb8 || u == 0xb9) {
            return "a decimal";
        } else if (u == 0xba || u == 0xbb) {
            return "a big integer";
        } else if (u == 0xb0 || u == 0xb1) {
            return "a boolean";
        } else if (u == 0x92) {
            return "a typed value";
        }
        return "JSONB type 0x" + Integer.toHexString(u);
    }

    /** A value fastjson2 reads as a number (a nano, a scale, a char): any scalar; sizes are still checked. */
    private static int number(byte[] b, int p, int end, int item, int depth, DecodeBudget budget) {
        return value(b, p, end, item, depth + 1, budget);
    }

    /** A length, then that many bytes. */
    private static int sized(byte[] b, int p, int end, String what) {
        long n = length(b, p, end, what);
        return need(intEnd(b, p, end), n, end);
    }

    /**
     * After {@code 0x7f}: a reference to a symbol (an int) or a definition (a string, then its id). An id names a
     * slot in a table fastjson2 grows to fit it, so it may not exceed the item's size.
     */
    private static int symbol(byte[] b, int p, int end, int item) {
        need(p, 1, end);
        if (isInt32(b[p])) {
            return intEnd(b, p, end);
        }
        p = stringToken(b, p, end);
        return symbolId(b, p, end, item);
    }

    /** A typed value's type name: a symbol reference, a symbol, or a string with its symbol id. */
    private static int typeName(byte[] b, int p, int end, int item) {
        need(p, 1, end);
        if (b[p] == 0x7f) {
            return symbol(b, p + 1, end, item);
        }
        if (isInt32(b[p])) {
            return intEnd(b, p, end);
        }
        return symbolId(b, stringToken(b, p, end), end, item);
    }

    private static int symbolId(byte[] b, int p, int end, int item) {
        int next = intEnd(b, p, end);
        long id = intValue(b, p);
        if (id < 0 || id > item) {
            throw new IllegalArgumentException("JSONB symbol id " + id + " out of range for a " + item + "-byte item");
        }
        return next;
    }

    private static int stringToken(byte[] b, int p, int end) {
        need(p, 1, end);
        int t = b[p];
        if (t >= 0x49 && t <= 0x78) {
            return need(p + 1, t - 0x49, end);
        }
        if (t >= 0x79 && t <= 0x7e) {
            return sized(b, p + 1, end, "string");
        }
        throw new IllegalArgumentException("expected a JSONB string, found type 0x" + Integer.toHexString(t & 0xff));
    }

    /** A declared size at {@code p}: an int that must not be negative nor exceed the bytes left after it. */
    private static long length(byte[] b, int p, int end, String what) {
        int after = intEnd(b, p, end);
        long n = intValue(b, p);
        if (n < 0 || n > end - after) {
            throw new IllegalArgumentException("JSONB " + what + " declares " + n + (what.equals("array")
                    ? " elements" : " bytes") + " but only " + (end - after) + " bytes are left in its item");
        }
        return n;
    }

    private static boolean isInt32(byte t) {
        return t >= -16 && t <= 0x48;
    }

    /**
     * The end of the JSONB integer at {@code p}, in any of the forms fastjson2 reads a size from (the int32 and int64
     * encodings, int8, int16).
     */
    static int intEnd(byte[] b, int p, int end) {
        need(p, 1, end);
        int t = b[p];
        int u = t & 0xff;
        if (t >= -16 && t <= 47 || u >= 0xd8 && u <= 0xef) {
            return p + 1;
        } else if (t >= 0x30 && t <= 0x3f || u >= 0xc8 && u <= 0xd7 || u == 0xbd) {
            return need(p + 1, 1, end);
        } else if (t >= 0x40 && t <= 0x47 || u >= 0xc0 && u <= 0xc7 || u == 0xbc) {
            return need(p + 1, 2, end);
        } else if (t == 0x48 || u == 0xbf) {
            return need(p + 1, 4, end);
        } else if (u == 0xbe) {
            return need(p + 1, 8, end);
        }
        throw new IllegalArgumentException("expected a JSONB integer, found type 0x" + Integer.toHexString(u));
    }

    /** The value of the integer at {@code p}, which {@link #intEnd} has checked. */
    static long intValue(byte[] b, int p) {
        int t = b[p];
        int u = t & 0xff;
        if (t >= -16 && t <= 47) {
            return t;
        } else if (t >= 0x30 && t <= 0x3f) {
            return ((t - 0x38) << 8) | (b[p + 1] & 0xff);
        } else if (t >= 0x40 && t <= 0x47) {
            return ((t - 0x44) << 16) | ((b[p + 1] & 0xff) << 8) | (b[p + 2] & 0xff);
        } else if (t == 0x48 || u == 0xbf) {
            return ((b[p + 1] & 0xff) << 24) | ((b[p + 2] & 0xff) << 16) | ((b[p + 3] & 0xff) << 8) | (b[p + 4] & 0xff);
        } else if (u == 0xbd) {
            return b[p + 1];
        } else if (u == 0xbc) {
            return (short) (((b[p + 1] & 0xff) << 8) | (b[p + 2] & 0xff));
        } else if (u >= 0xd8 && u <= 0xef) {
            return u - 0xe0;
        } else if (u >= 0xc8 && u <= 0xd7) {
            return ((u - 0xd0) << 8) | (b[p + 1] & 0xff);
        } else if (u >= 0xc0 && u <= 0xc7) {
            return ((u - 0xc4) << 16) | ((b[p + 1] & 0xff) << 8) | (b[p + 2] & 0xff);
        }
        long v = 0; // 0xbe: int64
        for (int i = 1; i <= 8; i++) {
            v = (v << 8) | (b[p + i] & 0xff);
        }
        return v;
    }

    /** Requires {@code n} bytes at {@code p} before {@code end}; returns {@code p + n}. */
    private static int need(int p, long n, int end) {
        if (n > end - p) {
            throw new IllegalArgumentException("JSONB value runs past the end of its item (" + n + " bytes needed, "
                    + (end - p) + " left)");
        }
        return (int) (p + n);
    }
}
