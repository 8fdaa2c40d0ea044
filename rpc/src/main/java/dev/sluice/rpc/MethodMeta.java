package dev.sluice.rpc;

import dev.sluice.codec.dubbo.DubboMethod;
import dev.sluice.codec.dubbo.EncodedAttachments;
import dev.sluice.codec.dubbo.internal.DubboConstants;
import java.lang.reflect.Method;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * Per-method facts of a {@link SluiceClient} proxy, computed once when the proxy is made ({@link ProxyFactory}).
 *
 * <p>Threads: immutable once built; read by every calling thread, the event loop and the timeout thread.
 */
final class MethodMeta {
    final DubboMethod method;
    final String group;
    final String description;
    final Class<?> returnClass;
    final Type valueType;
    final boolean async;
    final boolean oneWay;
    final long timeoutMillis;
    final byte serialization;
    final Map<String, Object> attachments;

    MethodMeta(Class<?> iface, Method m, String version, String group, long timeoutMillis, boolean oneWay,
               Serialization serialization, Map<String, Object> fixed) {
        this.method = DubboMethod.of(iface, m, version);
        this.group = group;
        this.description = iface.getSimpleName() + "." + m.getName();
        this.returnClass = m.getReturnType();
        this.async = CompletableFuture.class.isAssignableFrom(returnClass);
        Type generic = m.getGenericReturnType();
        if (async) {
            generic = generic instanceof ParameterizedType
                    ? ((ParameterizedType) generic).getActualTypeArguments()[0] : Object.class;
        }
        this.valueType = returnClass == void.class ? null : generic;
        this.oneWay = oneWay;
        this.timeoutMillis = timeoutMillis;
        this.serialization = serialization.id();
        HashMap<String, Object> a = new HashMap<>();
        a.put("path", iface.getName());
        a.put("interface", iface.getName());
        a.put("version", version == null ? DubboConstants.DEFAULT_SERVICE_VERSION : version);
        a.put("timeout", String.valueOf(timeoutMillis));
        if (group != null) {
            a.put("group", group);
        }
        a.putAll(fixed);
        // Shared by every call, immutable, and encoded once: a call writes these bytes instead of ten strings.
        this.attachments = EncodedAttachments.of(a);
    }

    static Object defaultValue(Class<?> type) {
        if (!type.isPrimitive() || type == void.class) {
            return null;
        }
        if (type == boolean.class) {
            return false;
        }
        if (type == char.class) {
            return '\0';
        }
        if (type == long.class) {
            return 0L;
        }
        if (type == double.class) {
            return 0d;
        }
        if (type == float.class) {
            return 0f;
        }
        if (type == int.class) {
            return 0;
        }
        if (type == short.class) {
            return (short) 0;
        }
        return (byte) 0;
    }
}
