package dev.sluice.rpc;

import dev.sluice.codec.dubbo.ClassAllowlist;
import dev.sluice.codec.dubbo.DubboRequest;
import dev.sluice.codec.dubbo.DubboResponse;
import dev.sluice.codec.dubbo.DubboSerializationException;
import dev.sluice.transport.Connection;
import dev.sluice.transport.ConnectionStalledException;
import dev.sluice.transport.WriteListener;
import dev.sluice.transport.netty.NettyClientTransport;
import io.netty.channel.EventLoop;
import io.netty.util.internal.ThreadExecutorMap;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * The application half of a {@link SluiceClient}: makes the typed proxies ({@link SluiceClient.Reference#proxy()})
 * and runs their calls: interceptors, the checks that refuse a call before sending (event-loop caller, stalled or
 * readonly connection), encoding and queueing the request, then waiting for the response and parsing its value.
 *
 * <p>Threads: a proxy call runs here on the calling thread, which encodes its own request and, for a synchronous
 * method, waits for the {@link PendingCall} and parses the result value. An asynchronous method's value is parsed on
 * the client's callback executor ({@link PendingCall#succeed}); its interceptors' {@code onComplete} runs there too.
 * Never runs on an event loop: a synchronous call from one is refused ({@link BlockingCallException}).
 */
final class ProxyFactory {
    private final NettyClientTransport transport;
    private final PendingCalls pending;
    private final ClassAllowlist allowlist;
    private final Duration stallTimeout;
    /** Empty (and then never touched on a call) when no interceptor is registered. */
    private final SluiceInterceptor[] interceptors;
    /** The client's application name, for its invocations. */
    private final String applicationName;

    ProxyFactory(NettyClientTransport transport, PendingCalls pending, ClassAllowlist allowlist, Duration stallTimeout,
                 SluiceInterceptor[] interceptors, String applicationName) {
        this.applicationName = applicationName;
        this.transport = transport;
        this.pending = pending;
        this.allowlist = allowlist;
        this.stallTimeout = stallTimeout;
        this.interceptors = interceptors;
    }

    /** A proxy for {@code iface} with a reference's settings. The thread that builds the reference. */
    <T> T proxy(Class<T> iface, String version, String group, Duration timeout, Serialization serialization,
                Set<String> oneWay, Map<String, Object> fixedAttachments) {
        allowlist.register(iface);
        Map<Method, MethodMeta> metas = new HashMap<>();
        for (Method m : iface.getMethods()) {
            if (m.getDeclaringClass() == Object.class || Modifier.isStatic(m.getModifiers())) {
                continue;
            }
            metas.put(m, new MethodMeta(iface, m, version, group, timeout.toMillis(),
                    oneWay.contains(m.getName()), serialization, fixedAttachments));
        }
        String name = "SluiceProxy[" + iface.getName() + (version == null ? "" : ":" + version)
                + (group == null ? "" : ", group " + group) + " -> " + transport.remoteAddress() + "]";
        Object proxy = Proxy.newProxyInstance(iface.getClassLoader(), new Class<?>[] {iface}, (p, m, args) -> {
            MethodMeta meta = metas.get(m);
            if (meta != null) {
                return invoke(meta, args);
            }
            switch (m.getName()) {
                case "toString":
                    return name;
                case "hashCode":
                    return System.identityHashCode(p);
                case "equals":
                    return p == args[0];
                default:
                    throw new UnsupportedOperationException(m.toString());
            }
        });
        return iface.cast(proxy);
    }

    /** Runs one call of {@code meta} on the calling thread: through the interceptors, sent, awaited (unless async). */
    Object invoke(MethodMeta meta, Object[] args) throws Throwable {
        if (interceptors.length == 0) {
            return send(meta, args, null);
        }
        return intercepted(meta, args);
    }

    /**
     * A call through the interceptors: {@code onCall} on the calling thread, then the call, then {@code onComplete}
     * where the caller gets the outcome (the calling thread, or the callback executor before the caller's future
     * completes).
     */
    @SuppressWarnings("unchecked")
    private Object intercepted(MethodMeta meta, Object[] args) throws Throwable {
        HashMap<String, Object> attachments = new HashMap<>(meta.attachments);
        Map<String, Object> extra = SluiceContext.current().takeOutgoing();
        if (extra != null) {
            attachments.putAll(extra);
        }
        Invocation inv = new Invocation(Invocation.Side.CLIENT, applicationName, meta.method.servicePath(),
                meta.method.serviceVersion(), meta.group, meta.method.methodName(), args, attachments, meta.oneWay,
                meta.async);
        Interceptors.before(interceptors, inv);
        Object result;
        try {
            result = send(meta, args, attachments);
        } catch (Throwable t) { // NOPMD: the interceptors see every outcome, then the caller gets it unchanged
            InterceptorException failure = Interceptors.after(interceptors, inv,
                    Outcome.client(null, t, System.nanoTime() - inv.startNanos()));
            throw failure != null ? failure : t;
        }
        if (meta.async && !meta.oneWay) {
            CompletableFuture<Object> caller = new CompletableFuture<>();
            ((CompletableFuture<Object>) result).whenComplete((value, error) -> {
                InterceptorException failure = Interceptors.after(interceptors, inv,
                        Outcome.client(value, error, System.nanoTime() - inv.startNanos()));
                if (failure != null) {
                    caller.completeExceptionally(failure);
                } else if (error != null) {
                    caller.completeExceptionally(error);
                } else {
                    caller.complete(value);
                }
            });
            return caller;
        }
        InterceptorException failure = Interceptors.after(interceptors, inv,
                Outcome.client(result, null, System.nanoTime() - inv.startNanos()));
        if (failure != null) {
            throw failure;
        }
        return result;
    }

    /**
     * Runs one call of a {@link DescribedCalls} method on the calling thread, without interceptors (the framework that
     * described it runs its own): its {@code attachments} are sent as given.
     */
    Object invokeDescribed(MethodMeta meta, Object[] args, Map<String, Object> attachments) throws Throwable {
        return send(meta, args, attachments);
    }

    /** Sends one call; {@code given} are the attachments to send when interceptors prepared them. */
    private Object send(MethodMeta meta, Object[] args, Map<String, Object> given) throws Throwable {
        if (!meta.async && !meta.oneWay && ThreadExecutorMap.currentExecutor() instanceof EventLoop) {
            // Waiting here would stall every connection of that loop, and on this client's own loop the response
            // could never be read: the call would only end with its timeout.
            throw new BlockingCallException("Not sent: " + meta.description + " is a synchronous call and the"
                    + " calling thread " + Thread.currentThread().getName() + " is a Netty event loop, which must"
                    + " never block. Call it from another thread, or declare the method returning CompletableFuture.");
        }
        Connection connection = transport.connection();
        if (connection.isStalled()) {
            throw new ConnectionStalledException("Not sent: the connection to " + transport.remoteAddress()
                    + " is stalled (requests written and neither they nor a heartbeat answered within the stall"
                    + " timeout of " + stallTimeout.toMillis() + " ms); " + meta.description
                    + " was refused before sending; retry on another provider, or later");
        }
        if (Boolean.TRUE.equals(connection.attribute(ClientHandler.READONLY))) {
            throw new RpcException(0, "Not sent: provider " + transport.remoteAddress() + " is shutting down"
                    + " (readonly event received); retry on another provider", true, null);
        }
        Map<String, Object> attachments = given;
        if (attachments == null) {
            attachments = meta.attachments;
            Map<String, Object> extra = SluiceContext.current().takeOutgoing();
            if (extra != null) {
                attachments = new HashMap<>(meta.attachments);
                attachments.putAll(extra);
            }
        }
        long id = pending.nextId();
        if (meta.oneWay) {
            encodeAndQueue(connection, DubboRequest.invocation(id, false, meta.serialization, meta.method,
                    args, attachments), WriteListener.NONE, meta);
            return meta.async ? CompletableFuture.completedFuture(null) : MethodMeta.defaultValue(meta.returnClass);
        }
        // The caller's future must exist before the request can be answered or failed: the response, a failed
        // write or a lost connection may complete the call before send() even returns.
        CompletableFuture<Object> result = meta.async ? new CompletableFuture<>() : null;
        PendingCall call = pending.add(id, meta, connection, result);
        try {
            encodeAndQueue(connection, DubboRequest.invocation(id, true, meta.serialization, meta.method,
                    args, attachments), call, meta);
        } catch (Throwable e) { // NOPMD: whatever went wrong, the call must not stay in the table
            pending.remove(call);
            throw e; // typed: FrameTooLargeException, PendingBytesExceededException, ConnectionClosedException, ...
        }
        if (result != null) {
            pending.scheduleTimeout(call);
            return result;
        }
        DubboResponse response = pending.await(call);
        Object value = pending.readResult(call, response);
        if (meta.answers) {
            return value; // a described call's Answer carries the response's attachments
        }
        SluiceContext.current().setIncoming(call.responseAttachments);
        return value == null ? MethodMeta.defaultValue(meta.returnClass) : value;
    }

    /**
     * Encodes {@code request} on this thread and queues it. An {@link Error} while encoding (a
     * {@link StackOverflowError} from an argument nested too deeply, an {@link OutOfMemoryError} from a huge one) is
     * a {@link DubboSerializationException}: typed, and nothing was queued.
     */
    private static void encodeAndQueue(Connection connection, DubboRequest request, WriteListener listener,
                                       MethodMeta meta) {
        try {
            connection.send(request, listener);
        } catch (Error e) { // NOPMD: an argument the encoder cannot write must fail this call, typed, not the caller
            throw new DubboSerializationException("Not sent: encoding " + meta.description + " failed with " + e
                    + (e instanceof StackOverflowError ? " (an argument nested too deeply to write)" : ""), e);
        }
    }
}
