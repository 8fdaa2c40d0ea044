package dev.sluice.rpc;

import dev.sluice.codec.dubbo.DubboMethod;
import dev.sluice.transport.Internal;
import java.lang.reflect.Type;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * Calls on a {@link SluiceClient}'s connection that another framework describes per call, instead of a Sluice
 * proxy: the target, the attachments and the type to read the result as come from the framework's invocation (used
 * by sluice-dubbo's consumer lever, which answers Dubbo's invoker with Sluice's pending-call table, its one timeout
 * sweep and completion on the caller's thread). The call goes through the client's own path ({@link ProxyFactory}:
 * the same checks before sending, the same {@link PendingCalls} table, the same typed failures), but without the
 * client's interceptors (the framework runs its own), and its outcome is an {@link Answer}: the value or the
 * service's own exception, with the response's attachments; every other failure is thrown (synchronous) or fails
 * the future (asynchronous) as for a proxy call: {@link RpcTimeoutException}, {@link RpcException} for an error
 * status, {@link dev.sluice.transport.SluiceException} subtypes for a connection lost, stalled or closed.
 *
 * <p>Threads: as a proxy call. {@link #call} encodes on the calling thread and waits there; {@link #callAsync} returns
 * at once, its future completed on the client's callback executor. Thread-safe; stateless.
 */
@Internal
public final class DescribedCalls {
    /** The answer of a one-way call: no value, no exception, no attachments. */
    private static final Answer NONE = new Answer(null, null, null);

    private DescribedCalls() {
    }

    /**
     * One method as the framework describes it, for one timeout; immutable, made once and reused (its target caches
     * its encoded form).
     */
    public static final class Signature {
        final MethodMeta meta;

        private Signature(MethodMeta meta) {
            this.meta = meta;
        }

        /** The timeout its calls wait for, in ms. */
        public long timeoutMillis() {
            return meta.timeoutMillis;
        }

        /** Whether its calls return a future ({@link #callAsync}). */
        public boolean isAsync() {
            return meta.async;
        }

        /** Whether its calls are sent without awaiting a response. */
        public boolean isOneWay() {
            return meta.oneWay;
        }
    }

    /**
     * The outcome of a call the provider answered: its value, or the exception the service threw (delivered as a
     * normal response), and the response's attachments ({@code null} when it had none). Immutable.
     */
    public static final class Answer {
        private final Object value;
        private final Throwable exception;
        private final Map<String, Object> attachments;

        Answer(Object value, Throwable exception, Map<String, Object> attachments) {
            this.value = value;
            this.exception = exception;
            this.attachments = attachments;
        }

        public Object value() {
            return value;
        }

        /** The service's own exception, or {@code null}. */
        public Throwable exception() {
            return exception;
        }

        /** The response's attachments (not copied), or {@code null}. */
        public Map<String, Object> attachments() {
            return attachments;
        }
    }

    /**
     * Describes a method: its target on the wire, the type its result is read as ({@code Object.class} when any), and
     * whether its calls return a future ({@link #callAsync}) or wait ({@link #call}); a {@code oneWay} method's calls
     * are sent without awaiting a response (their answer is an empty one once the request is queued).
     */
    public static Signature signature(DubboMethod target, String description, Type valueType, boolean async,
                                      boolean oneWay, long timeoutMillis, Serialization serialization) {
        Objects.requireNonNull(valueType, "valueType");
        if (timeoutMillis <= 0) {
            throw new IllegalArgumentException("timeout must be > 0 ms, got " + timeoutMillis + " for "
                    + description);
        }
        return new Signature(MethodMeta.described(target, description, valueType, async, oneWay, timeoutMillis,
                serialization));
    }

    /** Accepts from the wire the classes reachable from {@code iface} (its methods' types), as a proxy of it does. */
    public static void allow(SluiceClient client, Class<?> iface) {
        client.allowlist().register(iface);
    }

    /**
     * True when a new call would be sent: connected, not stalled, and the provider has not announced that it is
     * shutting down.
     */
    public static boolean acceptsCalls(SluiceClient client) {
        return client.acceptsCalls();
    }

    /**
     * Sends a call of {@code method} (described as synchronous) and waits for its answer, at most its timeout.
     *
     * @throws Throwable what failed the call (never the service's own exception, which is in the answer)
     */
    public static Answer call(SluiceClient client, Signature method, Object[] args, Map<String, Object> attachments)
            throws Throwable {
        if (method.meta.async) {
            throw new IllegalArgumentException(method.meta.description + " is described as asynchronous");
        }
        Object answer = client.proxies().invokeDescribed(method.meta, args, Objects.requireNonNull(attachments));
        return answer == null ? NONE : (Answer) answer; // null: a one-way call, queued
    }

    /**
     * Sends a call of {@code method} (described as asynchronous); the future completes with its answer on the
     * client's callback executor, or fails with what failed the call, its timeout included.
     *
     * @throws Throwable what refused the call before sending (not connected, stalled, not encodable)
     */
    @SuppressWarnings("unchecked")
    public static CompletableFuture<Answer> callAsync(SluiceClient client, Signature method, Object[] args,
                                                      Map<String, Object> attachments) throws Throwable {
        if (!method.meta.async) {
            throw new IllegalArgumentException(method.meta.description + " is described as synchronous");
        }
        CompletableFuture<Object> answer = (CompletableFuture<Object>) client.proxies().invokeDescribed(method.meta,
                args, Objects.requireNonNull(attachments));
        if (method.meta.oneWay) {
            return CompletableFuture.completedFuture(NONE);
        }
        return (CompletableFuture<Answer>) (Object) answer;
    }
}
