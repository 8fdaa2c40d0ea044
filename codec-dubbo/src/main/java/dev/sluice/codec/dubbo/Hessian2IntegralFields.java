package dev.sluice.codec.dubbo;

import com.alibaba.com.caucho.hessian.io.AbstractHessianInput;
import com.alibaba.com.caucho.hessian.io.Deserializer;
import com.alibaba.com.caucho.hessian.io.FieldDeserializer2;
import com.alibaba.com.caucho.hessian.io.FieldDeserializer2Factory;
import com.alibaba.com.caucho.hessian.io.HessianProtocolException;
import com.alibaba.com.caucho.hessian.io.JavaDeserializer;
import com.alibaba.com.caucho.hessian.io.UnsafeDeserializer;
import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Set;

/**
 * hessian-lite's object deserializers with checked integral fields (docs/reliability.md A31a): a field of type
 * {@code long}, {@code int}, {@code short} or {@code byte} (boxed or not) takes only a hessian2 int or long in that
 * type's range, or null. hessian-lite's own field readers narrow whatever comes: {@code 12.5} becomes 12,
 * {@code 1e300} the largest int, {@code 2^40} in an int field 0, {@code 70000} in a short 4464, and text fails with a
 * message that names neither the field nor the limit. {@link Hessian2Bounds#checkIntegral} does the same for method
 * parameters; inside an object the walk does not know the field types, so the check is made where hessian-lite reads
 * the field, on the value it has just read (text is not parsed: its digits were already capped by the walk).
 *
 * <p>Only classes whose fields can be set by reflection are changed (the application's, not the JDK's, whose
 * modules are closed); the rest keep hessian-lite's deserializer. Built once per class by the reading
 * {@code SerializerFactory}, then used by any thread that reads (stateless but for the fields it sets).
 */
final class Hessian2IntegralFields {
    private Hessian2IntegralFields() {
    }

    /**
     * {@code made}, the deserializer hessian-lite made for {@code cl}, or one that reads the same way and checks its
     * integral fields, when it is hessian-lite's field-by-field deserializer and {@code cl} has such a field.
     */
    static Deserializer strict(Deserializer made, Class<?> cl, FieldDeserializer2Factory factory) {
        if (!(made instanceof UnsafeDeserializer || made instanceof JavaDeserializer)
                || checked(new HashMap<>(), cl).isEmpty()) {
            return made;
        }
        return made instanceof UnsafeDeserializer ? new StrictUnsafe(cl, factory) : new StrictJava(cl, factory);
    }

    /** Whether {@code d} is a deserializer {@link #strict} made (Unsafe-based, with checked integral fields). */
    static boolean isStrict(Deserializer d) {
        return d instanceof StrictUnsafe;
    }

    /**
     * {@code fields}, hessian-lite's readers by field name, with those of the integral fields replaced. The field a
     * name stands for is found as hessian-lite finds it: the first one, from {@code cl} up through its superclasses,
     * that is neither static nor transient.
     */
    static HashMap<String, FieldDeserializer2> checked(HashMap<String, FieldDeserializer2> fields, Class<?> cl) {
        Set<String> seen = new HashSet<>();
        for (Class<?> c = cl; c != null; c = c.getSuperclass()) {
            for (Field f : c.getDeclaredFields()) {
                int modifiers = f.getModifiers();
                if (Modifier.isStatic(modifiers) || Modifier.isTransient(modifiers) || !seen.add(f.getName())) {
                    continue;
                }
                if (ValueTypes.integralMax(f.getType()) != 0 && f.trySetAccessible()) {
                    fields.put(f.getName(), new IntegralField(f));
                }
            }
        }
        return fields;
    }

    /** hessian-lite's deserializer when it sets fields with {@code Unsafe} (its default). */
    private static final class StrictUnsafe extends UnsafeDeserializer {
        StrictUnsafe(Class<?> cl, FieldDeserializer2Factory factory) {
            super(cl, factory);
        }

        @Override
        protected HashMap<String, FieldDeserializer2> getFieldMap(Class<?> cl, FieldDeserializer2Factory factory) {
            return checked(super.getFieldMap(cl, factory), cl);
        }
    }

    /** hessian-lite's deserializer when it sets fields by reflection. */
    private static final class StrictJava extends JavaDeserializer {
        StrictJava(Class<?> cl, FieldDeserializer2Factory factory) {
            super(cl, factory);
        }

        @Override
        protected HashMap<String, FieldDeserializer2> getFieldMap(Class<?> cl, FieldDeserializer2Factory factory) {
            return checked(super.getFieldMap(cl, factory), cl);
        }
    }

    /** Reads one integral field: the next value must be a hessian2 int or long in the field type's range, or null. */
    private static final class IntegralField implements FieldDeserializer2 {
        private final Field field;
        private final Class<?> type;
        private final long max;

        IntegralField(Field field) {
            this.field = field;
            this.type = field.getType();
            this.max = ValueTypes.integralMax(type);
        }

        @Override
        public void deserialize(AbstractHessianInput in, Object obj) throws IOException {
            Object read = in.readObject();
            try {
                field.set(obj, narrow(read));
            } catch (IllegalAccessException e) {
                throw new HessianProtocolException("cannot set field " + name() + ": " + e.getMessage());
            }
        }

        private Object narrow(Object read) throws HessianProtocolException {
            if (read == null) {
                // As hessian-lite: null is zero for a primitive field, null for a boxed one.
                return type.isPrimitive() ? box(0) : null;
            }
            if (!(read instanceof Integer || read instanceof Long)) {
                String what = read instanceof String ? "text of " + ((String) read).length() + " chars"
                        : read instanceof Number ? "the " + read.getClass().getSimpleName() + " " + read
                        : "a " + read.getClass().getName();
                throw new HessianProtocolException("field " + name() + ": expected " + type.getName()
                        + " but the value is " + what + ", not an integer");
            }
            long v = ((Number) read).longValue();
            if (v > max || v < -max - 1) {
                throw new HessianProtocolException("field " + name() + ": expected " + type.getName()
                        + " but the value " + v + " is out of its range [" + (-max - 1) + ", " + max + "]");
            }
            return box(v);
        }

        /** {@code v}, in range, as the field's type takes it. */
        private Object box(long v) {
            if (max == Long.MAX_VALUE) {
                return v;
            } else if (max == Integer.MAX_VALUE) {
                return (int) v;
            } else if (max == Short.MAX_VALUE) {
                return (short) v;
            }
            return (byte) v;
        }

        private String name() {
            return field.getDeclaringClass().getName() + "." + field.getName();
        }
    }
}
