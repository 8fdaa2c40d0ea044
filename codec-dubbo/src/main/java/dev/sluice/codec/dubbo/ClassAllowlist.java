package dev.sluice.codec.dubbo;

import com.alibaba.fastjson2.JSONReader;
import com.alibaba.fastjson2.util.Fnv;
import com.alibaba.fastjson2.util.TypeUtils;
import dev.sluice.transport.Internal;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Field;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.lang.reflect.WildcardType;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.ConcurrentModificationException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.LinkedList;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeoutException;

/**
 * Which classes a peer may name in a typed value — the deserialization allowlist, STRICT like Dubbo's default
 * (docs/wire-format.md §7), used as the fastjson2 {@link JSONReader.AutoTypeBeforeHandler} of every read. fastjson2's
 * global AutoType stays off.
 *
 * <p>Accepted: every class reachable from a {@linkplain #register(Class) registered service interface} (parameter,
 * return and generic argument types, declared exceptions, and recursively the non-static, non-transient field types
 * and superclasses of non-JDK classes), a small JDK set (boxed primitives, {@code String}, {@code BigDecimal},
 * {@code BigInteger}, {@code java.time}, common {@code java.util} collections and maps under their fastjson2 short
 * names too, common exceptions and {@code StackTraceElement}), arrays of these, and what {@link #allow(String...)}
 * adds. Every other name is refused <em>by name</em>, before any class is looked up, so no class named by a peer is
 * loaded or initialized: the refusal throws {@link ClassNotAllowedException} out of the read, which the decoder turns
 * into an error response. Subclasses of registered classes are not accepted unless themselves reachable.
 *
 * <p>A few names are read as another class, a substitute, and never looked up: the {@code List.of}/{@code Set.of}/
 * {@code Map.of} classes and a non-RandomAccess {@code Collections.unmodifiableList} (as {@code ArrayList},
 * {@code HashSet}, {@code HashMap}), and fastjson2's {@code JSONObject} and {@code JSONArray} (as
 * {@code LinkedHashMap} and {@code ArrayList}, the classes they extend), which a Dubbo provider holds for what it read
 * untyped and writes back under their names. Only these two exact names are: the rest of {@code com.alibaba.fastjson*}
 * stays on the deny list, and the entries of a substituted map or list are checked like any others.
 *
 * <p>Thread-safe: registration may run concurrently with decoding on any number of event loops; lookups of
 * accepted names are lock-free map reads.
 */
@Internal
public final class ClassAllowlist implements JSONReader.AutoTypeBeforeHandler {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(ClassAllowlist.class);
    private static final int MAX_ARRAY_DIMENSIONS = 8;

    /**
     * Refused even when a service reaches them or {@link #allow} names them: classes that run code or reach
     * outside the process when instantiated or populated (JNDI, scripting, reflection, class loading, processes).
     */
    private static final List<String> DENIED_PREFIXES = List.of(
            "java.lang.Runtime", "java.lang.ProcessBuilder", "java.lang.Process", "java.lang.Class",
            "java.lang.ClassLoader", "java.lang.Thread", "java.lang.System", "java.lang.reflect.",
            "java.lang.invoke.", "java.net.URLClassLoader", "java.rmi.", "java.beans.", "java.util.logging.",
            "javax.naming.", "javax.management.", "javax.script.", "javax.sql.", "javax.xml.", "com.sun.", "sun.",
            "jdk.", "org.apache.commons.collections.functors.", "org.apache.commons.collections4.functors.",
            "org.apache.xalan.", "org.apache.xpath.", "org.codehaus.groovy.", "org.springframework.", "com.mchange.",
            "bsh.", "org.python.", "javassist.", "net.sf.cglib.", "org.hibernate.", "com.alibaba.fastjson");

    static final String FASTJSON2_JSON_OBJECT = "com.alibaba.fastjson2.JSONObject";
    static final String FASTJSON2_JSON_ARRAY = "com.alibaba.fastjson2.JSONArray";

    private static final Class<?>[] JDK_CLASSES = {
        Object.class, Boolean.class, Byte.class, Short.class, Character.class, Integer.class, Long.class,
        Float.class, Double.class, String.class, Number.class, BigDecimal.class, BigInteger.class,
        java.util.UUID.class, java.util.Date.class, java.util.Currency.class, java.util.Locale.class,
        java.util.BitSet.class, java.util.Optional.class, java.util.concurrent.TimeUnit.class,
        java.time.LocalDate.class, java.time.LocalDateTime.class, java.time.LocalTime.class,
        java.time.Instant.class, java.time.Duration.class, java.time.Period.class, java.time.ZonedDateTime.class,
        java.time.OffsetDateTime.class, java.time.OffsetTime.class, java.time.ZoneOffset.class,
        java.time.ZoneId.class, java.time.Year.class, java.time.YearMonth.class, java.time.MonthDay.class,
        java.time.DayOfWeek.class, java.time.Month.class,
        java.util.Collection.class, List.class, Set.class, Map.class, java.util.SortedMap.class,
        java.util.SortedSet.class, java.util.NavigableMap.class, java.util.NavigableSet.class,
        java.util.Queue.class, java.util.Deque.class,
        ArrayList.class, LinkedList.class, HashSet.class, LinkedHashSet.class, TreeSet.class, HashMap.class,
        LinkedHashMap.class, TreeMap.class, java.util.Hashtable.class, java.util.ArrayDeque.class,
        java.util.EnumSet.class, java.util.EnumMap.class, ConcurrentHashMap.class, ConcurrentSkipListMap.class,
        java.util.concurrent.ConcurrentLinkedQueue.class, CopyOnWriteArrayList.class,
        java.util.concurrent.CopyOnWriteArraySet.class, java.util.concurrent.ConcurrentSkipListSet.class,
        Arrays.asList().getClass(), Collections.emptyList().getClass(), Collections.emptySet().getClass(),
        Collections.emptyMap().getClass(), Collections.singletonList(1).getClass(),
        Collections.singleton(1).getClass(), Collections.singletonMap(1, 1).getClass(),
        Collections.unmodifiableList(new ArrayList<>()).getClass(),
        Collections.unmodifiableCollection(new ArrayList<>()).getClass(),
        Collections.unmodifiableSet(new HashSet<>()).getClass(),
        Collections.unmodifiableSortedSet(new TreeSet<>()).getClass(),
        Collections.unmodifiableMap(new HashMap<>()).getClass(),
        Collections.unmodifiableSortedMap(new TreeMap<>()).getClass(),
        java.util.EnumSet.noneOf(java.util.concurrent.TimeUnit.class).getClass(),
        Throwable.class, Exception.class, RuntimeException.class, Error.class, StackTraceElement.class,
        IllegalArgumentException.class, IllegalStateException.class, NullPointerException.class,
        UnsupportedOperationException.class, IndexOutOfBoundsException.class,
        ArrayIndexOutOfBoundsException.class, StringIndexOutOfBoundsException.class, ClassCastException.class,
        ArithmeticException.class, NumberFormatException.class, NegativeArraySizeException.class,
        ArrayStoreException.class, SecurityException.class, InterruptedException.class,
        CloneNotSupportedException.class, ConcurrentModificationException.class, NoSuchElementException.class,
        TimeoutException.class, java.util.concurrent.ExecutionException.class,
        java.util.concurrent.CancellationException.class, java.util.concurrent.CompletionException.class,
        IOException.class, UncheckedIOException.class, java.io.FileNotFoundException.class,
        java.io.EOFException.class, java.time.DateTimeException.class,
        java.time.format.DateTimeParseException.class, StackOverflowError.class, OutOfMemoryError.class,
        AssertionError.class,
    };

    private final Set<Class<?>> accepted = ConcurrentHashMap.newKeySet();
    private final Map<String, Class<?>> byName = new ConcurrentHashMap<>();
    private final LongClassMap byHash = new LongClassMap();
    private final Set<String> allowedNames = ConcurrentHashMap.newKeySet();
    private final List<String> allowedPrefixes = new CopyOnWriteArrayList<>();
    private final Set<Class<?>> registeredInterfaces = ConcurrentHashMap.newKeySet();
    private final ClassLoader loader;

    private ClassAllowlist(ClassLoader loader) {
        this.loader = loader;
        for (Class<?> c : JDK_CLASSES) {
            accept(c);
        }
        // List.of(...) and friends have no constructor fastjson2 can use; read them as the mutable JDK classes
        // (Dubbo's reader gives an ArrayList for List.of too). So is Collections.unmodifiableList of a list that is
        // not RandomAccess: fastjson2 fails on it (its reader looks for a constructor the class does not have), and
        // hessian-lite reads it as an ArrayList anyway.
        for (Class<?> c : new Class<?>[] {List.of().getClass(), List.of(1).getClass(), List.of(1, 2, 3).getClass(),
                Set.of().getClass(), Set.of(1).getClass(), Set.of(1, 2, 3).getClass(), Map.of().getClass(),
                Map.of(1, 1).getClass(), Map.of(1, 1, 2, 2).getClass(),
                Collections.unmodifiableList(new LinkedList<>()).getClass()}) {
            Class<?> substitute = List.class.isAssignableFrom(c) ? ArrayList.class
                    : Set.class.isAssignableFrom(c) ? HashSet.class : HashMap.class;
            substitute(c.getName(), substitute);
            substitute(TypeUtils.getTypeName(c), substitute);
        }
        // A Dubbo provider on fastjson2 holds what it read untyped as fastjson2's JSONObject (a LinkedHashMap) and
        // JSONArray (an ArrayList), and writes them back under those names. Exactly these two names — full and
        // fastjson2's short form — read as the JDK class each extends, so the value is the same plain map or list,
        // its entries are read through this allowlist like any map's, and the class is never looked up. The rest of
        // com.alibaba.fastjson* stays denied.
        for (String name : new String[] {FASTJSON2_JSON_OBJECT, "JSONObject"}) {
            substitute(name, LinkedHashMap.class);
        }
        for (String name : new String[] {FASTJSON2_JSON_ARRAY, "JSONArray"}) {
            substitute(name, ArrayList.class);
        }
        // Dubbo's GenericException (and the subclass a 3.3 provider may send) read as Sluice's own, which has the same
        // fields: a generic caller needs no Dubbo class, and these names are never looked up.
        for (String name : new String[] {GenericException.DUBBO_NAME, GenericException.DUBBO2_NAME}) {
            substitute(name, GenericException.class);
        }
        accepted.add(GenericException.class);
        for (Class<?> p : new Class<?>[] {boolean.class, byte.class, short.class, char.class, int.class,
                long.class, float.class, double.class}) {
            // Arrays of primitives and of the boxed/JDK types resolve through the array rules.
            byName.put(p.arrayType().getName(), p.arrayType());
            byName.put(TypeUtils.getTypeName(p.arrayType()), p.arrayType());
        }
    }

    /**
     * A new allowlist holding only the JDK set; classes loaded by {@link #allow(String...)} come from this class's
     * loader.
     */
    public static ClassAllowlist strict() {
        return new ClassAllowlist(ClassAllowlist.class.getClassLoader());
    }

    /** A new allowlist whose {@link #allow(String...)} names load with {@code loader}. */
    public static ClassAllowlist strict(ClassLoader loader) {
        return new ClassAllowlist(loader);
    }

    /**
     * Accepts every class reachable from the interface's methods (see the class comment). Idempotent; usable on
     * both sides: the server registers what it exports, the client what it refers to.
     */
    public ClassAllowlist register(Class<?> serviceInterface) {
        if (!registeredInterfaces.add(serviceInterface)) {
            return this;
        }
        Set<Class<?>> seen = new HashSet<>();
        for (Method m : serviceInterface.getMethods()) {
            if (m.getDeclaringClass() == Object.class || Modifier.isStatic(m.getModifiers())) {
                continue;
            }
            for (Type t : m.getGenericParameterTypes()) {
                walk(t, seen);
            }
            walk(m.getGenericReturnType(), seen);
            for (Type t : m.getGenericExceptionTypes()) {
                walk(t, seen);
            }
        }
        return this;
    }

    /**
     * Accepts these classes by name, exactly, or — for names ending in {@code '.'} — every class in that package
     * and below. The escape hatch for classes a service does not reach, such as undeclared exceptions or concrete
     * subclasses. Named classes load lazily, without initialization, when first seen on the wire. Names under the
     * built-in deny list (JNDI, reflection, scripting, {@code com.sun.}, …) are rejected.
     *
     * @throws IllegalArgumentException for an empty or denied name
     */
    public ClassAllowlist allow(String... classNames) {
        for (String name : classNames) {
            if (name == null || name.isEmpty()) {
                throw new IllegalArgumentException("empty class name");
            }
            if (isDenied(name)) {
                throw new IllegalArgumentException("'" + name + "' is on the deserialization deny list");
            }
            if (name.endsWith(".")) {
                allowedPrefixes.add(name);
            } else {
                allowedNames.add(name);
            }
        }
        return this;
    }

    /** Accepts exactly these classes (not their fields or subclasses). */
    public ClassAllowlist allow(Class<?>... classes) {
        for (Class<?> c : classes) {
            if (isDenied(c.getName())) {
                throw new IllegalArgumentException("'" + c.getName() + "' is on the deserialization deny list");
            }
            accept(c);
        }
        return this;
    }

    /** Whether a typed value naming {@code typeName} would be accepted (may load an explicitly allowed class). */
    public boolean isAllowed(String typeName) {
        return resolve(typeName, 0) != null;
    }

    /**
     * The class a typed value naming {@code typeName} is read as, or {@code null} if refused. Usually the named class;
     * for a name read as a substitute (fastjson2's {@code JSONObject}/{@code JSONArray}, {@code List.of}'s classes) the
     * JDK class it is read as, so a reader can build that instead of looking up the named one.
     */
    Class<?> resolveAllowed(String typeName) {
        return resolve(typeName, 0);
    }

    /**
     * The class a peer's name stands for, when this allowlist accepts it, else {@code null}; the same decision as a
     * typed value on the wire, so a refused name is never looked up. Generic calls use it for the classes named by
     * {@code "class"} entries of their arguments.
     */
    public Class<?> allowedClass(String typeName) {
        return typeName == null ? null : resolve(typeName, 0);
    }

    /** Whether instances of exactly this class are accepted. */
    public boolean isAllowed(Class<?> type) {
        return isAccepted(type);
    }

    @Override
    public Class<?> apply(long typeNameHash, Class<?> expectClass, long features) {
        // A cache of names already accepted; a miss falls through to the by-name check below.
        return byHash.get(typeNameHash);
    }

    @Override
    public Class<?> apply(String typeName, Class<?> expectClass, long features) {
        Class<?> c = resolve(typeName, 0);
        if (c == null) {
            throw new ClassNotAllowedException(typeName);
        }
        return c;
    }

    private Class<?> resolve(String name, int depth) {
        Class<?> c = byName.get(name);
        if (c != null) {
            return c;
        }
        if (depth > MAX_ARRAY_DIMENSIONS || name.isEmpty()) {
            return null;
        }
        c = resolveSlow(name, depth);
        if (c != null) {
            // Only accepted names are cached, so a peer cannot grow these maps with junk.
            byName.putIfAbsent(name, c);
            byHash.putIfAbsent(Fnv.hashCode64(name), c);
        }
        return c;
    }

    private Class<?> resolveSlow(String name, int depth) {
        // fastjson2's short names ("LM", "[String", …): a static table of JDK classes, no class loading.
        Class<?> mapped = TypeUtils.getMapping(name);
        if (mapped != null) {
            return isAccepted(mapped) ? mapped : null;
        }
        if (name.endsWith("[]")) {
            return arrayOf(resolve(name.substring(0, name.length() - 2), depth + 1));
        }
        if (name.charAt(0) == '[') {
            String component = name.substring(1);
            if (component.length() > 2 && component.charAt(0) == 'L' && component.endsWith(";")) {
                component = component.substring(1, component.length() - 1);
            } else if (component.length() == 1) {
                Class<?> primitive = primitive(component.charAt(0));
                if (primitive != null) {
                    return primitive.arrayType();
                }
            }
            return arrayOf(resolve(component, depth + 1));
        }
        if (isDenied(name)) {
            return null;
        }
        if (allowedNames.contains(name) || hasAllowedPrefix(name)) {
            try {
                Class<?> c = Class.forName(name, false, loader);
                accepted.add(c);
                return c;
            } catch (ClassNotFoundException | LinkageError e) {
                return null;
            }
        }
        return null;
    }

    private boolean hasAllowedPrefix(String name) {
        for (String p : allowedPrefixes) {
            if (name.startsWith(p)) {
                return true;
            }
        }
        return false;
    }

    private static Class<?> arrayOf(Class<?> component) {
        return component == null || component == void.class ? null : component.arrayType();
    }

    private static Class<?> primitive(char code) {
        switch (code) {
            case 'Z': return boolean.class;
            case 'B': return byte.class;
            case 'S': return short.class;
            case 'C': return char.class;
            case 'I': return int.class;
            case 'J': return long.class;
            case 'F': return float.class;
            case 'D': return double.class;
            default: return null;
        }
    }

    private boolean isAccepted(Class<?> c) {
        while (c.isArray()) {
            c = c.getComponentType();
        }
        return c.isPrimitive() || accepted.contains(c);
    }

    private static boolean isDenied(String name) {
        for (String p : DENIED_PREFIXES) {
            if (name.startsWith(p)) {
                // "java.lang.Class" must not deny "java.lang.ClassCastException"
                if (p.endsWith(".") || name.length() == p.length() || !Character.isJavaIdentifierPart(
                        name.charAt(p.length()))) {
                    return true;
                }
            }
        }
        return false;
    }

    /** Reads values named {@code name} as {@code as}, a JDK class already accepted; {@code name} is never loaded. */
    private void substitute(String name, Class<?> as) {
        byName.put(name, as);
        byHash.put(Fnv.hashCode64(name), as);
    }

    private void accept(Class<?> c) {
        accepted.add(c);
        byName.put(c.getName(), c);
        byName.put(c.getTypeName(), c);
        byName.put(TypeUtils.getTypeName(c), c);
        byHash.putIfAbsent(Fnv.hashCode64(c.getName()), c);
        byHash.putIfAbsent(Fnv.hashCode64(TypeUtils.getTypeName(c)), c);
    }

    private void walk(Type t, Set<Class<?>> seen) {
        if (t instanceof Class) {
            walkClass((Class<?>) t, seen);
        } else if (t instanceof ParameterizedType) {
            ParameterizedType p = (ParameterizedType) t;
            walk(p.getRawType(), seen);
            for (Type a : p.getActualTypeArguments()) {
                walk(a, seen);
            }
        } else if (t instanceof GenericArrayType) {
            walk(((GenericArrayType) t).getGenericComponentType(), seen);
        } else if (t instanceof WildcardType) {
            WildcardType w = (WildcardType) t;
            for (Type b : w.getUpperBounds()) {
                walk(b, seen);
            }
            for (Type b : w.getLowerBounds()) {
                walk(b, seen);
            }
        } else if (t instanceof TypeVariable) {
            for (Type b : ((TypeVariable<?>) t).getBounds()) {
                walk(b, seen);
            }
        }
    }

    private void walkClass(Class<?> c, Set<Class<?>> seen) {
        while (c.isArray()) {
            c = c.getComponentType();
        }
        if (c.isPrimitive() || !seen.add(c)) {
            return;
        }
        String name = c.getName();
        if (isDenied(name)) {
            LOG.warn("Service type {} is on the deserialization deny list; peers cannot send it", name);
            return;
        }
        accept(c);
        if (name.startsWith("java.") || name.startsWith("javax.")) {
            return; // a JDK type itself is fine; its private fields are not part of the service contract
        }
        for (Class<?> k = c; k != null && k != Object.class; k = k.getSuperclass()) {
            if (k != c) {
                walkClass(k, seen);
            }
            for (Field f : k.getDeclaredFields()) {
                int mod = f.getModifiers();
                if (!Modifier.isStatic(mod) && !Modifier.isTransient(mod)) {
                    walk(f.getGenericType(), seen);
                }
            }
        }
    }
}
