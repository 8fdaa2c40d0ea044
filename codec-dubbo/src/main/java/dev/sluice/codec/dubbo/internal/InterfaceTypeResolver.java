package dev.sluice.codec.dubbo.internal;

import dev.sluice.codec.dubbo.ClassAllowlist;
import dev.sluice.codec.dubbo.DubboDescriptors;
import dev.sluice.codec.dubbo.DubboTypeResolver;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Type;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The server half of {@link DubboTypeResolver} for services exported from Java interfaces: maps
 * (path, version, method, descriptor) to the method's generic parameter types, and registers each interface with a
 * {@link ClassAllowlist} so its types may be deserialized. Versions {@code null}, {@code ""}, {@code "0.0.0"} and
 * {@code "*"} are the same unversioned service, as for Dubbo. Thread-safe: register at any time; lookups are
 * lock-free. {@link #returnType} always answers {@code null}.
 *
 * <p>Each registered service also resolves Dubbo's built-in {@code $echo(Object)} ({@link DubboConstants#ECHO_METHOD}),
 * which has no Java method: {@link #method} answers {@code null} for it and the server echoes the argument; so are
 * Dubbo's generic calls {@code $invoke} and {@code $invokeAsync} ({@link DubboConstants#GENERIC_DESC}), whose
 * arguments are read untyped, within the allowlist, and converted by the server.
 */
public final class InterfaceTypeResolver implements DubboTypeResolver {
    private final ClassAllowlist allowlist;
    private final Map<String, Exported> methods = new ConcurrentHashMap<>();
    private final Map<String, Class<?>> interfaces = new ConcurrentHashMap<>();

    private static final class Exported {
        final Method method;
        final Type[] parameterTypes;

        Exported(Method method) {
            this(method, method.getGenericParameterTypes());
        }

        Exported(Method method, Type[] parameterTypes) {
            this.method = method;
            this.parameterTypes = parameterTypes;
        }
    }

    private static final Exported ECHO = new Exported(null, new Type[] {Object.class});
    /** {@code $invoke}/{@code $invokeAsync}: method name, parameter type names, arguments (read untyped). */
    private static final Exported GENERIC = new Exported(null, new Type[] {String.class, String[].class,
        Object[].class});

    public InterfaceTypeResolver(ClassAllowlist allowlist) {
        this.allowlist = allowlist;
    }

    /** Exports the interface under its FQCN as path. */
    public InterfaceTypeResolver register(Class<?> serviceInterface, String serviceVersion) {
        return register(serviceInterface.getName(), serviceVersion, serviceInterface);
    }

    /** Exports the interface under {@code servicePath}. */
    public InterfaceTypeResolver register(String servicePath, String serviceVersion, Class<?> serviceInterface) {
        if (!serviceInterface.isInterface()) {
            throw new IllegalArgumentException(serviceInterface + " is not an interface");
        }
        allowlist.register(serviceInterface);
        interfaces.put(key(servicePath, serviceVersion, "", ""), serviceInterface);
        // Before the interface's methods, so an interface declaring its own $echo(Object) wins.
        methods.put(key(servicePath, serviceVersion, DubboConstants.ECHO_METHOD, DubboConstants.ECHO_DESC), ECHO);
        methods.put(key(servicePath, serviceVersion, DubboConstants.GENERIC_METHOD, DubboConstants.GENERIC_DESC),
                GENERIC);
        methods.put(key(servicePath, serviceVersion, DubboConstants.GENERIC_ASYNC_METHOD,
                DubboConstants.GENERIC_DESC), GENERIC);
        for (Method m : serviceInterface.getMethods()) {
            if (m.getDeclaringClass() == Object.class || Modifier.isStatic(m.getModifiers())) {
                continue;
            }
            methods.put(key(servicePath, serviceVersion, m.getName(), DubboDescriptors.desc(m)), new Exported(m));
        }
        return this;
    }

    /**
     * The exported method for a request's target, or {@code null} (also for the built-in {@code $echo} and the
     * generic calls).
     */
    public Method method(String servicePath, String serviceVersion, String methodName, String parameterTypesDesc) {
        Exported e = methods.get(key(servicePath, serviceVersion, methodName, parameterTypesDesc));
        return e == null ? null : e.method;
    }

    /** The interface exported under this path and version, or {@code null}: what a generic call may call. */
    public Class<?> serviceInterface(String servicePath, String serviceVersion) {
        return interfaces.get(key(servicePath, serviceVersion, "", ""));
    }

    @Override
    public Type[] parameterTypes(String servicePath, String serviceVersion, String methodName,
            String parameterTypesDesc) {
        Exported e = methods.get(key(servicePath, serviceVersion, methodName, parameterTypesDesc));
        // Shared array: the decoder only reads it.
        return e == null ? null : e.parameterTypes;
    }

    @Override
    public Type returnType(long requestId) {
        return null;
    }

    private static String key(String path, String version, String method, String desc) {
        String v = version == null || version.isEmpty() || "*".equals(version) ? DubboConstants.DEFAULT_SERVICE_VERSION
                : version;
        return path + ':' + v + '#' + method + '(' + desc + ')';
    }
}
