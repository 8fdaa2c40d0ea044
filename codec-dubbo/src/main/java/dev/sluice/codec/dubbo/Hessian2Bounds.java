package dev.sluice.codec.dubbo;

import java.lang.reflect.Type;
import java.util.Arrays;

/**
 * Walks the hessian2 values of one Dubbo body before hessian-lite reads any of them, the way {@link JsonbBounds}
 * guards fastjson2 (docs/wire-format.md §5). A hessian2 body is one stream of values with no length prefixes, so
 * the walk also tells where each top-level value starts and ends, which lets a result value be cut out and parsed on
 * the thread that waits for it.
 *
 * <p>What it refuses, with an {@link IllegalArgumentException} naming the offset and the limit:
 * <ul>
 *   <li>a declared length (string, binary, fixed list) larger than the bytes left in the body, so hessian-lite never
 *       sizes an array or a string from a forged count;</li>
 *   <li>nesting deeper than {@link #MAX_DEPTH} (lists, maps, objects inside each other, and runs of class
 *       definitions, each followed by the value that uses it: docs/reliability.md A33);</li>
 *   <li>a reference to a class definition, type or object that the stream has not defined yet;</li>
 *   <li>truncated values, reserved codes, an end marker where a value belongs, malformed per-char UTF-8;</li>
 *   <li>a {@code java.math.BigDecimal} (a class definition or a typed map whose {@code value} string hessian-lite
 *       hands to {@code new BigDecimal(String)}) whose text has more digits than {@link DecodeLimits#maxNumberDigits()}
 *       or an exponent beyond {@link NumberText#MAX_EXPONENT} (docs/reliability.md A31).</li>
 * </ul>
 * Class names are not judged here: the allowlist does that when hessian-lite asks for a deserializer.
 *
 * <p>One instance per body; not thread-safe (any single thread).
 */
final class Hessian2Bounds {
    /** Deepest nesting of lists, maps and objects accepted; far beyond any real value, far below the stack limit. */
    static final int MAX_DEPTH = 128;
    /** Most class definitions one body may declare. */
    static final int MAX_CLASS_DEFS = 4096;

    private final byte[] b;
    private final int end;
    private int pos;
    private int types;
    private int refs;
    private int classDefs;
    private int[] fieldCounts = new int[8];
    /** Per type and per class definition: read by hessian-lite from a digit string ({@code BigDecimal}). */
    private boolean[] numberTypes = new boolean[8];
    private boolean[] numberDefs = new boolean[8];
    private final DecodeBudget budget;

    private Hessian2Bounds(byte[] b, int off, int end, DecodeBudget budget) {
        if (off < 0 || end > b.length || off > end) {
            throw new IllegalArgumentException("bad body range [" + off + ", " + end + ") of " + b.length);
        }
        this.b = b;
        this.pos = off;
        this.end = end;
        this.budget = budget;
    }

    /**
     * Checks every value of {@code b[off, end)} and returns where each top-level value starts, followed by
     * {@code end}: {@code starts[i]} to {@code starts[i + 1]} is value {@code i}.
     */
    static int[] values(byte[] b, int off, int end, DecodeBudget budget) {
        Hessian2Bounds walk = new Hessian2Bounds(b, off, end, budget);
        int[] starts = new int[8];
        int n = 0;
        while (walk.pos < end) {
            if (n + 1 >= starts.length) {
                starts = Arrays.copyOf(starts, starts.length * 2);
            }
            starts[n++] = walk.pos;
            walk.value(0);
        }
        starts[n] = end;
        return Arrays.copyOf(starts, n + 1);
    }

    private void value(int depth) {
        if (depth > MAX_DEPTH) {
            throw new IllegalArgumentException("hessian2 value nested deeper than " + MAX_DEPTH
                    + " levels (lists, maps, objects and class definitions before a value) at offset " + pos);
        }
        budget.value(DecodeBudget.VALUE_BYTES);
        int at = pos;
        int code = u8();
        if (code <= 0x1f) {
            budget.extra(DecodeBudget.STRING_BYTES + code);
            chars(code);
        } else if (code <= 0x2f) {
            budget.extra(code - 0x20);
            skip(code - 0x20);
        } else if (code <= 0x33) {
            int n = ((code - 0x30) << 8) | u8();
            budget.extra(DecodeBudget.STRING_BYTES + n);
            chars(n);
        } else if (code <= 0x37) {
            int n = ((code - 0x34) << 8) | u8();
            budget.extra(n);
            skip(n);
        } else if (code <= 0x3f) {
            skip(2); // three-octet compact long
        } else if (code <= 0x5f) {
            tagged(code, depth, at);
        } else if (code <= 0x6f) {
            object(code - 0x60, depth, at);
        } else if (code <= 0x77) {
            type(at);
            elements(code - 0x70, depth);
        } else if (code <= 0x7f) {
            elements(code - 0x78, depth);
        } else if (code <= 0xbf) {
            return; // one-octet compact int
        } else if (code <= 0xcf) {
            skip(1);
        } else if (code <= 0xd7) {
            skip(2);
        } else if (code >= 0xf0) {
            skip(1); // two-octet compact long; 0xd8 to 0xef are one-octet compact longs
        }
    }

    /** The codes 0x40 to 0x5f: one letter each. */
    private void tagged(int code, int depth, int at) {
        switch (code) {
            case 'N', 'T', 'F', 0x5b, 0x5c -> {
                // null, true, false, double 0.0 and 1.0
            }
            case 0x5d -> skip(1);
            case 0x5e -> skip(2);
            case 'I', 'Y', 'K', 0x5f -> skip(4);
            case 'L', 'D', 'J' -> skip(8);
            case 'S', 'R' -> {
                pos = at;
                string(at);
            }
            case 'B', 'A' -> {
                pos = at;
                binary(at);
            }
            case 'C' -> {
                classDefinition(at);
                // A definition is followed by the value that uses it, which may be another definition: a run of them
                // recurses (here and in hessian-lite), so each counts as a level (hessian-lite writes one at a time).
                value(depth + 1);
            }
            case 'O' -> object(index(at, "object definition index"), depth, at);
            case 'H' -> map(depth, false);
            case 'M' -> map(depth, type(at));
            case 'U' -> {
                type(at);
                variableList(depth);
            }
            case 'V' -> {
                type(at);
                elements(count(at, "list length"), depth);
            }
            case 'W' -> variableList(depth);
            case 'X' -> elements(count(at, "list length"), depth);
            case 'Q' -> {
                int ref = index(at, "reference");
                if (ref >= refs) {
                    throw new IllegalArgumentException("hessian2 reference " + ref + " at offset " + at
                            + " points past the " + refs + " lists, maps and objects read so far");
                }
            }
            case 'Z' -> throw new IllegalArgumentException("hessian2 end marker 'Z' at offset " + at
                    + " where a value was expected");
            default -> throw new IllegalArgumentException("reserved hessian2 code 0x" + Integer.toHexString(code)
                    + " at offset " + at);
        }
    }

    private void classDefinition(int at) {
        int nameAt = pos;
        if (!isStringStart(peek())) {
            throw new IllegalArgumentException("hessian2 class definition at offset " + at
                    + " does not start with a type name");
        }
        boolean number = NumberText.isTextNumberClass(text(nameAt));
        int fields = count(at, "field count");
        for (int i = 0; i < fields; i++) {
            int fieldAt = pos;
            if (!isStringStart(peek())) {
                throw new IllegalArgumentException("hessian2 class definition at offset " + at + ": field " + i
                        + " is not a string");
            }
            string(fieldAt);
        }
        if (classDefs == MAX_CLASS_DEFS) {
            throw new IllegalArgumentException("more than " + MAX_CLASS_DEFS
                    + " hessian2 class definitions in one body");
        }
        if (classDefs == fieldCounts.length) {
            fieldCounts = Arrays.copyOf(fieldCounts, classDefs * 2);
            numberDefs = Arrays.copyOf(numberDefs, classDefs * 2);
        }
        numberDefs[classDefs] = number;
        fieldCounts[classDefs++] = fields;
    }

    private void object(int definition, int depth, int at) {
        if (definition >= classDefs) {
            throw new IllegalArgumentException("hessian2 object at offset " + at + " uses class definition "
                    + definition + " of " + classDefs + " defined so far");
        }
        refs++;
        budget.extra(DecodeBudget.CONTAINER_BYTES);
        int fields = fieldCounts[definition];
        boolean number = numberDefs[definition];
        for (int i = 0; i < fields; i++) {
            member(depth + 1, number);
        }
    }

    /** A map; {@code number} when hessian-lite reads its {@code value} entry as a number's text. */
    private void map(int depth, boolean number) {
        refs++;
        budget.extra(DecodeBudget.CONTAINER_BYTES);
        while (peek() != 'Z') {
            member(depth + 1, number);
            member(depth + 1, number);
        }
        pos++;
    }

    /**
     * A field of an object or an entry of a map; when hessian-lite reads it as a number's text ({@code number}), a
     * string's digits and exponent are checked as it is walked.
     */
    private void member(int depth, boolean number) {
        if (!number || !isStringStart(peek())) {
            value(depth);
            return;
        }
        int at = pos;
        budget.value(DecodeBudget.VALUE_BYTES);
        NumberText text = new NumberText();
        chunks(at, true, null, text);
        budget.check(text, " at offset " + at);
    }

    private void variableList(int depth) {
        refs++;
        budget.extra(DecodeBudget.CONTAINER_BYTES);
        while (peek() != 'Z') {
            value(depth + 1);
        }
        pos++;
    }

    private void elements(int n, int depth) {
        refs++;
        budget.extra(DecodeBudget.CONTAINER_BYTES);
        for (int i = 0; i < n; i++) {
            value(depth + 1);
        }
    }

    /**
     * A type: a string (a new type) or an int (a reference to an earlier one). Returns whether hessian-lite reads a
     * value of that type from a number's text.
     */
    private boolean type(int at) {
        int typeAt = pos;
        if (isStringStart(peek())) {
            boolean number = NumberText.isTextNumberClass(text(typeAt));
            if (types == numberTypes.length) {
                numberTypes = Arrays.copyOf(numberTypes, types * 2);
            }
            numberTypes[types++] = number;
            return number;
        }
        int ref = index(at, "type reference");
        if (ref >= types) {
            throw new IllegalArgumentException("hessian2 type reference " + ref + " at offset " + at + " of "
                    + types + " types defined so far");
        }
        return numberTypes[ref];
    }

    /** A non-negative int that counts something, no larger than the bytes left (each counted thing takes one). */
    private int count(int at, String what) {
        long v = integer(at, what);
        if (v < 0 || v > end - pos) {
            throw new IllegalArgumentException("hessian2 " + what + " " + v + " at offset " + at + " exceeds the "
                    + (end - pos) + " bytes left in the body");
        }
        return (int) v;
    }

    /**
     * A non-negative int that points back at something already read (a type, a class definition, an object). Not
     * bounded by the bytes left: a reference may be the last thing in a body, or in a value cut out of one; the
     * caller checks it against what has been defined.
     */
    private int index(int at, String what) {
        long v = integer(at, what);
        if (v < 0) {
            throw new IllegalArgumentException("hessian2 " + what + " " + v + " at offset " + at + " is negative");
        }
        return (int) v;
    }

    private long integer(int at, String what) {
        int code = u8();
        long v;
        if (code >= 0x80 && code <= 0xbf) {
            v = code - 0x90;
        } else if (code >= 0xc0 && code <= 0xcf) {
            v = ((code - 0xc8) << 8) | u8();
        } else if (code >= 0xd0 && code <= 0xd7) {
            v = ((code - 0xd4) << 16) | (u8() << 8) | u8();
        } else if (code == 'I') {
            need(4);
            v = ((b[pos] & 0xff) << 24) | ((b[pos + 1] & 0xff) << 16) | ((b[pos + 2] & 0xff) << 8)
                    | (b[pos + 3] & 0xff);
            pos += 4;
        } else {
            throw new IllegalArgumentException("hessian2 " + what + " at offset " + at + " is not an int (code 0x"
                    + Integer.toHexString(code) + ")");
        }
        return v;
    }

    private static boolean isStringStart(int code) {
        return code <= 0x1f || (code >= 0x30 && code <= 0x33) || code == 'S' || code == 'R';
    }

    /** A string value starting at {@code at}, chunked or not. */
    private void string(int at) {
        chunks(at, true, null, null);
    }

    /** A string value starting at {@code at}, decoded (a type or class name). */
    private String text(int at) {
        StringBuilder sb = new StringBuilder();
        chunks(at, true, sb, null);
        return sb.toString();
    }

    private void binary(int at) {
        chunks(at, false, null, null);
    }

    /**
     * A string or binary value: compact (one length byte), short (two) or a run of 16-bit-length chunks ending with
     * a final one. The binary codes are the string codes shifted: direct +0x20, short +0x04, chunks 'A'/'B' for
     * 'R'/'S'. String lengths count chars, binary lengths bytes. A string's chars go to {@code sink} and
     * {@code number} where these are not null.
     */
    private void chunks(int at, boolean text, StringBuilder sink, NumberText number) {
        int direct = text ? 0x00 : 0x20;
        int shortCode = text ? 0x30 : 0x34;
        int finalChunk = text ? 'S' : 'B';
        int moreChunk = text ? 'R' : 'A';
        budget.extra(DecodeBudget.STRING_BYTES);
        for (;;) {
            int code = u8();
            int length;
            boolean last = true;
            if (code >= direct && code <= direct + 0x1f && (text || code <= direct + 0x0f)) {
                length = code - direct;
            } else if (code >= shortCode && code <= shortCode + 3) {
                length = ((code - shortCode) << 8) | u8();
            } else if (code == finalChunk || code == moreChunk) {
                length = (u8() << 8) | u8();
                last = code == finalChunk;
            } else {
                throw new IllegalArgumentException("hessian2 " + (text ? "string" : "binary") + " chunk expected at"
                        + " offset " + (pos - 1) + " (value at " + at + "), got code 0x" + Integer.toHexString(code));
            }
            budget.extra(length);
            if (text && (sink != null || number != null)) {
                decodedChars(length, sink, number);
            } else if (text) {
                chars(length);
            } else {
                skip(length);
            }
            if (last) {
                return;
            }
        }
    }

    /** {@code n} chars of hessian's per-char UTF-8: one to three bytes each. */
    private void chars(int n) {
        need(n);
        for (int i = 0; i < n; i++) {
            int c = u8();
            if (c < 0x80) {
                continue;
            }
            if ((c & 0xe0) == 0xc0) {
                skip(1);
            } else if ((c & 0xf0) == 0xe0) {
                skip(2);
            } else {
                throw new IllegalArgumentException("bad hessian2 UTF-8 lead byte 0x" + Integer.toHexString(c)
                        + " at offset " + (pos - 1));
            }
        }
    }

    /** As {@link #chars}, handing each char to {@code sink} and {@code number} where these are not null. */
    private void decodedChars(int n, StringBuilder sink, NumberText number) {
        need(n);
        for (int i = 0; i < n; i++) {
            int c = u8();
            if (c >= 0x80) {
                if ((c & 0xe0) == 0xc0) {
                    c = ((c & 0x1f) << 6) | (u8() & 0x3f);
                } else if ((c & 0xf0) == 0xe0) {
                    c = ((c & 0x0f) << 12) | ((u8() & 0x3f) << 6);
                    c |= u8() & 0x3f;
                } else {
                    throw new IllegalArgumentException("bad hessian2 UTF-8 lead byte 0x" + Integer.toHexString(c)
                            + " at offset " + (pos - 1));
                }
            }
            if (sink != null) {
                sink.append((char) c);
            }
            if (number != null) {
                number.accept(c);
            }
        }
    }

    /**
     * The top-level value at {@code at} read as {@code type}: where that is {@code long}, {@code int}, {@code short}
     * or {@code byte} (boxed or not), the value must be a hessian2 int or long in that type's range, or null.
     * hessian-lite would narrow a long or a double silently ({@code 1.5} as 1, {@code 2^40} wrapped for an int); no
     * Dubbo writer sends those for an integral parameter. Any other type is left alone.
     *
     * @throws IllegalArgumentException naming the expected type and what was sent
     */
    static void checkIntegral(byte[] b, int at, Type type) {
        Class<?> raw = ValueTypes.rawClass(type);
        long max = ValueTypes.integralMax(raw);
        if (max == 0) {
            return;
        }
        int code = b[at] & 0xff;
        long v;
        if (code == 'N') {
            return;
        } else if (code >= 0x80 && code <= 0xbf) {
            v = code - 0x90;
        } else if (code >= 0xc0 && code <= 0xcf) {
            v = ((code - 0xc8) << 8) | (b[at + 1] & 0xff);
        } else if (code >= 0xd0 && code <= 0xd7) {
            v = ((code - 0xd4) << 16) | ((b[at + 1] & 0xff) << 8) | (b[at + 2] & 0xff);
        } else if (code >= 0xd8 && code <= 0xef) {
            v = code - 0xe0;
        } else if (code >= 0xf0) {
            v = ((code - 0xf8) << 8) | (b[at + 1] & 0xff);
        } else if (code >= 0x38 && code <= 0x3f) {
            v = ((code - 0x3c) << 16) | ((b[at + 1] & 0xff) << 8) | (b[at + 2] & 0xff);
        } else if (code == 'I' || code == 'Y' || code == 'L') {
            int n = code == 'L' ? 8 : 4;
            v = 0;
            for (int i = 1; i <= n; i++) {
                v = (v << 8) | (b[at + i] & 0xff);
            }
            if (n == 4) {
                v = (int) v;
            }
        } else {
            throw new IllegalArgumentException("expected " + raw.getName() + " but the hessian2 value at offset " + at
                    + " is not an integer (code 0x" + Integer.toHexString(code) + ")");
        }
        if (v > max || v < -max - 1) {
            throw new IllegalArgumentException("expected " + raw.getName() + " but the value " + v + " at offset "
                    + at + " is out of its range [" + (-max - 1) + ", " + max + "]");
        }
    }

    private int peek() {
        need(1);
        return b[pos] & 0xff;
    }

    private int u8() {
        need(1);
        return b[pos++] & 0xff;
    }

    private void skip(int n) {
        need(n);
        pos += n;
    }

    private void need(int n) {
        if (n > end - pos) {
            throw new IllegalArgumentException("hessian2 body truncated: " + n + " more bytes needed at offset " + pos
                    + ", " + (end - pos) + " left");
        }
    }
}
