package dev.sluice.rpc;

import dev.sluice.codec.dubbo.ClassAllowlist;
import dev.sluice.codec.dubbo.ClassNotAllowedException;
import dev.sluice.codec.dubbo.internal.DeclaredTypes;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.reflect.Array;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.lang.reflect.WildcardType;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.LinkedList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * Converts between Dubbo's generic form ({@code generic=true}: a POJO is a {@code Map} of its fields plus a
 * {@code "class"} entry naming it, collections and maps hold generic values, primitives, strings, numbers, dates are
 * themselves, an enum is its name) and the typed values of a service method.
 *
 * <p><b>Arguments</b> ({@link #realize}) are converted to the declared parameter type. A {@code "class"} entry where a
 * POJO or an {@code Object} is expected names the class to build: it must be accepted by the server's
 * {@link ClassAllowlist} (the same decision as a typed value on the wire, taken by name, so a refused class is never
 * loaded; {@link ClassNotAllowedException}) and be assignable to the declared type. Numbers are converted to the
 * declared numeric type when they fit, strings to numbers, booleans, characters and enums; map entries that name no
 * field are ignored, as Dubbo does.
 *
 * <p><b>Results</b> ({@link #generalize}) become the generic form, recursively.
 *
 * <p><b>Bounds.</b> Both directions stop with an {@link IllegalArgumentException} at {@value #MAX_DEPTH} levels of
 * nesting (so a cyclic value ends there instead of looping) and after {@value #MAX_NODES} values (so a value that
 * shares sub-values many times over cannot make the work explode).
 *
 * <p><b>Plans.</b> The fields of a POJO class, their types and method handles to read and write them, and its
 * no-argument constructor are looked up once per class ({@link ClassValue}); a call only runs the handles.
 *
 * <p>Threads: stateless apart from the plan cache; runs on the server's service threads, any number at once.
 */
final class GenericValues {
    /** Deepest nesting converted. */
    static final int MAX_DEPTH = 128;
    /** Most values one conversion visits. */
    static final int MAX_NODES = 1 << 20;
    /** Longest number text converted (as {@code DecodeLimits}' default bound on number digits). */
    static final int MAX_NUMBER_TEXT = 1_000;
    /** The key of a POJO's class name in its generic form. */
    static final String CLASS_KEY = "class";

    private final ClassAllowlist allowlist;

    GenericValues(ClassAllowlist allowlist) {
        this.allowlist = allowlist;
    }

    /**
     * Converts generic argument {@code value} to {@code type}.
     *
     * @throws ClassNotAllowedException for a {@code "class"} entry the allowlist refuses
     * @throws IllegalArgumentException naming the position, when the value cannot be converted or is too deep/large
     */
    Object realize(Object value, Type type) {
        Budget b = new Budget();
        b.count();
        return realize(value, type, b);
    }

    /**
     * The generic form of {@code value}.
     *
     * @throws IllegalArgumentException naming the position, when it is nested too deeply (a cycle) or too large
     */
    static Object generalize(Object value) {
        Budget b = new Budget();
        b.count();
        return generalize(value, b);
    }

    /**
     * The position being converted (a stack of field names and indexes, formatted only for an error message), the
     * nesting depth and the count of values visited.
     */
    private static final class Budget {
        private final Object[] stack = new Object[MAX_DEPTH + 1];
        private int depth;
        private int nodes;

        /** Enters the child {@code segment} (a field or key name, or an {@code Integer} index). */
        void enter(Object segment) {
            if (depth == MAX_DEPTH) {
                throw new IllegalArgumentException("value nested deeper than " + MAX_DEPTH + " levels at " + where()
                        + " (a cycle?)");
            }
            stack[depth++] = segment;
            count();
        }

        void leave() {
            stack[--depth] = null;
        }

        void count() {
            if (++nodes > MAX_NODES) {
                throw new IllegalArgumentException("value holds more than " + MAX_NODES + " values (at " + where()
                        + ")");
            }
        }

        /** The current position, e.g. {@code .items[2].name}, or "the top". */
        String where() {
            if (depth == 0) {
                return "the top";
            }
            StringBuilder b = new StringBuilder();
            for (int i = 0; i < depth; i++) {
                Object seg = stack[i];
                if (seg instanceof Integer) {
                    b.append('[').append(seg).append(']');
                } else {
                    String name = String.valueOf(seg);
                    b.append('.').append(name.length() <= 64 ? name : name.substring(0, 64) + "…");
                }
            }
            return b.toString();
        }
    }

    // ---- arguments ----

    /** Converts the child at {@code segment} of the current position. */
    private Object realizeChild(Object segment, Object value, Type type, Budget b) {
        b.enter(segment);
        Object v = realize(value, type, b);
        b.leave();
        return v;
    }

    private Object realize(Object value, Type type, Budget b) {
        Class<?> raw = rawClass(type);
        if (value == null) {
            return raw.isPrimitive() ? MethodMeta.defaultValue(raw) : null;
        }
        Class<?> boxed = box(raw);
        if (boxed == Object.class) {
            return realizeUntyped(value, b);
        }
        if (Map.class.isAssignableFrom(boxed)) {
            return realizeMap(value, type, boxed, b);
        }
        if (Collection.class.isAssignableFrom(boxed)) {
            return realizeCollection(value, type, boxed, b);
        }
        if (boxed.isArray()) {
            return realizeArray(value, type, boxed, b);
        }
        if (value instanceof Map) {
            return realizeFromMap((Map<?, ?>) value, boxed, b);
        }
        Object simple = realizeSimple(value, boxed, b);
        if (simple != null) {
            return simple;
        }
        throw cannot(value, boxed, b);
    }

    /** Where {@code Object} is declared: maps naming a class become that class, containers are walked. */
    private Object realizeUntyped(Object value, Budget b) {
        if (value instanceof Map) {
            Map<?, ?> map = (Map<?, ?>) value;
            if (map.get(CLASS_KEY) instanceof String) {
                return realizeFromMap(map, Object.class, b);
            }
            Map<Object, Object> out = new HashMap<>();
            for (Map.Entry<?, ?> e : map.entrySet()) {
                out.put(realizeChild(e.getKey(), e.getKey(), Object.class, b),
                        realizeChild(e.getKey(), e.getValue(), Object.class, b));
            }
            return out;
        }
        if (value instanceof Collection) {
            Collection<?> c = (Collection<?>) value;
            Collection<Object> out = value instanceof Set ? new HashSet<>() : new ArrayList<>(c.size());
            int i = 0;
            for (Object e : c) {
                out.add(realizeChild(i++, e, Object.class, b));
            }
            return out;
        }
        if (value instanceof Object[]) {
            Object[] a = (Object[]) value;
            List<Object> out = new ArrayList<>(a.length);
            for (int i = 0; i < a.length; i++) {
                out.add(realizeChild(i, a[i], Object.class, b));
            }
            return out;
        }
        return value;
    }

    /** A map where a POJO (or {@code Object}) is declared: its {@code "class"} entry, checked, or the declared type. */
    private Object realizeFromMap(Map<?, ?> map, Class<?> declared, Budget b) {
        Class<?> target = declared;
        Object named = map.get(CLASS_KEY);
        if (named instanceof String) {
            Class<?> c = allowlist.allowedClass((String) named);
            if (c == null) {
                throw new ClassNotAllowedException((String) named);
            }
            if (!declared.isAssignableFrom(c)) {
                throw new IllegalArgumentException("\"class\" " + named + " at " + b.where() + " is not a "
                        + declared.getName());
            }
            target = c;
        }
        if (target.isEnum()) {
            return enumConstant(target, map.get("name"), b);
        }
        if (Map.class.isAssignableFrom(target)) {
            return realizeMap(map, target, target, b);
        }
        Plan plan = PLANS.get(target);
        if (plan.constructor == null) {
            throw new IllegalArgumentException("cannot build " + target.getName() + " at " + b.where() + ": "
                    + plan.reason + (named == null ? "; name a concrete class in a \"class\" entry" : ""));
        }
        Object pojo;
        try {
            pojo = plan.constructor.invoke();
        } catch (Throwable t) { // NOPMD: the constructor's own failure, reported as the argument's
            throw new IllegalArgumentException("the constructor of " + target.getName() + " failed at " + b.where()
                    + ": " + t, t);
        }
        for (Map.Entry<?, ?> e : map.entrySet()) {
            Object key = e.getKey();
            Property p = key instanceof String ? plan.byName.get(key) : null;
            if (p == null) {
                continue; // "class", and entries naming no field, as Dubbo's PojoUtils ignores them
            }
            Object v = realizeChild(key, e.getValue(), p.type, b);
            try {
                p.setter.invoke(pojo, v);
            } catch (Throwable t) { // NOPMD: a handle of the right type does not throw; report if it does
                throw new IllegalArgumentException("cannot set " + target.getName() + "." + key + " at " + b.where()
                        + ": " + t, t);
            }
        }
        return pojo;
    }

    private Object realizeMap(Object value, Type type, Class<?> raw, Budget b) {
        if (!(value instanceof Map)) {
            throw cannot(value, raw, b);
        }
        Map<Object, Object> out = newMap(raw, b);
        Type keyType = DeclaredTypes.typeArgument(type, 0);
        Type valueType = DeclaredTypes.typeArgument(type, 1);
        for (Map.Entry<?, ?> e : ((Map<?, ?>) value).entrySet()) {
            out.put(realizeChild(e.getKey(), e.getKey(), keyType, b),
                    realizeChild(e.getKey(), e.getValue(), valueType, b));
        }
        return out;
    }

    private Object realizeCollection(Object value, Type type, Class<?> raw, Budget b) {
        Collection<Object> out = newCollection(raw, b);
        Type elementType = DeclaredTypes.typeArgument(type, 0);
        int i = 0;
        if (value instanceof Collection) {
            for (Object e : (Collection<?>) value) {
                out.add(realizeChild(i++, e, elementType, b));
            }
        } else if (value.getClass().isArray()) {
            int n = Array.getLength(value);
            for (; i < n; i++) {
                out.add(realizeChild(i, Array.get(value, i), elementType, b));
            }
        } else {
            throw cannot(value, raw, b);
        }
        return out;
    }

    private Object realizeArray(Object value, Type type, Class<?> raw, Budget b) {
        if (raw.isInstance(value) && raw.getComponentType().isPrimitive()) {
            return value;
        }
        Type componentType = type instanceof GenericArrayType ? ((GenericArrayType) type).getGenericComponentType()
                : raw.getComponentType();
        List<?> source;
        if (value instanceof List) {
            source = (List<?>) value;
        } else if (value instanceof Collection) {
            source = new ArrayList<>((Collection<?>) value);
        } else if (value.getClass().isArray()) {
            int n = Array.getLength(value);
            List<Object> l = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                l.add(Array.get(value, i));
            }
            source = l;
        } else {
            throw cannot(value, raw, b);
        }
        Object out = Array.newInstance(raw.getComponentType(), source.size());
        for (int i = 0; i < source.size(); i++) {
            Array.set(out, i, realizeChild(i, source.get(i), componentType, b));
        }
        return out;
    }

    /** Scalars: numbers, strings, booleans, characters, enums, and values that already are of the type. */
    private static Object realizeSimple(Object value, Class<?> boxed, Budget b) {
        if (boxed.isInstance(value)) {
            return value;
        }
        if (boxed.isEnum()) {
            return enumConstant(boxed, value, b);
        }
        if (value instanceof Number) {
            return number((Number) value, boxed, b);
        }
        if (value instanceof String) {
            String s = (String) value;
            try {
                if (boxed == Boolean.class && ("true".equals(s) || "false".equals(s))) {
                    return Boolean.valueOf(s);
                }
                if (boxed == Character.class && s.length() == 1) {
                    return s.charAt(0);
                }
                if (Number.class.isAssignableFrom(boxed) && s.length() <= MAX_NUMBER_TEXT) {
                    return number(new BigDecimal(s.trim()), boxed, b);
                }
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("\"" + abbreviate(s) + "\" at " + b.where() + " is not a number");
            }
        }
        if (value instanceof Character && boxed == String.class) {
            return value.toString();
        }
        return null;
    }

    private static Object enumConstant(Class<?> type, Object name, Budget b) {
        if (name instanceof String) {
            for (Object c : type.getEnumConstants()) {
                if (((Enum<?>) c).name().equals(name)) {
                    return c;
                }
            }
        }
        throw new IllegalArgumentException((name == null ? "null" : "\"" + abbreviate(String.valueOf(name)) + "\"")
                + " at " + b.where() + " names no constant of " + type.getName());
    }

    /** {@code n} as {@code boxed}, refusing a value that does not fit (a fraction for an integer, out of range). */
    private static Object number(Number n, Class<?> boxed, Budget b) {
        if (boxed == Double.class) {
            return n.doubleValue();
        }
        if (boxed == Float.class) {
            return n.floatValue();
        }
        if (!Number.class.isAssignableFrom(boxed)) {
            return null;
        }
        if ((n instanceof Integer || n instanceof Long || n instanceof Short || n instanceof Byte)
                && boxed != BigDecimal.class && boxed != BigInteger.class && boxed != Number.class) {
            return integral(n.longValue(), n, boxed, b); // the usual case, without BigDecimal
        }
        BigDecimal d;
        if (n instanceof BigDecimal) {
            d = (BigDecimal) n;
        } else if (n instanceof BigInteger) {
            d = new BigDecimal((BigInteger) n);
        } else if (n instanceof Double || n instanceof Float) {
            double v = n.doubleValue();
            if (Double.isNaN(v) || Double.isInfinite(v)) {
                throw new IllegalArgumentException(n + " at " + b.where() + " is not a " + boxed.getSimpleName());
            }
            d = BigDecimal.valueOf(v);
        } else {
            d = BigDecimal.valueOf(n.longValue());
        }
        if (boxed == BigDecimal.class || boxed == Number.class) {
            return d;
        }
        BigInteger i;
        try {
            i = d.scale() > MAX_NUMBER_TEXT || d.precision() - d.scale() > MAX_NUMBER_TEXT ? null
                    : d.toBigIntegerExact();
        } catch (ArithmeticException e) {
            i = null;
        }
        if (i == null) {
            throw new IllegalArgumentException(abbreviate(n.toString()) + " at " + b.where()
                    + " is not an integer, expected " + boxed.getSimpleName());
        }
        if (boxed == BigInteger.class) {
            return i;
        }
        if (i.bitLength() > 63) {
            throw new IllegalArgumentException(abbreviate(n.toString()) + " at " + b.where() + " does not fit in "
                    + boxed.getSimpleName());
        }
        return integral(i.longValue(), n, boxed, b);
    }

    /** {@code v} (the value of {@code n}) as the integral type {@code boxed}, when it fits. */
    private static Object integral(long v, Number n, Class<?> boxed, Budget b) {
        long min;
        long max;
        if (boxed == Long.class) {
            min = Long.MIN_VALUE;
            max = Long.MAX_VALUE;
        } else if (boxed == Integer.class) {
            min = Integer.MIN_VALUE;
            max = Integer.MAX_VALUE;
        } else if (boxed == Short.class) {
            min = Short.MIN_VALUE;
            max = Short.MAX_VALUE;
        } else if (boxed == Byte.class) {
            min = Byte.MIN_VALUE;
            max = Byte.MAX_VALUE;
        } else {
            return null;
        }
        if (v < min || v > max) {
            throw new IllegalArgumentException(abbreviate(n.toString()) + " at " + b.where() + " does not fit in "
                    + boxed.getSimpleName());
        }
        if (boxed == Long.class) {
            return v;
        } else if (boxed == Integer.class) {
            return (int) v;
        } else if (boxed == Short.class) {
            return (short) v;
        }
        return (byte) v;
    }

    /**
     * The containers built for a declared map or collection type: the first one assignable to it, so an interface
     * ({@code Map}, {@code List}, {@code Set}, {@code SortedSet}…) gets the usual JDK class and a concrete JDK class
     * itself.
     */
    private static final List<Map.Entry<Class<?>, Supplier<Object>>> CONTAINERS = List.of(
            Map.entry(HashMap.class, HashMap::new), Map.entry(LinkedHashMap.class, LinkedHashMap::new),
            Map.entry(TreeMap.class, TreeMap::new), Map.entry(ConcurrentHashMap.class, ConcurrentHashMap::new),
            Map.entry(ArrayList.class, ArrayList::new), Map.entry(HashSet.class, HashSet::new),
            Map.entry(LinkedHashSet.class, LinkedHashSet::new), Map.entry(TreeSet.class, TreeSet::new),
            Map.entry(LinkedList.class, LinkedList::new));

    @SuppressWarnings("unchecked")
    private static Map<Object, Object> newMap(Class<?> raw, Budget b) {
        return (Map<Object, Object>) newContainer(raw, b);
    }

    @SuppressWarnings("unchecked")
    private static Collection<Object> newCollection(Class<?> raw, Budget b) {
        return (Collection<Object>) newContainer(raw, b);
    }

    private static Object newContainer(Class<?> raw, Budget b) {
        for (Map.Entry<Class<?>, Supplier<Object>> e : CONTAINERS) {
            if (raw.isAssignableFrom(e.getKey())) {
                return e.getValue().get();
            }
        }
        throw new IllegalArgumentException("cannot build a " + raw.getName() + " at " + b.where());
    }

    private static IllegalArgumentException cannot(Object value, Class<?> type, Budget b) {
        return new IllegalArgumentException("cannot convert " + value.getClass().getName() + " at " + b.where()
                + " to " + type.getName());
    }

    private static String abbreviate(String s) {
        return s.length() <= 64 ? s : s.substring(0, 64) + "…";
    }

    // ---- results ----

    private static Object generalizeChild(Object segment, Object value, Budget b) {
        b.enter(segment);
        Object v = generalize(value, b);
        b.leave();
        return v;
    }

    private static Object generalize(Object value, Budget b) {
        if (value == null || isScalar(value.getClass())) {
            return value;
        }
        if (value instanceof Enum) {
            return ((Enum<?>) value).name();
        }
        Class<?> c = value.getClass();
        if (c.isArray()) {
            if (c.getComponentType().isPrimitive()) {
                return value;
            }
            Object[] a = (Object[]) value;
            Object[] out = new Object[a.length];
            for (int i = 0; i < a.length; i++) {
                out[i] = generalizeChild(i, a[i], b);
            }
            return out;
        }
        if (value instanceof Collection) {
            Collection<?> col = (Collection<?>) value;
            Collection<Object> out = value instanceof Set ? new HashSet<>() : new ArrayList<>(col.size());
            int i = 0;
            for (Object e : col) {
                out.add(generalizeChild(i++, e, b));
            }
            return out;
        }
        if (value instanceof Map) {
            Map<Object, Object> out = new HashMap<>();
            for (Map.Entry<?, ?> e : ((Map<?, ?>) value).entrySet()) {
                out.put(generalizeChild(e.getKey(), e.getKey(), b), generalizeChild(e.getKey(), e.getValue(), b));
            }
            return out;
        }
        if (isJdk(c)) {
            return value; // other JDK values (UUID, Locale, Optional…) travel as they are
        }
        Plan plan = PLANS.get(c);
        Map<String, Object> out = new HashMap<>();
        out.put(CLASS_KEY, c.getName());
        for (Property p : plan.properties) {
            Object v;
            try {
                v = p.getter.invoke(value);
            } catch (Throwable t) { // NOPMD: a handle of the right type does not throw; report if it does
                throw new IllegalArgumentException("cannot read " + c.getName() + "." + p.name + ": " + t, t);
            }
            out.put(p.name, generalizeChild(p.name, v, b));
        }
        return out;
    }

    private static boolean isScalar(Class<?> c) {
        return c == String.class || c == Boolean.class || c == Character.class
                || Number.class.isAssignableFrom(c) && isJdk(c) || java.util.Date.class.isAssignableFrom(c)
                || c.getName().startsWith("java.time.");
    }

    private static boolean isJdk(Class<?> c) {
        String n = c.getName();
        return n.startsWith("java.") || n.startsWith("javax.");
    }

    // ---- types and plans ----

    private static Class<?> rawClass(Type type) {
        if (type instanceof Class) {
            return (Class<?>) type;
        }
        if (type instanceof ParameterizedType) {
            return rawClass(((ParameterizedType) type).getRawType());
        }
        if (type instanceof GenericArrayType) {
            return rawClass(((GenericArrayType) type).getGenericComponentType()).arrayType();
        }
        if (type instanceof WildcardType) {
            return rawClass(((WildcardType) type).getUpperBounds()[0]);
        }
        if (type instanceof TypeVariable) {
            Type[] bounds = ((TypeVariable<?>) type).getBounds();
            return bounds.length == 0 ? Object.class : rawClass(bounds[0]);
        }
        return Object.class;
    }

    private static Class<?> box(Class<?> c) {
        return c.isPrimitive() ? MethodType0.box(c) : c;
    }

    /** Boxing without a table of our own: {@code MethodType.wrap()}. */
    private static final class MethodType0 {
        static Class<?> box(Class<?> c) {
            return java.lang.invoke.MethodType.methodType(c).wrap().returnType();
        }
    }

    /** One field of a POJO class: its name, declared type, and handles to read and write it. */
    private static final class Property {
        final String name;
        final Type type;
        final MethodHandle getter;
        final MethodHandle setter;

        Property(String name, Type type, MethodHandle getter, MethodHandle setter) {
            this.name = name;
            this.type = type;
            this.getter = getter;
            this.setter = setter;
        }
    }

    /**
     * How to read and build instances of one class: its non-static, non-transient fields (its own and its non-JDK
     * superclasses'; a subclass's field hides a superclass's of the same name) and its no-argument constructor, or
     * why it has none.
     */
    private static final class Plan {
        final List<Property> properties = new ArrayList<>();
        final Map<String, Property> byName = new HashMap<>();
        final MethodHandle constructor;
        final String reason;

        Plan(Class<?> c) {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            for (Class<?> k = c; k != null && !isJdk(k); k = k.getSuperclass()) {
                for (Field f : k.getDeclaredFields()) {
                    int mod = f.getModifiers();
                    if (Modifier.isStatic(mod) || Modifier.isTransient(mod) || f.isSynthetic()
                            || byName.containsKey(f.getName())) {
                        continue;
                    }
                    Property p = property(lookup, f);
                    if (p != null) {
                        properties.add(p);
                        byName.put(p.name, p);
                    }
                }
            }
            MethodHandle ctor = null;
            String why = null;
            if (c.isInterface() || Modifier.isAbstract(c.getModifiers())) {
                why = "it is abstract";
            } else if (c.isRecord()) {
                why = "records are not supported";
            } else if (isJdk(c)) {
                why = "it is a JDK class";
            } else {
                try {
                    Constructor<?> k = c.getDeclaredConstructor();
                    k.setAccessible(true);
                    ctor = lookup.unreflectConstructor(k).asType(java.lang.invoke.MethodType.methodType(Object.class));
                } catch (NoSuchMethodException e) {
                    why = "it has no no-argument constructor";
                } catch (ReflectiveOperationException | RuntimeException e) {
                    why = "its no-argument constructor is not accessible (" + e + ")";
                }
            }
            this.constructor = ctor;
            this.reason = why;
        }

        private static Property property(MethodHandles.Lookup lookup, Field f) {
            try {
                f.setAccessible(true);
                MethodHandle getter = lookup.unreflectGetter(f)
                        .asType(java.lang.invoke.MethodType.methodType(Object.class, Object.class));
                MethodHandle setter = lookup.unreflectSetter(f)
                        .asType(java.lang.invoke.MethodType.methodType(void.class, Object.class, Object.class));
                return new Property(f.getName(), f.getGenericType(), getter, setter);
            } catch (ReflectiveOperationException | RuntimeException e) {
                return null; // a field this module cannot reach is not part of the generic form
            }
        }
    }

    private static final ClassValue<Plan> PLANS = new ClassValue<>() {
        @Override
        protected Plan computeValue(Class<?> type) {
            return new Plan(type);
        }
    };
}
