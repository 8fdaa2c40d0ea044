package dev.sluice.rpc;

import dev.sluice.codec.dubbo.ClassAllowlist;
import dev.sluice.codec.dubbo.DubboRequest;
import dev.sluice.codec.dubbo.internal.DubboConstants;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Dubbo's generic calls on a {@link SluiceServer}: {@code $invoke(method, parameterTypes, args)} and
 * {@code $invokeAsync} with the same arguments, as gateways and tools send them ({@code GenericService}, the
 * {@code generic} attachment {@code "true"}, or absent, which Dubbo's provider treats the same). The target method is
 * one of the exported interface's, found by name and parameter type names (overloads included) without loading any
 * class the caller names; the arguments are converted to its declared parameter types and the result to Dubbo's
 * generic form by {@link GenericValues}; an exception it throws is answered as Dubbo's {@code GenericException}.
 *
 * <p>Modes other than {@code "true"} (and Dubbo's {@code "raw.return"}, the same but with the result sent as it is)
 * — {@code nativejava}, {@code bean}, {@code protobuf-json}, {@code gson} — are refused with status 40 naming the
 * mode, before the call runs.
 *
 * <p>Threads: {@link #target} runs on the event loop that decoded the call and only reads per-interface tables built
 * once; {@link #arguments} and {@link #result} run on the service thread. Thread-safe.
 */
final class GenericCalls {
    /** Dubbo's default generic mode: POJOs as maps with a {@code "class"} entry. */
    static final String MODE_TRUE = "true";
    /** Dubbo's {@code generic=raw.return}: arguments as for {@code true}, the result not converted. */
    static final String MODE_RAW_RETURN = "raw.return";

    private final GenericValues values;
    /** An interface's methods by name, each with the names a caller may use for its parameter types. */
    private static final ClassValue<Map<String, List<Candidate>>> METHODS = new ClassValue<>() {
        @Override
        protected Map<String, List<Candidate>> computeValue(Class<?> iface) {
            Map<String, List<Candidate>> byName = new HashMap<>();
            for (Method m : iface.getMethods()) {
                if (m.getDeclaringClass() == Object.class || Modifier.isStatic(m.getModifiers())) {
                    continue;
                }
                byName.computeIfAbsent(m.getName(), k -> new ArrayList<>()).add(new Candidate(m));
            }
            return Collections.unmodifiableMap(byName);
        }
    };

    GenericCalls(ClassAllowlist allowlist) {
        this.values = new GenericValues(allowlist);
    }

    /** Whether {@code request} is a generic call ({@code $invoke} or {@code $invokeAsync} with their descriptor). */
    static boolean isGeneric(DubboRequest request) {
        String name = request.methodName();
        return (DubboConstants.GENERIC_METHOD.equals(name) || DubboConstants.GENERIC_ASYNC_METHOD.equals(name))
                && DubboConstants.GENERIC_DESC.equals(request.parameterTypesDesc());
    }

    /**
     * Event loop: the method a generic call targets, or why it cannot run: {@link Target#error} is then the text of a
     * status-40 answer (an unsupported mode) or a status-70 one (no such method), as {@link Target#status} says.
     */
    static Target target(DubboRequest request, Class<?> iface) {
        Object mode = request.attachments().get(DubboConstants.ATTACHMENT_GENERIC);
        boolean raw = MODE_RAW_RETURN.equals(mode);
        if (mode != null && !"".equals(mode) && !MODE_TRUE.equals(mode) && !raw) {
            return Target.failed(DubboConstants.STATUS_BAD_REQUEST, "Generic mode '" + abbreviate(mode)
                    + "' is not supported by this server: it answers generic=true (POJOs as maps with a \"class\""
                    + " entry, collections and primitives as they are); configure generic=\"true\" on the consumer");
        }
        Object[] args = request.arguments();
        Object methodName = args[0];
        String[] types = (String[]) args[1];
        Object[] values = (Object[]) args[2];
        String service = request.servicePath();
        if (!(methodName instanceof String) || iface == null) {
            return Target.failed(DubboConstants.STATUS_SERVICE_ERROR, "No such method " + methodName + " in service "
                    + service);
        }
        int given = values == null ? 0 : values.length;
        List<Candidate> candidates = METHODS.get(iface).getOrDefault(methodName, List.of());
        Method found = null;
        int matches = 0;
        for (Candidate c : candidates) {
            if (types == null ? c.method.getParameterCount() == given : c.matches(types)) {
                found = c.method;
                matches++;
            }
        }
        String signature = methodName + "(" + (types == null ? "" : String.join(", ", types)) + ")";
        if (matches == 0) {
            return Target.failed(DubboConstants.STATUS_SERVICE_ERROR, "No such method " + abbreviate(signature)
                    + " in service " + service + (candidates.isEmpty() ? "" : "; it has " + candidates));
        }
        if (matches > 1) {
            return Target.failed(DubboConstants.STATUS_SERVICE_ERROR, "Not unique method " + methodName + " in service "
                    + service + " for " + given + " arguments: name the parameter types; it has " + candidates);
        }
        if (found.getParameterCount() != given) {
            return Target.failed(DubboConstants.STATUS_BAD_REQUEST, "Generic call " + service + "."
                    + abbreviate(signature) + " gives " + given + " arguments for " + found.getParameterCount()
                    + " parameters");
        }
        return new Target(found, raw, (byte) 0, null);
    }

    /**
     * Service thread: the generic arguments of {@code request} as {@code method}'s parameter types.
     *
     * @throws dev.sluice.codec.dubbo.ClassNotAllowedException for a {@code "class"} entry the allowlist refuses
     * @throws IllegalArgumentException naming the argument and position that cannot be converted
     */
    Object[] arguments(Method method, DubboRequest request) {
        Object[] given = (Object[]) request.arguments()[2];
        Type[] types = method.getGenericParameterTypes();
        Object[] out = new Object[types.length];
        for (int i = 0; i < types.length; i++) {
            try {
                out[i] = values.realize(given[i], types[i]);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("argument " + i + " (" + method.getParameterTypes()[i].getName()
                        + "): " + e.getMessage(), e);
            }
        }
        return out;
    }

    /** Service thread: the value a generic caller gets for {@code value}. */
    static Object result(Target target, Object value) {
        return target.rawReturn ? value : GenericValues.generalize(value);
    }

    private static String abbreviate(Object o) {
        String s = String.valueOf(o);
        return s.length() <= 256 ? s : s.substring(0, 256) + "…";
    }

    /** The method a generic call runs, or why it does not run. Immutable. */
    static final class Target {
        final Method method;
        final boolean rawReturn;
        final byte status;
        final String error;

        Target(Method method, boolean rawReturn, byte status, String error) {
            this.method = method;
            this.rawReturn = rawReturn;
            this.status = status;
            this.error = error;
        }

        static Target failed(byte status, String error) {
            return new Target(null, false, status, error);
        }
    }

    /**
     * A method and the two spellings of each parameter type a caller may send ({@code int}, {@code x.Y[]} or
     * {@code [Lx.Y;}).
     */
    private static final class Candidate {
        final Method method;
        final String[] names;
        final String[] typeNames;

        Candidate(Method m) {
            this.method = m;
            Class<?>[] p = m.getParameterTypes();
            names = new String[p.length];
            typeNames = new String[p.length];
            for (int i = 0; i < p.length; i++) {
                names[i] = p[i].getName();
                typeNames[i] = p[i].getTypeName();
            }
        }

        boolean matches(String[] types) {
            if (types.length != names.length) {
                return false;
            }
            for (int i = 0; i < types.length; i++) {
                if (!names[i].equals(types[i]) && !typeNames[i].equals(types[i])) {
                    return false;
                }
            }
            return true;
        }

        @Override
        public String toString() {
            return method.getName() + "(" + String.join(", ", typeNames) + ")";
        }
    }
}
