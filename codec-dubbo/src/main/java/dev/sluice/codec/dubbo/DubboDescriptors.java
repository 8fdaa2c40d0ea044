package dev.sluice.codec.dubbo;

import dev.sluice.transport.Internal;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;

/**
 * JVM descriptors of parameter lists, as Dubbo writes body field 4 (docs/wire-format.md §2.2): all parameter types
 * concatenated, no separators, no parentheses — {@code Ljava/lang/String;}, {@code J}, {@code [I},
 * {@code Lcom/x/Outer$Inner;}. A method without parameters has {@code ""}. Stateless; safe from any thread.
 */
@Internal
public final class DubboDescriptors {
    private DubboDescriptors() {
    }

    /** The descriptor of a parameter list. */
    public static String desc(Class<?>... types) {
        if (types.length == 0) {
            return "";
        }
        StringBuilder sb = new StringBuilder(types.length * 24);
        for (Class<?> t : types) {
            append(sb, t);
        }
        return sb.toString();
    }

    /** The descriptor of a method's parameter list. */
    public static String desc(Method method) {
        return desc(method.getParameterTypes());
    }

    private static void append(StringBuilder sb, Class<?> t) {
        while (t.isArray()) {
            sb.append('[');
            t = t.getComponentType();
        }
        if (t.isPrimitive()) {
            sb.append(primitiveCode(t));
        } else {
            sb.append('L').append(t.getName().replace('.', '/')).append(';');
        }
    }

    private static char primitiveCode(Class<?> t) {
        if (t == int.class) {
            return 'I';
        } else if (t == long.class) {
            return 'J';
        } else if (t == boolean.class) {
            return 'Z';
        } else if (t == byte.class) {
            return 'B';
        } else if (t == char.class) {
            return 'C';
        } else if (t == short.class) {
            return 'S';
        } else if (t == float.class) {
            return 'F';
        } else if (t == double.class) {
            return 'D';
        } else if (t == void.class) {
            return 'V';
        }
        throw new IllegalArgumentException("not a primitive type: " + t);
    }

    /**
     * Splits a descriptor into {@link Class#getName()}-style names without loading anything:
     * {@code "IJ[Ljava/lang/String;"}
     * → {@code ["int", "long", "[Ljava.lang.String;"]}. Primitives give their keyword, arrays the JVM array name.
     *
     * @throws IllegalArgumentException if the descriptor is malformed
     */
    public static List<String> typeNames(String desc) {
        List<String> names = new ArrayList<>(4);
        int i = 0;
        int n = desc.length();
        while (i < n) {
            int start = i;
            while (i < n && desc.charAt(i) == '[') {
                i++;
            }
            if (i == n) {
                throw new IllegalArgumentException("malformed descriptor '" + desc + "': '[' without element type");
            }
            char c = desc.charAt(i);
            boolean array = i > start;
            if (c == 'L') {
                int end = desc.indexOf(';', i);
                if (end < 0 || end == i + 1) {
                    throw new IllegalArgumentException("malformed descriptor '" + desc + "' at index " + i);
                }
                i = end + 1;
                names.add(array ? desc.substring(start, i).replace('/', '.')
                        : desc.substring(start + 1, end).replace('/', '.'));
            } else {
                String keyword = primitiveKeyword(c);
                if (keyword == null || (c == 'V' && array)) {
                    throw new IllegalArgumentException("malformed descriptor '" + desc + "': unknown type code '"
                            + c + "' at index " + i);
                }
                i++;
                names.add(array ? desc.substring(start, i) : keyword);
            }
        }
        return names;
    }

    /**
     * Resolves a descriptor to classes with {@code loader}, without initializing them. Only for descriptors from a
     * trusted source (your own service interfaces): loading a class named by a remote peer is what the
     * {@link ClassAllowlist} exists to prevent.
     *
     * @throws IllegalArgumentException if the descriptor is malformed or a class is missing
     */
    public static Class<?>[] classes(String desc, ClassLoader loader) {
        List<String> names = typeNames(desc);
        Class<?>[] classes = new Class<?>[names.size()];
        for (int i = 0; i < classes.length; i++) {
            String name = names.get(i);
            Class<?> primitive = primitiveClass(name);
            if (primitive != null) {
                classes[i] = primitive;
                continue;
            }
            try {
                classes[i] = Class.forName(name, false, loader);
            } catch (ClassNotFoundException e) {
                throw new IllegalArgumentException("class " + name + " of descriptor '" + desc + "' not found", e);
            }
        }
        return classes;
    }

    private static String primitiveKeyword(char c) {
        switch (c) {
            case 'I': return "int";
            case 'J': return "long";
            case 'Z': return "boolean";
            case 'B': return "byte";
            case 'C': return "char";
            case 'S': return "short";
            case 'F': return "float";
            case 'D': return "double";
            case 'V': return "void";
            default: return null;
        }
    }

    private static Class<?> primitiveClass(String keyword) {
        switch (keyword) {
            case "int": return int.class;
            case "long": return long.class;
            case "boolean": return boolean.class;
            case "byte": return byte.class;
            case "char": return char.class;
            case "short": return short.class;
            case "float": return float.class;
            case "double": return double.class;
            case "void": return void.class;
            default: return null;
        }
    }
}
