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
    /**
     * A call described by another framework ({@link DescribedCalls}): its attachments are given with each call, and
     * its outcome is a {@link DescribedCalls.Answer} (the value or the service's exception, with the response's
     * attachments) instead of a value or a thrown service exception.
     */
    final boolean answers;

    MethodMeta(Class<?> iface, Method m, String version, String group, long timeoutMillis, boolean oneWay,
               Serialization serialization, Map<String, Object> fixed) {
        this(DubboMethod.of(iface, m, version), iface.getName(), iface.getSimpleName() + "." + m.getName(),
                m.getReturnType(), m.getGenericReturnType(), version, group, timeoutMillis, oneWay, serialization,
                fixed, false, null);
    }

    /**
     * A call described by another framework's invocation ({@link DescribedCalls}): {@code valueType} is the type the
     * result is read as (for an asynchronous call, the future's value type), the attachments come with each call.
     */
    static MethodMeta described(DubboMethod method, String description, Type valueType, boolean async,
                                boolean oneWay, long timeoutMillis, Serialization serialization) {
        return new MethodMeta(method, method.servicePath(), description,
                async ? CompletableFuture.class : Object.class, async ? null : valueType, method.serviceVersion(),
                null, timeoutMillis, oneWay, serialization, Map.of(), true, valueType);
    }

    /**
     * A generic call of {@code servicePath} ({@code $invoke}, Dubbo's {@code GenericService}), answered with a value
     * of any type within the allowlist; {@code async} for a caller that takes a {@code CompletableFuture}. Sends the
     * {@code generic=true} attachment, as a Dubbo generic consumer does.
     */
    static MethodMeta generic(String servicePath, boolean async, String version, String group, long timeoutMillis,
                              Serialization serialization, Map<String, Object> fixed) {
        HashMap<String, Object> a = new HashMap<>(fixed);
        a.putIfAbsent(DubboConstants.ATTACHMENT_GENERIC, "true");
        int dot = servicePath.lastIndexOf('.');
        return new MethodMeta(DubboMethod.of(servicePath, version, DubboConstants.GENERIC_METHOD,
                DubboConstants.GENERIC_DESC), servicePath, servicePath.substring(dot + 1) + ".$invoke",
                async ? CompletableFuture.class : Object.class, Object.class, version, group, timeoutMillis, false,
                serialization, a, false, null);
    }

    /** {@code asyncValue}: an asynchronous call's value type when given, else the future's type argument. */
    private MethodMeta(DubboMethod method, String servicePath, String description, Class<?> returnClass,
                       Type genericReturn, String version, String group, long timeoutMillis, boolean oneWay,
                       Serialization serialization, Map<String, Object> fixed, boolean answers, Type asyncValue) {
        this.method = method;
        this.answers = answers;
        this.group = group;
        this.description = description;
        this.returnClass = returnClass;
        this.async = CompletableFuture.class.isAssignableFrom(returnClass);
        Type generic = genericReturn;
        if (async) {
            generic = asyncValue != null ? asyncValue : generic instanceof ParameterizedType
                    ? ((ParameterizedType) generic).getActualTypeArguments()[0] : Object.class;
        }
        this.valueType = returnClass == void.class ? null : generic;
        this.oneWay = oneWay;
        this.timeoutMillis = timeoutMillis;
        this.serialization = serialization.id();
        HashMap<String, Object> a = new HashMap<>();
        a.put("path", servicePath);
        a.put("interface", servicePath);
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
