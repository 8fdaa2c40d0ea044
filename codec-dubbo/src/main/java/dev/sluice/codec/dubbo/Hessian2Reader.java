package dev.sluice.codec.dubbo;

import com.alibaba.com.caucho.hessian.io.Deserializer;
import com.alibaba.com.caucho.hessian.io.SerializerFactory;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads the values of one hessian2 body, already walked by {@link Hessian2Bounds}, to the same objects hessian-lite's
 * {@code Hessian2Input} would build with the reading {@link SerializerFactory} (the allowlist's) — for the common
 * case only: strings, ints, longs, doubles, booleans, untyped lists and maps, beans with a readable
 * {@link Hessian2Beans.Plan} and hessian-lite's {@code LocalDate}/{@code LocalTime}/{@code LocalDateTime} handles.
 * Each class definition's name is given to that factory exactly where hessian-lite gives it (so the
 * {@link ClassAllowlist} decides as before, before anything is built); fields are set with {@code Unsafe} at offsets
 * found once; integral fields take only integers in range, as {@link Hessian2IntegralFields} demands.
 *
 * <p>Anything else — a back-reference, a typed list or map, a date, binary, a class without a plan, a field value
 * hessian-lite would convert, a refused class name — throws {@link Give}: the caller then reads the body again
 * with hessian-lite from its start, which gives exactly today's result or error (docs/wire-format.md §5).
 *
 * <p>One instance per body; not thread-safe.
 */
final class Hessian2Reader {
    private static final Give GIVE_UP = new Give();
    private static final int[][] IDENTITY = new int[64][];

    static {
        for (int n = 0; n < IDENTITY.length; n++) {
            IDENTITY[n] = new int[n];
            for (int i = 0; i < n; i++) {
                IDENTITY[n][i] = i;
            }
        }
    }

    private final SerializerFactory factory;
    private final byte[] b;
    private final int end;
    private int pos;
    private Hessian2Beans.Plan[] defPlans = new Hessian2Beans.Plan[4];
    private int[][] defFields = new int[4][];
    private int defCount;
    private char[] chars;

    /** A reader of the values in {@code b[off, end)}, which {@link Hessian2Bounds} has walked. */
    Hessian2Reader(SerializerFactory factory, byte[] b, int off, int end) {
        this.factory = factory;
        this.b = b;
        this.pos = off;
        this.end = end;
    }

    int position() {
        return pos;
    }

    /**
     * The next value, read as hessian-lite's {@code readObject(expected)} would ({@code readObject()} for null or
     * {@code Object}).
     *
     * @throws Give when hessian-lite has to read it
     */
    Object read(Class<?> expected) {
        Class<?> e = expected == Object.class ? null : expected;
        int tag = b[pos] & 0xff;
        switch (tag) {
            case 'N':
                pos++;
                return null;
            case 'C':
                pos++;
                definition();
                return read(e);
            case 'O':
                pos++;
                return instance(integer(), e);
            case 'H':
                pos++;
                return map(e);
            case 0x58:
                pos++;
                return list(integer(), e);
            default:
                break;
        }
        if (tag >= 0x60 && tag <= 0x6f) {
            pos++;
            return instance(tag - 0x60, e);
        }
        if (tag >= 0x78 && tag <= 0x7f) {
            pos++;
            return list(tag - 0x78, e);
        }
        Object v = scalar();
        if (e != null && e != v.getClass() && !(e.isPrimitive() && boxOf(e) == v.getClass())) {
            throw GIVE_UP; // hessian-lite converts through the expected class's reader
        }
        return v;
    }

    private static Class<?> boxOf(Class<?> primitive) {
        return primitive == int.class ? Integer.class : primitive == long.class ? Long.class
                : primitive == boolean.class ? Boolean.class : primitive == double.class ? Double.class : null;
    }

    private Object scalar() {
        int tag = b[pos] & 0xff;
        if (tag <= 0x1f || (tag >= 0x30 && tag <= 0x33) || tag == 'S' || tag == 'R') {
            return string();
        }
        if (isInt(tag)) {
            return integer();
        }
        if (isLong(tag)) {
            return longValue();
        }
        switch (tag) {
            case 'T':
                pos++;
                return Boolean.TRUE;
            case 'F':
                pos++;
                return Boolean.FALSE;
            case 0x5b:
                pos++;
                return 0.0d;
            case 0x5c:
                pos++;
                return 1.0d;
            case 0x5d:
                pos++;
                return (double) b[pos++];
            case 0x5e:
                pos += 3;
                return (double) (short) (((b[pos - 2] & 0xff) << 8) | (b[pos - 1] & 0xff));
            case 0x5f:
                pos++;
                return 0.001 * int32();
            case 'D':
                pos++;
                return Double.longBitsToDouble(int64());
            default:
                throw GIVE_UP; // references, dates, binary, typed lists and maps, …
        }
    }

    private static boolean isInt(int tag) {
        return (tag >= 0x80 && tag <= 0xd7) || tag == 'I';
    }

    private static boolean isLong(int tag) {
        return tag >= 0xd8 || (tag >= 0x38 && tag <= 0x3f) || tag == 0x59 || tag == 'L';
    }

    private static boolean isDouble(int tag) {
        return (tag >= 0x5b && tag <= 0x5f) || tag == 'D';
    }

    /** A hessian2 int (only); anything else gives up, since hessian-lite converts it. */
    private int integer() {
        int tag = b[pos++] & 0xff;
        if (tag >= 0x80 && tag <= 0xbf) {
            return tag - 0x90;
        } else if (tag >= 0xc0 && tag <= 0xcf) {
            return ((tag - 0xc8) << 8) | (b[pos++] & 0xff);
        } else if (tag >= 0xd0 && tag <= 0xd7) {
            int v = ((tag - 0xd4) << 16) | ((b[pos] & 0xff) << 8) | (b[pos + 1] & 0xff);
            pos += 2;
            return v;
        } else if (tag == 'I') {
            return int32();
        }
        throw GIVE_UP;
    }

    /** A hessian2 long (only). */
    private long longValue() {
        int tag = b[pos++] & 0xff;
        if (tag >= 0xd8 && tag <= 0xef) {
            return tag - 0xe0;
        } else if (tag >= 0xf0) {
            return ((tag - 0xf8) << 8) | (b[pos++] & 0xff);
        } else if (tag >= 0x38 && tag <= 0x3f) {
            long v = ((tag - 0x3c) << 16) | ((b[pos] & 0xff) << 8) | (b[pos + 1] & 0xff);
            pos += 2;
            return v;
        } else if (tag == 0x59) {
            return int32();
        } else if (tag == 'L') {
            return int64();
        }
        throw GIVE_UP;
    }

    /** An int or a long, as a long: what an integral field takes. */
    private long integral() {
        int tag = b[pos] & 0xff;
        return isInt(tag) ? integer() : isLong(tag) ? longValue() : giveUp();
    }

    private static long giveUp() {
        throw GIVE_UP;
    }

    private int int32() {
        int v = ((b[pos] & 0xff) << 24) | ((b[pos + 1] & 0xff) << 16) | ((b[pos + 2] & 0xff) << 8)
                | (b[pos + 3] & 0xff);
        pos += 4;
        return v;
    }

    private long int64() {
        long hi = int32() & 0xffffffffL;
        long lo = int32() & 0xffffffffL;
        return (hi << 32) | lo;
    }

    private double doubleValue() {
        Object v = scalar();
        return (Double) v;
    }

    /** A hessian2 string (only), per-char UTF-8, in one or more chunks. */
    private String string() {
        StringBuilder chunks = null;
        while (true) {
            int tag = b[pos++] & 0xff;
            int len;
            boolean last = true;
            if (tag <= 0x1f) {
                len = tag;
            } else if (tag >= 0x30 && tag <= 0x33) {
                len = ((tag - 0x30) << 8) | (b[pos++] & 0xff);
            } else if (tag == 'S' || tag == 'R') {
                len = ((b[pos] & 0xff) << 8) | (b[pos + 1] & 0xff);
                pos += 2;
                last = tag == 'S';
            } else {
                throw GIVE_UP;
            }
            String s = chars(len);
            if (last && chunks == null) {
                return s;
            }
            if (chunks == null) {
                chunks = new StringBuilder(2 * len);
            }
            chunks.append(s);
            if (last) {
                return chunks.toString();
            }
        }
    }

    private String chars(int len) {
        int p = pos;
        int ascii = p + len;
        for (int i = p; i < ascii; i++) {
            if (b[i] < 0) {
                return utf8(len);
            }
        }
        pos = ascii;
        return new String(b, p, len, StandardCharsets.ISO_8859_1);
    }

    private String utf8(int len) {
        char[] out = chars;
        if (out == null || out.length < len) {
            out = new char[Math.max(len, 64)];
            chars = out; // reused by the body's next non-ASCII strings
        }
        int p = pos;
        for (int i = 0; i < len; i++) {
            int c = b[p++] & 0xff;
            if (c < 0x80) {
                out[i] = (char) c;
            } else if ((c & 0xe0) == 0xc0) {
                out[i] = (char) (((c & 0x1f) << 6) | (b[p++] & 0x3f));
            } else if ((c & 0xf0) == 0xe0) {
                out[i] = (char) (((c & 0x0f) << 12) | ((b[p] & 0x3f) << 6) | (b[p + 1] & 0x3f));
                p += 2;
            } else {
                throw GIVE_UP;
            }
        }
        pos = p;
        return new String(out, 0, len);
    }

    /**
     * {@code 'C'}: hessian-lite's {@code readObjectDefinition}. The name goes to the factory (the allowlist) as there;
     * the definition is kept only for a class read field by field by hessian-lite's Unsafe reader.
     */
    private void definition() {
        if (!isString(b[pos] & 0xff)) {
            throw GIVE_UP;
        }
        String type = string();
        Deserializer d;
        try {
            d = factory.getObjectDeserializer(type, null);
        } catch (Exception refusedOrUnknown) {
            throw GIVE_UP; // hessian-lite asks again and fails in its own words
        }
        Class<?> cl = d == null ? null : d.getType();
        Hessian2Beans.Plan p = cl == null ? null : Hessian2Beans.plan(cl);
        if (p == null || !p.readable || !Hessian2Beans.readsAsPlanned(d, p)) {
            throw GIVE_UP;
        }
        int[] fields;
        byte[] tail = p.definitionTail;
        if (pos + tail.length <= end && p.fields.length < IDENTITY.length
                && Arrays.equals(b, pos, pos + tail.length, tail, 0, tail.length)) {
            pos += tail.length; // the usual case: hessian-lite's own order, as written by a peer with the same class
            fields = IDENTITY[p.fields.length];
        } else {
            int n = integer();
            if (n < 0) {
                throw GIVE_UP;
            }
            fields = new int[n];
            for (int i = 0; i < n; i++) {
                if (!isString(b[pos] & 0xff)) {
                    throw GIVE_UP;
                }
                Integer index = p.indexByName.get(string());
                if (index == null) {
                    throw GIVE_UP; // a field this class lacks: hessian-lite skips its value
                }
                fields[i] = index;
            }
        }
        if (defCount == defPlans.length) {
            defPlans = Arrays.copyOf(defPlans, defCount * 2);
            defFields = Arrays.copyOf(defFields, defCount * 2);
        }
        defPlans[defCount] = p;
        defFields[defCount] = fields;
        defCount++;
    }

    private static boolean isString(int tag) {
        return tag <= 0x1f || (tag >= 0x30 && tag <= 0x33) || tag == 'S' || tag == 'R';
    }

    private Object instance(int def, Class<?> e) {
        if (def < 0 || def >= defCount) {
            throw GIVE_UP;
        }
        Hessian2Beans.Plan p = defPlans[def];
        int[] fields = defFields[def];
        Object v;
        switch (p.handle) {
            case Hessian2Beans.LOCAL_DATE -> v = localDate(p, fields);
            case Hessian2Beans.LOCAL_TIME -> v = localTime(p, fields);
            case Hessian2Beans.LOCAL_DATE_TIME -> v = localDateTime(p, fields);
            default -> v = bean(p, fields);
        }
        if (e != null && v != null && !e.isInstance(v)) {
            throw GIVE_UP;
        }
        return v;
    }

    private Object bean(Hessian2Beans.Plan p, int[] fields) {
        sun.misc.Unsafe u = Hessian2Beans.UNSAFE;
        Object o;
        try {
            o = u.allocateInstance(p.type);
        } catch (InstantiationException e) {
            throw GIVE_UP;
        }
        for (int index : fields) {
            Hessian2Beans.FieldPlan f = p.fields[index];
            long off = f.offset;
            switch (f.readKind) {
                case Hessian2Beans.BOOLEAN -> {
                    int tag = b[pos++] & 0xff;
                    if (tag != 'T' && tag != 'F') {
                        throw GIVE_UP;
                    }
                    u.putBoolean(o, off, tag == 'T');
                }
                case Hessian2Beans.BYTE -> u.putByte(o, off, (byte) checkedIntegral(f));
                case Hessian2Beans.SHORT -> u.putShort(o, off, (short) checkedIntegral(f));
                case Hessian2Beans.INT -> u.putInt(o, off, (int) checkedIntegral(f));
                case Hessian2Beans.LONG -> u.putLong(o, off, checkedIntegral(f));
                case Hessian2Beans.DOUBLE -> {
                    if (!isDouble(b[pos] & 0xff)) {
                        throw GIVE_UP;
                    }
                    u.putDouble(o, off, doubleValue());
                }
                case Hessian2Beans.STRING -> {
                    int tag = b[pos] & 0xff;
                    if (tag == 'N') {
                        pos++;
                        u.putObject(o, off, null);
                    } else if (isString(tag)) {
                        u.putObject(o, off, string());
                    } else {
                        throw GIVE_UP;
                    }
                }
                default -> u.putObject(o, off, objectField(f));
            }
        }
        return o;
    }

    /** An integral field (strict, as {@link Hessian2IntegralFields}): an int or long in range, or null (zero). */
    private long checkedIntegral(Hessian2Beans.FieldPlan f) {
        if (b[pos] == 'N') {
            pos++;
            return 0;
        }
        long v = integral();
        if (v > f.max || v < -f.max - 1) {
            throw GIVE_UP; // hessian-lite refuses it, naming the field and the range
        }
        return v;
    }

    private Object objectField(Hessian2Beans.FieldPlan f) {
        if (f.max != 0) { // a boxed integral field, checked as a primitive one
            if (b[pos] == 'N') {
                pos++;
                return null;
            }
            long v = checkedIntegral(f);
            Class<?> t = f.type;
            return t == Long.class ? (Object) v : t == Integer.class ? (Object) (int) v
                    : t == Short.class ? (Object) (short) v : (Object) (byte) v;
        }
        if (f.element != null) {
            return primitiveList(f);
        }
        return read(f.type);
    }

    /**
     * A {@code List<Integer>} (or of another boxed type or String) field: hessian-lite asks the factory for the
     * element type's reader by name, then reads each element through it.
     */
    private Object primitiveList(Hessian2Beans.FieldPlan f) {
        int tag = b[pos] & 0xff;
        if (tag == 'N') {
            pos++;
            return null;
        }
        int n;
        if (tag >= 0x78 && tag <= 0x7f) {
            pos++;
            n = tag - 0x78;
        } else if (tag == 0x58) {
            pos++;
            n = integer();
        } else {
            throw GIVE_UP;
        }
        try {
            factory.getDeserializer(f.element.getName());
        } catch (Exception e) {
            throw GIVE_UP;
        }
        Class<?> el = f.element;
        List<Object> list = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            int t = b[pos] & 0xff;
            if (el == Integer.class && isInt(t)) {
                list.add(integer());
            } else if (el == Long.class && isLong(t)) {
                list.add(longValue());
            } else if (el == String.class && isString(t)) {
                list.add(string());
            } else if (el == Boolean.class && (t == 'T' || t == 'F')) {
                pos++;
                list.add(t == 'T');
            } else if (el == Double.class && isDouble(t)) {
                list.add(doubleValue());
            } else {
                throw GIVE_UP; // hessian-lite converts (or reads null as zero)
            }
        }
        return list;
    }

    private Object list(int n, Class<?> e) {
        if (e != null && !e.isAssignableFrom(ArrayList.class)) {
            throw GIVE_UP;
        }
        if (n < 0) {
            throw GIVE_UP;
        }
        List<Object> list = new ArrayList<>(Math.min(n, 1024));
        for (int i = 0; i < n; i++) {
            list.add(read(null));
        }
        return list;
    }

    private Object map(Class<?> e) {
        if (e != null && e != Map.class && e != HashMap.class) {
            throw GIVE_UP;
        }
        Map<Object, Object> map = new HashMap<>();
        while (b[pos] != 'Z') {
            Object k = read(null);
            map.put(k, read(null));
        }
        pos++;
        return map;
    }

    /** {@code LocalDateHandle.readResolve}: null when the fields make no date, as there. */
    private Object localDate(Hessian2Beans.Plan p, int[] fields) {
        int year = 0;
        int month = 0;
        int day = 0;
        for (int index : fields) {
            Hessian2Beans.FieldPlan f = p.fields[index];
            int v = (int) checkedIntegral(f);
            switch (f.part) {
                case Hessian2Beans.PART_YEAR -> year = v;
                case Hessian2Beans.PART_MONTH -> month = v;
                default -> day = v;
            }
        }
        try {
            return LocalDate.of(year, month, day);
        } catch (RuntimeException e) {
            return null;
        }
    }

    /** {@code LocalTimeHandle.readResolve}. */
    private Object localTime(Hessian2Beans.Plan p, int[] fields) {
        int hour = 0;
        int minute = 0;
        int second = 0;
        int nano = 0;
        for (int index : fields) {
            Hessian2Beans.FieldPlan f = p.fields[index];
            int v = (int) checkedIntegral(f);
            switch (f.part) {
                case Hessian2Beans.PART_HOUR -> hour = v;
                case Hessian2Beans.PART_MINUTE -> minute = v;
                case Hessian2Beans.PART_SECOND -> second = v;
                default -> nano = v;
            }
        }
        try {
            return LocalTime.of(hour, minute, second, nano);
        } catch (RuntimeException e) {
            return null;
        }
    }

    private Object localDateTime(Hessian2Beans.Plan p, int[] fields) {
        Object date = null;
        Object time = null;
        for (int index : fields) {
            Hessian2Beans.FieldPlan f = p.fields[index];
            if (f.part == Hessian2Beans.PART_DATE) {
                date = read(LocalDate.class);
            } else {
                time = read(LocalTime.class);
            }
        }
        if (date == null || time == null) {
            return null; // LocalDateTime.of throws, and the handle's readResolve returns null
        }
        return LocalDateTime.of((LocalDate) date, (LocalTime) time);
    }

    /** The value is not one this reader builds the way hessian-lite would; read the body with hessian-lite. */
    static final class Give extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Give() {
            super("not read by Hessian2Reader", null, false, false);
        }
    }
}
