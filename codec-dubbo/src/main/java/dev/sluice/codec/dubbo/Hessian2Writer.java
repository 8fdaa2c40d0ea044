package dev.sluice.codec.dubbo;

import io.netty.buffer.ByteBuf;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * Writes a hessian2 body's values byte for byte as hessian-lite's {@code Hessian2Output} would, for the values a
 * service usually returns and takes: strings, {@code Integer}, {@code Long}, {@code Boolean}, {@code Double},
 * {@code ArrayList}, {@code HashMap}, {@code LocalDate}/{@code LocalTime}/{@code LocalDateTime} (as hessian-lite's
 * handle objects) and beans of classes the {@link ClassAllowlist} accepts, through their {@link Hessian2Beans.Plan}:
 * fields read with {@code Unsafe} at offsets found once, class definitions copied from bytes made once, no handle
 * objects, no serializer lookups. Object references and class definition numbers are kept as hessian-lite keeps them,
 * so repeated objects become the same back-references.
 *
 * <p>Anything else anywhere in the values (another class, a {@code Throwable}, an array, a {@code LinkedList}, …)
 * makes {@link #write} give up and return false before the caller's buffer is used: the caller then writes the body
 * with hessian-lite, as before (docs/wire-format.md §5).
 *
 * <p>Not thread-safe: one instance per thread ({@link #get()}), reused for each body.
 */
final class Hessian2Writer extends Hessian2Bytes {
    private static final ThreadLocal<Hessian2Writer> WRITERS = ThreadLocal.withInitial(Hessian2Writer::new);
    private static final int BUFFER = 8 * 1024;
    private static final int MAX_KEPT_BUFFER = 64 * 1024;
    private static final Give GIVE_UP = new Give();

    private ByteBuf out;
    private int bodyStart;
    private int limit;
    private ClassAllowlist allowlist;
    private boolean time;
    private final Refs refs = new Refs();
    private int refCount;
    /** Class definition number per plan id, valid where {@link #defStamps} holds the current {@link #stamp}. */
    private int[] defNumbers = new int[16];
    private int[] defStamps = new int[16];
    private int stamp;
    private int defCount;

    private Hessian2Writer() {
        super(BUFFER);
    }

    static Hessian2Writer get() {
        return WRITERS.get();
    }

    /**
     * Writes {@code values} into {@code out} as one hessian2 stream, or returns false, leaving {@code out} as it was,
     * when some value is not one this writer reproduces. A body over {@code limit} (a writer index) fails with
     * {@link DubboEncoder.PayloadLimitReached}; what was written into {@code out} is then the caller's to drop.
     *
     * @param allowlist which bean classes get a plan (the registered ones); null for none
     */
    boolean write(ByteBuf out, int bodyStart, int limit, ClassAllowlist allowlist, Object... values) {
        int start = out.writerIndex();
        this.out = out;
        this.bodyStart = bodyStart;
        this.limit = limit;
        this.allowlist = allowlist;
        this.time = Hessian2Beans.handlesTime();
        this.refCount = 0;
        this.defCount = 0;
        this.stamp++;
        this.pos = 0;
        boolean done = false;
        try {
            for (Object v : values) {
                value(v);
            }
            flush();
            done = true;
        } catch (Give g) {
            out.writerIndex(start);
        } finally {
            this.out = null;
            this.allowlist = null;
            refs.clear();
            pos = 0;
            if (buf.length > MAX_KEPT_BUFFER) {
                buf = new byte[BUFFER];
            }
            if (chars != null && chars.length > BUFFER) {
                chars = null;
            }
        }
        return done;
    }

    private void value(Object v) {
        if (v == null) {
            put('N');
            return;
        }
        Class<?> c = v.getClass();
        if (c == String.class) {
            string((String) v);
        } else if (c == Integer.class) {
            integer((Integer) v);
        } else if (c == Long.class) {
            longValue((Long) v);
        } else if (c == Boolean.class) {
            put((Boolean) v ? 'T' : 'F');
        } else if (c == Double.class) {
            doubleValue((Double) v);
        } else if (c == ArrayList.class) {
            list((ArrayList<?>) v);
        } else if (c == HashMap.class) {
            map((HashMap<?, ?>) v);
        } else if (c == LocalDateTime.class && time) {
            localDateTime((LocalDateTime) v);
        } else if (c == LocalDate.class && time) {
            localDate((LocalDate) v);
        } else if (c == LocalTime.class && time) {
            localTime((LocalTime) v);
        } else {
            bean(v, c);
        }
    }

    private void bean(Object v, Class<?> c) {
        Hessian2Beans.Plan p = Hessian2Beans.ENABLED && allowlist != null && allowlist.isAllowed(c)
                ? Hessian2Beans.writePlan(c) : null;
        if (p == null) {
            throw GIVE_UP;
        }
        if (ref(v)) {
            return;
        }
        classHeader(p);
        sun.misc.Unsafe u = Hessian2Beans.UNSAFE;
        for (Hessian2Beans.FieldPlan f : p.fields) {
            switch (f.kind) {
                case Hessian2Beans.BOOLEAN -> put(u.getBoolean(v, f.offset) ? 'T' : 'F');
                case Hessian2Beans.BYTE -> integer(u.getByte(v, f.offset));
                case Hessian2Beans.SHORT -> integer(u.getShort(v, f.offset));
                case Hessian2Beans.INT -> integer(u.getInt(v, f.offset));
                case Hessian2Beans.LONG -> longValue(u.getLong(v, f.offset));
                case Hessian2Beans.FLOAT -> doubleValue(u.getFloat(v, f.offset));
                case Hessian2Beans.DOUBLE -> doubleValue(u.getDouble(v, f.offset));
                case Hessian2Beans.STRING -> string((String) u.getObject(v, f.offset));
                default -> value(u.getObject(v, f.offset));
            }
        }
    }

    /** hessian-lite writes a {@code LocalDate} as a new {@code LocalDateHandle}: a reference number, then an object. */
    private void localDate(LocalDate d) {
        refCount++;
        Hessian2Beans.Plan p = Hessian2Beans.DATE_HANDLE;
        classHeader(p);
        for (Hessian2Beans.FieldPlan f : p.fields) {
            integer(f.part == Hessian2Beans.PART_YEAR ? d.getYear() : f.part == Hessian2Beans.PART_MONTH
                    ? d.getMonthValue() : d.getDayOfMonth());
        }
    }

    private void localTime(LocalTime t) {
        refCount++;
        Hessian2Beans.Plan p = Hessian2Beans.TIME_HANDLE;
        classHeader(p);
        for (Hessian2Beans.FieldPlan f : p.fields) {
            integer(switch (f.part) {
                case Hessian2Beans.PART_HOUR -> t.getHour();
                case Hessian2Beans.PART_MINUTE -> t.getMinute();
                case Hessian2Beans.PART_SECOND -> t.getSecond();
                default -> t.getNano();
            });
        }
    }

    private void localDateTime(LocalDateTime dt) {
        refCount++;
        Hessian2Beans.Plan p = Hessian2Beans.DATE_TIME_HANDLE;
        classHeader(p);
        for (Hessian2Beans.FieldPlan f : p.fields) {
            if (f.part == Hessian2Beans.PART_DATE) {
                localDate(dt.toLocalDate());
            } else {
                localTime(dt.toLocalTime());
            }
        }
    }

    private void list(ArrayList<?> list) {
        if (ref(list)) {
            return;
        }
        int n = list.size();
        if (n <= 7) {
            put(0x78 + n);
        } else {
            put(0x58);
            integer(n);
        }
        for (int i = 0; i < n; i++) {
            value(list.get(i));
        }
    }

    private void map(HashMap<?, ?> map) {
        if (ref(map)) {
            return;
        }
        put('H');
        for (Map.Entry<?, ?> e : map.entrySet()) {
            value(e.getKey());
            value(e.getValue());
        }
        put('Z');
    }

    /** As hessian-lite's {@code addRef}: a back-reference for an object already written, else a new number. */
    private boolean ref(Object v) {
        int seen = refs.putIfAbsent(v, refCount);
        if (seen >= 0) {
            put(0x51);
            integer(seen);
            return true;
        }
        refCount++;
        return false;
    }

    /** The class definition the first time in this stream, then the object's header. */
    private void classHeader(Hessian2Beans.Plan p) {
        int id = p.id;
        if (id >= defStamps.length) {
            int n = Math.max(id + 1, defStamps.length * 2);
            defStamps = Arrays.copyOf(defStamps, n);
            defNumbers = Arrays.copyOf(defNumbers, n);
        }
        int number;
        if (defStamps[id] == stamp) {
            number = defNumbers[id];
        } else {
            bytes(p.definition);
            number = defCount++;
            defStamps[id] = stamp;
            defNumbers[id] = number;
        }
        if (number <= 0x0f) {
            put(0x60 + number);
        } else {
            put('O');
            integer(number);
        }
    }

    @Override
    void room(int n) {
        flush();
        if (n > buf.length) {
            buf = new byte[n];
        }
    }

    private void flush() {
        if (pos > 0) {
            long end = (long) out.writerIndex() + pos;
            if (end > limit) {
                throw new DubboEncoder.PayloadLimitReached(end - bodyStart);
            }
            out.writeBytes(buf, 0, pos);
            pos = 0;
        }
    }

    /** Thrown inside the writer when a value is not one it writes; never leaves {@link #write}. */
    private static final class Give extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Give() {
            super("not written by Hessian2Writer", null, false, false);
        }
    }

    /** Objects already written in this stream and their reference numbers, by identity; cleared per body. */
    static final class Refs {
        private Object[] keys = new Object[64];
        private int[] numbers = new int[64];
        private int size;

        /** The number {@code key} already has, or -1 after giving it {@code number}. */
        int putIfAbsent(Object key, int number) {
            if (2 * (size + 1) > keys.length) {
                grow();
            }
            int mask = keys.length - 1;
            int i = System.identityHashCode(key) & mask;
            while (true) {
                Object k = keys[i];
                if (k == null) {
                    keys[i] = key;
                    numbers[i] = number;
                    size++;
                    return -1;
                }
                if (k == key) {
                    return numbers[i];
                }
                i = (i + 1) & mask;
            }
        }

        private void grow() {
            Object[] oldKeys = keys;
            int[] oldNumbers = numbers;
            keys = new Object[oldKeys.length * 2];
            numbers = new int[oldKeys.length * 2];
            size = 0;
            for (int i = 0; i < oldKeys.length; i++) {
                if (oldKeys[i] != null) {
                    putIfAbsent(oldKeys[i], oldNumbers[i]);
                }
            }
        }

        void clear() {
            if (size > 0) {
                if (keys.length > 1024) {
                    keys = new Object[64];
                    numbers = new int[64];
                } else {
                    Arrays.fill(keys, null);
                }
                size = 0;
            }
        }
    }
}
