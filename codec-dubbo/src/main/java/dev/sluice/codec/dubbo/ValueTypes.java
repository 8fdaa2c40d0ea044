package dev.sluice.codec.dubbo;

import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;

/** Checks that a value read from the wire is of the type the caller expects, whatever the serialization. Any thread. */
final class ValueTypes {
    private ValueTypes() {
    }

    /**
     * Returns {@code v} if it is an instance of {@code type}'s raw class (boxed for primitives), or null.
     *
     * @throws IllegalArgumentException naming both classes otherwise
     */
    static Object checked(Object v, Type type) {
        if (v != null) {
            Class<?> expected = rawClass(type);
            if (expected != null && !box(expected).isInstance(v)) {
                throw new IllegalArgumentException("expected " + expected.getName() + " but read "
                        + v.getClass().getName());
            }
        }
        return v;
    }

    static Class<?> rawClass(Type type) {
        if (type instanceof Class) {
            return (Class<?>) type;
        }
        if (type instanceof ParameterizedType && ((ParameterizedType) type).getRawType() instanceof Class) {
            return (Class<?>) ((ParameterizedType) type).getRawType();
        }
        return null;
    }

    /**
     * The largest value of an integral type ({@code long}, {@code int}, {@code short}, {@code byte}, boxed or not);
     * its smallest is {@code -max - 1}. Zero for any other class (or null).
     */
    static long integralMax(Class<?> raw) {
        if (raw == long.class || raw == Long.class) {
            return Long.MAX_VALUE;
        } else if (raw == int.class || raw == Integer.class) {
            return Integer.MAX_VALUE;
        } else if (raw == short.class || raw == Short.class) {
            return Short.MAX_VALUE;
        } else if (raw == byte.class || raw == Byte.class) {
            return Byte.MAX_VALUE;
        }
        return 0;
    }

    private static Class<?> box(Class<?> c) {
        if (!c.isPrimitive()) {
            return c;
        }
        if (c == int.class) {
            return Integer.class;
        } else if (c == long.class) {
            return Long.class;
        } else if (c == boolean.class) {
            return Boolean.class;
        } else if (c == double.class) {
            return Double.class;
        } else if (c == float.class) {
            return Float.class;
        } else if (c == short.class) {
            return Short.class;
        } else if (c == byte.class) {
            return Byte.class;
        } else if (c == char.class) {
            return Character.class;
        }
        return Void.class;
    }

    /** The most telling message of a failure: a refused class wins over fastjson2's wrappers. */
    static String reason(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof ClassNotAllowedException) {
                return t.getMessage();
            }
            if (t.getCause() == t) {
                break;
            }
        }
        return e.getClass().getSimpleName() + ": " + e.getMessage();
    }
}
