package dev.sluice.codec.dubbo;

import com.alibaba.com.caucho.hessian.io.Deserializer;
import com.alibaba.com.caucho.hessian.io.Serializer;
import com.alibaba.com.caucho.hessian.io.UnsafeDeserializer;
import com.alibaba.com.caucho.hessian.io.UnsafeSerializer;
import com.alibaba.com.caucho.hessian.io.java8.LocalDateHandle;
import com.alibaba.com.caucho.hessian.io.java8.LocalDateTimeHandle;
import com.alibaba.com.caucho.hessian.io.java8.LocalTimeHandle;
import com.alibaba.com.caucho.hessian.io.java8.SerializationConfig;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What hessian-lite does per class of a bean, worked out once per class instead of on every object: the order in
 * which its {@code UnsafeSerializer} writes the fields, the class definition it writes the first time (as bytes), and
 * how its {@code UnsafeDeserializer} (with {@link Hessian2IntegralFields}' checks) reads each field. {@link
 * Hessian2Writer} and {@link Hessian2Reader} use these plans to write and read service beans and the {@code
 * java.time} values inside them without hessian-lite's per-object lookups, handle objects and reflection, and give
 * the value back to hessian-lite whenever anything is not exactly the common case (docs/wire-format.md §5).
 *
 * <p>A plan exists for a class only when hessian-lite itself would use its plain field-by-field serializer for it
 * (asked once, through the writer's own {@link SerializerFactory}), with field types whose encoding is reproduced
 * here. hessian-lite's three {@code java.time} handle classes ({@code LocalDate}, {@code LocalTime},
 * {@code LocalDateTime}) have plans too, used only while its compact time mode is off (its default).
 *
 * <p>Immutable once built; plans are cached per class and shared by every thread.
 */
final class Hessian2Beans {
    /** Field kinds (hessian-lite's field serializers and deserializers). */
    static final int BOOLEAN = 1;
    static final int BYTE = 2;
    static final int SHORT = 3;
    static final int INT = 4;
    static final int LONG = 5;
    static final int FLOAT = 6;
    static final int DOUBLE = 7;
    static final int STRING = 8;
    static final int OBJECT = 9;
    /** A field of a kind these plans do not write (char, dates) or read. */
    static final int OTHER = 10;

    /** What a handle plan stands for. */
    static final int BEAN = 0;
    static final int LOCAL_DATE = 1;
    static final int LOCAL_TIME = 2;
    static final int LOCAL_DATE_TIME = 3;

    /** Handle fields, by what they hold. */
    static final int PART_NONE = 0;
    static final int PART_YEAR = 1;
    static final int PART_MONTH = 2;
    static final int PART_DAY = 3;
    static final int PART_HOUR = 4;
    static final int PART_MINUTE = 5;
    static final int PART_SECOND = 6;
    static final int PART_NANO = 7;
    static final int PART_DATE = 8;
    static final int PART_TIME = 9;

    static final sun.misc.Unsafe UNSAFE = unsafe();
    /** Whether the plans may be used at all: hessian-lite's Unsafe (de)serializers are what they reproduce. */
    static final boolean ENABLED = UNSAFE != null && UnsafeSerializer.isEnabled() && UnsafeDeserializer.isEnabled();

    private static final AtomicInteger IDS = new AtomicInteger();
    private static final ClassValue<Plan> PLANS = new ClassValue<>() {
        @Override
        protected Plan computeValue(Class<?> type) {
            return build(type);
        }
    };
    /** Whether hessian-lite's writing factory writes a class with its plain {@code UnsafeSerializer}. */
    private static final ClassValue<Boolean> FIELD_BY_FIELD = new ClassValue<>() {
        @Override
        protected Boolean computeValue(Class<?> type) {
            try {
                Serializer s = Hessian2Values.WRITE_FACTORY.getObjectSerializer(type);
                return s != null && s.getClass() == UnsafeSerializer.class;
            } catch (Exception e) {
                return false; // hessian-lite says why when it writes the value itself
            }
        }
    };
    static final Plan DATE_HANDLE = ENABLED ? PLANS.get(LocalDateHandle.class) : null;
    static final Plan TIME_HANDLE = ENABLED ? PLANS.get(LocalTimeHandle.class) : null;
    static final Plan DATE_TIME_HANDLE = ENABLED ? PLANS.get(LocalDateTimeHandle.class) : null;

    private Hessian2Beans() {
    }

    private static sun.misc.Unsafe unsafe() {
        try {
            Field f = sun.misc.Unsafe.class.getDeclaredField("theUnsafe");
            f.setAccessible(true);
            return (sun.misc.Unsafe) f.get(null);
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }

    /** Whether {@code java.time} values are written as hessian-lite's handle objects (its default mode). */
    static boolean handlesTime() {
        return ENABLED && !SerializationConfig.isCompactMode();
    }

    /** The plan of {@code type} (never null; {@link Plan#writable}/{@link Plan#readable} say what it is good for). */
    static Plan plan(Class<?> type) {
        return PLANS.get(type);
    }

    /**
     * The plan for writing {@code type}, or null when hessian-lite's writing factory ({@link
     * Hessian2Values#WRITE_FACTORY}) would write it otherwise than field by field with its {@code UnsafeSerializer}.
     */
    static Plan writePlan(Class<?> type) {
        Plan p = PLANS.get(type);
        return p.writable && FIELD_BY_FIELD.get(type) ? p : null;
    }

    private static Plan build(Class<?> type) {
        if (!ENABLED || type.isPrimitive() || type.isArray() || type.isInterface() || type.isEnum()
                || Modifier.isAbstract(type.getModifiers()) || type.isRecord()) {
            return new Plan(type);
        }
        int handle = type == LocalDateHandle.class ? LOCAL_DATE : type == LocalTimeHandle.class ? LOCAL_TIME
                : type == LocalDateTimeHandle.class ? LOCAL_DATE_TIME : BEAN;
        String name = type.getName();
        if (handle == BEAN && (name.startsWith("java.") || name.startsWith("javax.") || name.startsWith("sun.")
                || name.startsWith("com.alibaba.com.caucho."))) {
            return new Plan(type); // hessian-lite's own and the JDK's: their serializers, not ours
        }
        // UnsafeSerializer.introspect: primitive-like fields, then the others, all reversed.
        List<Field> primitive = new ArrayList<>();
        List<Field> compound = new ArrayList<>();
        for (Class<?> c = type; c != null; c = c.getSuperclass()) {
            for (Field f : c.getDeclaredFields()) {
                int mod = f.getModifiers();
                if (Modifier.isTransient(mod) || Modifier.isStatic(mod)) {
                    continue;
                }
                Class<?> ft = f.getType();
                if (ft.isPrimitive() || (ft.getName().startsWith("java.lang.") && ft != Object.class)) {
                    primitive.add(f);
                } else {
                    compound.add(f);
                }
            }
        }
        List<Field> all = new ArrayList<>(primitive);
        all.addAll(compound);
        Collections.reverse(all);
        FieldPlan[] fields = new FieldPlan[all.size()];
        boolean writable = true;
        boolean readable = !hasReadResolve(type) || handle != BEAN;
        boolean integral = false;
        Set<String> names = new HashSet<>();
        for (int i = 0; i < fields.length; i++) {
            Field f = all.get(i);
            long offset = UNSAFE.objectFieldOffset(f);
            FieldPlan fp = new FieldPlan(f, offset, part(handle, f.getName()));
            fields[i] = fp;
            writable &= fp.kind != OTHER;
            readable &= fp.readKind != OTHER;
            integral |= fp.max != 0;
            readable &= names.add(f.getName()); // a name twice (a shadowed field): hessian-lite's map keeps one
        }
        if (handle != BEAN) {
            for (FieldPlan fp : fields) {
                writable &= fp.part != PART_NONE;
                readable &= fp.part != PART_NONE;
            }
        }
        return new Plan(type, handle, fields, writable, readable, integral);
    }

    private static boolean hasReadResolve(Class<?> type) {
        for (Class<?> c = type; c != null; c = c.getSuperclass()) {
            for (Method m : c.getDeclaredMethods()) {
                if (m.getName().equals("readResolve") && m.getParameterCount() == 0) {
                    return true;
                }
            }
        }
        return false;
    }

    private static int part(int handle, String field) {
        switch (handle) {
            case LOCAL_DATE:
                return field.equals("year") ? PART_YEAR : field.equals("month") ? PART_MONTH
                        : field.equals("day") ? PART_DAY : PART_NONE;
            case LOCAL_TIME:
                return field.equals("hour") ? PART_HOUR : field.equals("minute") ? PART_MINUTE
                        : field.equals("second") ? PART_SECOND : field.equals("nano") ? PART_NANO : PART_NONE;
            case LOCAL_DATE_TIME:
                return field.equals("date") ? PART_DATE : field.equals("time") ? PART_TIME : PART_NONE;
            default:
                return PART_NONE;
        }
    }

    /** One class: its fields in hessian-lite's write order and its class definition's bytes. */
    static final class Plan {
        final Class<?> type;
        /** Unique per plan: the index writers keep per-stream class definition numbers under. */
        final int id;
        final int handle;
        final FieldPlan[] fields;
        /** {@code 'C'}, the class name, the field count and the field names, as hessian-lite writes them. */
        final byte[] definition;
        /** The definition after the class name: the count and the names (what a reader compares). */
        final byte[] definitionTail;
        final Map<String, Integer> indexByName;
        final boolean writable;
        final boolean readable;
        /** Has a field {@link Hessian2IntegralFields} checks: hessian-lite's reader for it must be the strict one. */
        final boolean integral;

        private Plan(Class<?> type) {
            this(type, BEAN, new FieldPlan[0], false, false, false);
        }

        private Plan(Class<?> type, int handle, FieldPlan[] fields, boolean writable, boolean readable,
                     boolean integral) {
            this.type = type;
            this.id = IDS.getAndIncrement();
            this.handle = handle;
            this.fields = fields;
            this.writable = writable;
            this.readable = readable;
            this.integral = integral;
            Map<String, Integer> byName = new HashMap<>();
            for (int i = 0; i < fields.length; i++) {
                byName.putIfAbsent(fields[i].name, i);
            }
            this.indexByName = byName;
            Hessian2Bytes head = new Hessian2Bytes();
            head.put('C');
            head.string(type.getName());
            int nameEnd = head.size();
            head.integer(fields.length);
            for (FieldPlan f : fields) {
                head.string(f.name);
            }
            this.definition = head.toArray();
            this.definitionTail = Arrays.copyOfRange(definition, nameEnd, definition.length);
        }
    }

    /** One field: how hessian-lite writes it and reads it. */
    static final class FieldPlan {
        final String name;
        final Class<?> type;
        final long offset;
        /** Write kind (UnsafeSerializer's field serializers). */
        final int kind;
        /** Read kind (FieldDeserializer2FactoryUnsafe's, with the strict integral fields). */
        final int readKind;
        /** For an integral field (boxed or not), its largest value; else 0. */
        final long max;
        /** A {@code List<X>} field whose elements hessian-lite reads as X (a boxed primitive or String); else null. */
        final Class<?> element;
        /** What a handle's field holds. */
        final int part;

        FieldPlan(Field f, long offset, int part) {
            this.name = f.getName();
            this.type = f.getType();
            this.offset = offset;
            this.part = part;
            this.max = ValueTypes.integralMax(type);
            this.kind = writeKind(type);
            Class<?> elementType = null;
            int read = readKind(f);
            if (read == OBJECT && type == List.class && f.getGenericType() instanceof ParameterizedType) {
                Type arg = ((ParameterizedType) f.getGenericType()).getActualTypeArguments()[0];
                if (arg instanceof Class && isHessianPrimitive((Class<?>) arg)) {
                    elementType = (Class<?>) arg;
                    if (arg != Integer.class && arg != Long.class && arg != String.class && arg != Boolean.class
                            && arg != Double.class) {
                        read = OTHER;
                    }
                }
            }
            this.element = elementType;
            this.readKind = read;
        }

        private static int writeKind(Class<?> t) {
            if (t == boolean.class) {
                return BOOLEAN;
            } else if (t == byte.class) {
                return BYTE;
            } else if (t == short.class) {
                return SHORT;
            } else if (t == int.class) {
                return INT;
            } else if (t == long.class) {
                return LONG;
            } else if (t == float.class) {
                return FLOAT;
            } else if (t == double.class) {
                return DOUBLE;
            } else if (t == String.class) {
                return STRING;
            } else if (t == char.class || t == java.util.Date.class || t == java.sql.Date.class
                    || t == java.sql.Timestamp.class || t == java.sql.Time.class) {
                return OTHER;
            }
            return OBJECT;
        }

        private static int readKind(Field f) {
            Class<?> t = f.getType();
            if (t == float.class || ((t == Map.class || t == Set.class) && f.getGenericType() != t)) {
                return OTHER; // hessian-lite stores a float field as a double; generic maps and sets its own way
            }
            return writeKind(t);
        }

        /** hessian-lite's {@code FieldDeserializer2FactoryUnsafe.isPrimitive} for a list's element type. */
        private static boolean isHessianPrimitive(Class<?> c) {
            return c.isPrimitive() || c == Boolean.class || c == Character.class || c == Byte.class
                    || c == Short.class || c == Integer.class || c == Long.class || c == Float.class
                    || c == Double.class || c == String.class;
        }
    }

    /** True when {@code d}, hessian-lite's reader for {@code plan}'s class, reads the way the plan does. */
    static boolean readsAsPlanned(Deserializer d, Plan plan) {
        return d instanceof UnsafeDeserializer && d.getType() == plan.type
                && Hessian2IntegralFields.isStrict(d) == plan.integral;
    }
}
