package dev.sluice.codec.dubbo;

import java.lang.reflect.Array;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Comparing values that went through a serialization, for codec tests and interop scenarios alike. Any thread. */
public final class TestValues {
    private TestValues() {
    }

    /**
     * The data of a value, comparable with equals: maps, lists and sets of any class become the JDK's, numbers
     * their long or double value (hessian2 has no short, byte or float), arrays a list tagged with the array class.
     */
    public static Object normalize(Object v) {
        if (v instanceof Map) {
            Map<Object, Object> m = new HashMap<>();
            ((Map<?, ?>) v).forEach((k, x) -> m.put(normalize(k), normalize(x)));
            return m;
        }
        if (v instanceof Set) {
            Set<Object> s = new HashSet<>();
            ((Set<?>) v).forEach(x -> s.add(normalize(x)));
            return s;
        }
        if (v instanceof Collection) {
            List<Object> l = new ArrayList<>();
            ((Collection<?>) v).forEach(x -> l.add(normalize(x)));
            return l;
        }
        if (v != null && v.getClass().isArray()) {
            List<Object> l = new ArrayList<>();
            l.add(v.getClass().getSimpleName());
            for (int i = 0; i < Array.getLength(v); i++) {
                l.add(normalize(Array.get(v, i)));
            }
            return l;
        }
        if (v instanceof Byte || v instanceof Short || v instanceof Integer || v instanceof Long) {
            return ((Number) v).longValue();
        }
        if (v instanceof Float || v instanceof Double) {
            return ((Number) v).doubleValue();
        }
        return v;
    }
}
