package dev.sluice.rpc;

import dev.sluice.codec.dubbo.ClassAllowlist;
import dev.sluice.codec.dubbo.DubboCodec;
import dev.sluice.codec.dubbo.DubboConstants;
import dev.sluice.codec.dubbo.DubboMethod;
import dev.sluice.codec.dubbo.DubboRequest;
import dev.sluice.codec.dubbo.DubboResponse;
import dev.sluice.codec.dubbo.DubboSerializationException;
import dev.sluice.transport.Connection;
import dev.sluice.transport.ConnectionClosedException;
import dev.sluice.transport.ConnectionStalledException;
import dev.sluice.transport.IdleState;
import dev.sluice.transport.SendState;
import dev.sluice.transport.SluiceException;
import dev.sluice.transport.TransportHandler;
import dev.sluice.transport.TransportOptions;
import dev.sluice.transport.WriteListener;
import dev.sluice.transport.netty.EventLoops;
import dev.sluice.transport.netty.NettyClientTransport;
import io.netty.channel.EventLoop;
import io.netty.handler.ssl.SslContext;
import io.netty.util.HashedWheelTimer;
import io.netty.util.Timeout;
import io.netty.util.Timer;
import io.netty.util.internal.ThreadExecutorMap;
import java.lang.reflect.Method;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Proxy;
import java.lang.reflect.Type;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A standalone Dubbo-protocol client: typed proxies over one connection to one provider (a {@link SluiceServer}
 * or a real Dubbo provider), in hessian2 or fastjson2 ({@link Builder#serialization}).
 *
 * <pre>{@code
 * SluiceClient client = SluiceClient.builder().address("127.0.0.1", port).build();
 * UserService users = client.proxy(UserService.class);
 * }</pre>
 *
 * <p>Threads: a proxy call encodes the request on the calling thread and waits for its response (or returns a
 * {@link CompletableFuture} for methods declared so, completed on the client's callback executor, never on the
 * event loop). The event loop cuts and matches responses; the result value is parsed by the waiting caller (for
 * asynchronous methods, on the callback executor). Thread-safe; one client serves any number of threads.
 */
public final class SluiceClient implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(SluiceClient.class);
    private static final String READONLY = "sluice.readonly";
    private static final String IDLE_COUNT = "sluice.idle";
    /**
     * Default stall timeout, 1 s: a live provider answers a heartbeat on its I/O thread within a round trip even
     * with every service thread busy, so 2 s of total silence with a heartbeat out (probe after 1 s, stalled 1 s
     * later) means a frozen process or a dead path, while young-generation GC pauses and scheduling hiccups of a
     * loaded host stay well below it. See README.
     */
    public static final Duration DEFAULT_STALL_TIMEOUT = Duration.ofSeconds(1);

    private final NettyClientTransport transport;
    private final ConcurrentHashMap<Long, PendingCall> pending = new ConcurrentHashMap<>();
    private final AtomicLong ids = new AtomicLong(ThreadLocalRandom.current().nextLong());
    private final ClassAllowlist allowlist;
    private final Duration defaultTimeout;
    private final Serialization defaultSerialization;
    private final Duration heartbeat;
    private final Duration idleTimeout;
    private final Duration stallTimeout;
    private final Executor callbackExecutor;
    private final Timer timer;
    /** Empty (and then never touched on a call) when no interceptor is registered. */
    private final SluiceInterceptor[] interceptors;

    private SluiceClient(Builder b) {
        this.interceptors = Interceptors.of(b.interceptors);
        this.allowlist = b.allowlist;
        this.defaultTimeout = b.timeout;
        this.defaultSerialization = b.serialization;
        this.heartbeat = b.heartbeat;
        this.idleTimeout = b.idleTimeout;
        this.stallTimeout = b.stallTimeout;
        this.callbackExecutor = b.callbackExecutor;
        this.timer = new HashedWheelTimer(r -> {
            Thread t = new Thread(r, "sluice-client-timer");
            t.setDaemon(true);
            return t;
        }, 10, TimeUnit.MILLISECONDS);
        // Result values are parsed by the waiting caller (readResult), not by the event loop: 32 callers waiting on
        // one connection then parse in parallel instead of queueing behind one thread.
        DubboCodec codec = DubboCodec.builder().payloadLimit(b.options.payloadLimit()).allowlist(allowlist)
                .deferResponseValues(true).build();
        TransportOptions options = b.options.toBuilder().readerIdle(heartbeat).stallTimeout(stallTimeout).build();
        this.transport = NettyClientTransport.builder().remote(b.address).options(options).codec(codec)
                .handler(new Handler()).eventLoops(b.loops).tls(b.tls).build();
        try {
            transport.connect().get(options.connectTimeout().toMillis() + 1000, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            if (b.failIfNotConnected) {
                close();
                Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
                throw cause instanceof SluiceException ? (SluiceException) cause
                        : new SluiceException("Could not connect to " + b.address, cause);
            }
            log.info("Not connected to {} yet ({}); reconnecting in the background", b.address, e.getMessage());
        }
    }

    public static Builder builder() {
        return new Builder();
    }

    /** A proxy for {@code iface} with no version, no group and the client's default timeout. */
    public <T> T proxy(Class<T> iface) {
        return reference(iface).proxy();
    }

    /** Configures a proxy: version, group, timeout, one-way methods, fixed attachments. */
    public <T> Reference<T> reference(Class<T> iface) {
        return new Reference<>(iface);
    }

    /** True while connected to the provider. */
    public boolean isConnected() {
        return transport.isConnected();
    }

    /**
     * True while the connection is stalled (see {@link Builder#stallTimeout}): new calls fail at once with
     * {@link ConnectionStalledException}, not sent.
     */
    public boolean isStalled() {
        try {
            return transport.isConnected() && transport.connection().isStalled();
        } catch (RuntimeException e) { // lost between the two calls
            return false;
        }
    }

    /** Calls waiting for a response. */
    public int pendingCalls() {
        return pending.size();
    }

    /**
     * Closes the connection once queued requests are written and cancels reconnecting. Calls still waiting fail with
     * {@link ConnectionClosedException}.
     */
    @Override
    public void close() {
        transport.close();
        timer.stop();
        failAll(null, new ConnectionClosedException("Client closed", true, null));
    }

    private void failAll(Connection connection, ConnectionClosedException cause) {
        for (PendingCall call : pending.values()) {
            if (connection == null || call.connection == connection) {
                if (pending.remove(call.id, call)) {
                    SendState state = call.settle();
                    call.fail(new ConnectionClosedException("Connection to " + transport.remoteAddress()
                            + " closed before " + call.meta.description + " was answered (" + describe(state) + ")",
                            state, cause));
                }
            }
        }
    }

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
        Invocation inv = new Invocation(Invocation.Side.CLIENT, meta.method.servicePath(),
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
        if (Boolean.TRUE.equals(connection.attribute(READONLY))) {
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
        long id = ids.getAndIncrement();
        if (meta.oneWay) {
            connection.send(DubboRequest.invocation(id, false, meta.serialization, meta.method,
                    args, attachments), WriteListener.NONE);
            return meta.async ? CompletableFuture.completedFuture(null) : MethodMeta.defaultValue(meta.returnClass);
        }
        PendingCall call = new PendingCall(id, meta, connection);
        // The caller's future must exist before the request can be answered or failed: the response, a failed
        // write or a lost connection may complete the call before send() even returns.
        CompletableFuture<Object> result = meta.async ? new CompletableFuture<>() : null;
        call.async = result;
        pending.put(id, call);
        try {
            connection.send(DubboRequest.invocation(id, true, meta.serialization, meta.method,
                    args, attachments), call);
        } catch (RuntimeException e) {
            pending.remove(id);
            throw e; // typed: FrameTooLargeException, PendingBytesExceededException, ConnectionClosedException
        }
        if (result != null) {
            // If the call already completed, the timeout finds it gone from the pending table and does nothing.
            call.timeout = timer.newTimeout(t -> timeOut(call), meta.timeoutMillis, TimeUnit.MILLISECONDS);
            return result;
        }
        try {
            DubboResponse response = (DubboResponse) call.get(meta.timeoutMillis, TimeUnit.MILLISECONDS);
            Object value = readResult(call, response);
            SluiceContext.current().setIncoming(call.responseAttachments);
            return value == null ? MethodMeta.defaultValue(meta.returnClass) : value;
        } catch (TimeoutException e) {
            pending.remove(id);
            throw timeoutException(call);
        } catch (ExecutionException e) {
            throw e.getCause();
        } catch (InterruptedException e) {
            pending.remove(id);
            Thread.currentThread().interrupt();
            throw new RpcException(0, "Interrupted while waiting for " + meta.description, false, e);
        }
    }

    /**
     * Parses a result on the thread that wants it; a value we cannot or may not read is a status-90 failure, and so
     * is anything else reading it throws (an {@link Error} from a reader included), so an asynchronous call always
     * completes.
     */
    private Object readResult(PendingCall call, DubboResponse response) {
        try {
            return response.takeValue(call.meta.valueType);
        } catch (DubboSerializationException e) {
            throw statusFailure(call, transport.remoteAddress(), DubboConstants.STATUS_CLIENT_ERROR, e.getMessage(),
                    false, e);
        } catch (RuntimeException | Error e) { // NOPMD: a reader's Error must fail the call, not lose it
            throw statusFailure(call, transport.remoteAddress(), DubboConstants.STATUS_CLIENT_ERROR,
                    "the result could not be read: " + e, false, e);
        }
    }

    /** A call that ended with a Dubbo status other than OK: sent by the peer, or ours for an answer we cannot read. */
    private static RpcException statusFailure(PendingCall call, Object peer, int status, String text,
                                              boolean retryable, Throwable cause) {
        return new RpcException(status, call.meta.description + " failed at " + peer + " with status " + status + ": "
                + text, retryable, cause);
    }

    /** Settles what the provider can have seen of a timed-out call; a call still queued is withdrawn first. */
    private RpcTimeoutException timeoutException(PendingCall call) {
        SendState state = call.settle();
        dev.sluice.transport.jfr.CallTimeoutEvent event = new dev.sluice.transport.jfr.CallTimeoutEvent();
        if (event.shouldCommit()) {
            event.method = call.meta.description;
            event.sendState = state.name();
            event.timeout = call.meta.timeoutMillis;
            event.remoteAddress = String.valueOf(transport.remoteAddress());
            event.commit();
        }
        switch (state) {
            case NOT_SENT:
                return new RpcTimeoutException("Not sent: " + call.meta.description + " was still queued for "
                        + transport.remoteAddress() + " after " + call.meta.timeoutMillis + " ms (connection slow or"
                        + " not writable) and has been withdrawn: it is never written, the provider never saw it",
                        state);
            case SENT:
                return new RpcTimeoutException("No response: " + call.meta.description + " was sent to "
                        + transport.remoteAddress() + " but no response arrived within " + call.meta.timeoutMillis
                        + " ms", state);
            default:
                return new RpcTimeoutException("Maybe sent: " + call.meta.description + " was being written to "
                        + transport.remoteAddress() + " when its " + call.meta.timeoutMillis + " ms ran out (handed to"
                        + " the socket, write not confirmed): the provider may have received it", state);
        }
    }

    private static String describe(SendState state) {
        switch (state) {
            case NOT_SENT:
                return "not sent";
            case SENT:
                return "request sent, no response";
            default:
                return "maybe sent: the request was being written";
        }
    }

    private void timeOut(PendingCall call) {
        if (pending.remove(call.id, call)) {
            call.fail(timeoutException(call));
        }
    }

    /**
     * One outstanding two-way call: completed by the response (event loop), a write failure, or a timeout.
     *
     * <p>Its request frame is queued, then taken by the drain ({@link #beforeWrite}, event loop), then written
     * ({@link #onWritten}). A caller that gives up ({@link #settle}, any thread) races the drain for the queued frame
     * with one CAS: winning withdraws it (never written: "not sent" is then a fact), losing means the frame may
     * already be leaving ("maybe sent" until the write is confirmed).
     */
    private final class PendingCall extends CompletableFuture<Object> implements WriteListener {
        private static final int QUEUED = 0;
        private static final int TAKEN = 1;
        private static final int WITHDRAWN = 2;

        final long id;
        final MethodMeta meta;
        final Connection connection;
        private final AtomicInteger writeState = new AtomicInteger(QUEUED);
        volatile boolean sent;
        volatile CompletableFuture<Object> async;
        volatile Timeout timeout;
        Map<String, Object> responseAttachments;

        PendingCall(long id, MethodMeta meta, Connection connection) {
            this.id = id;
            this.meta = meta;
            this.connection = connection;
        }

        @Override
        public boolean beforeWrite() {
            return writeState.compareAndSet(QUEUED, TAKEN);
        }

        @Override
        public void onWritten() {
            sent = true;
        }

        /** What the provider can have seen; withdraws the frame when it is still queued. Any thread. */
        SendState settle() {
            if (writeState.compareAndSet(QUEUED, WITHDRAWN) || writeState.get() == WITHDRAWN) {
                return SendState.NOT_SENT;
            }
            return sent ? SendState.SENT : SendState.UNKNOWN;
        }

        @Override
        public void onWriteOutcomeUnknown(Throwable cause) {
            if (!pending.remove(id, this)) {
                return;
            }
            // Handed to the socket, then the write failed: part of the request may have reached the provider.
            fail(new ConnectionClosedException("Maybe sent: writing " + meta.description + " to "
                    + transport.remoteAddress() + " failed after it was handed to the socket (" + cause + "); the"
                    + " provider may have received it", SendState.UNKNOWN, cause));
        }

        @Override
        public void onWriteFailed(Throwable cause) {
            if (!pending.remove(id, this)) {
                return;
            }
            if (cause instanceof ConnectionClosedException || cause instanceof java.io.IOException) {
                // The connection went away under the write (closed, reset, ClosedChannelException): the same typed
                // error as for a call waiting on it, so one catch covers a lost connection.
                fail(new ConnectionClosedException("Not sent: the connection to " + transport.remoteAddress()
                        + " closed before " + meta.description + " was written (" + cause + "); retry on another"
                        + " connection", false, cause));
                return;
            }
            fail(new RpcException(0, "Not sent: writing " + meta.description + " to "
                    + transport.remoteAddress() + " failed: " + cause, true, cause));
        }

        /** Completes with the response; its value is parsed by the waiting caller or on the callback executor. */
        void succeed(DubboResponse response) {
            responseAttachments = response.attachments();
            CompletableFuture<Object> a = async;
            if (a == null) {
                complete(response);
            } else {
                cancelTimeout();
                onCallbackExecutor(a, () -> {
                    Object value;
                    try {
                        value = readResult(this, response);
                    } catch (RpcException e) {
                        a.completeExceptionally(e);
                        return;
                    }
                    a.complete(value);
                }, "the provider answered");
            }
        }

        void fail(Throwable error) {
            CompletableFuture<Object> a = async;
            if (a == null) {
                completeExceptionally(error);
            } else {
                cancelTimeout();
                onCallbackExecutor(a, () -> a.completeExceptionally(error), "it failed: " + error);
            }
        }

        /**
         * Completes {@code a} on the callback executor. When the executor rejects the task (shut down, saturated),
         * the future still completes, with a {@link CallbackRejectedException}, on the common pool: never on the
         * event loop or the timer thread that got here, and never left pending forever.
         */
        private void onCallbackExecutor(CompletableFuture<Object> a, Runnable task, String outcome) {
            try {
                callbackExecutor.execute(task);
            } catch (RejectedExecutionException e) {
                CallbackRejectedException error = new CallbackRejectedException(meta.description + " completed ("
                        + outcome + ") but the client's callback executor rejected the task that completes its"
                        + " future: " + e.getMessage() + ". Use a callback executor that accepts every task.", e);
                log.warn("Callback executor rejected completing {}: {}", meta.description, e.toString());
                try {
                    ForkJoinPool.commonPool().execute(() -> a.completeExceptionally(error));
                } catch (RejectedExecutionException again) {
                    a.completeExceptionally(error);
                }
            }
        }

        private void cancelTimeout() {
            Timeout t = timeout;
            if (t != null) {
                t.cancel();
            }
        }
    }

    /** Event-loop side: matches responses to calls by id, answers heartbeats, notes readonly events. */
    private final class Handler implements TransportHandler {
        @Override
        public void connected(Connection connection) {
            connection.attribute(IDLE_COUNT, new AtomicInteger());
        }

        @Override
        public void received(Connection connection, Object message) {
            Object idle = connection.attribute(IDLE_COUNT);
            if (idle != null) {
                ((AtomicInteger) idle).set(0);
            }
            if (message instanceof DubboResponse) {
                DubboResponse response = (DubboResponse) message;
                if (response.isHeartbeat()) {
                    return;
                }
                PendingCall call = pending.remove(response.id());
                if (call == null) {
                    log.debug("Response {} from {} matches no waiting call (timed out?)", response.id(),
                            connection.remoteAddress());
                    return;
                }
                if (response.isOk()) {
                    if (response.hasException()) {
                        call.responseAttachments = response.attachments();
                        call.fail(response.exception());
                    } else {
                        call.succeed(response);
                    }
                } else {
                    int status = response.status();
                    boolean retryable = status == DubboConstants.STATUS_SERVER_THREADPOOL_EXHAUSTED
                            || (status == DubboConstants.STATUS_SERVER_ERROR && response.errorMessage() != null
                                    && response.errorMessage().contains("shutting down"));
                    call.fail(statusFailure(call, connection.remoteAddress(), status, response.errorMessage(),
                            retryable, null));
                }
                return;
            }
            if (message instanceof DubboRequest) {
                DubboRequest request = (DubboRequest) message;
                if (request.isHeartbeat() && request.isTwoWay()) {
                    try {
                        connection.send(DubboResponse.replyHeartbeat(request), WriteListener.NONE);
                    } catch (SluiceException e) {
                        log.debug("Heartbeat reply not sent", e);
                    }
                } else if (request.isEvent() && DubboConstants.READONLY_EVENT.equals(request.eventData())) {
                    log.info("Provider {} is shutting down (readonly event)", connection.remoteAddress());
                    connection.attribute(READONLY, Boolean.TRUE);
                } else if (request.isEvent() && DubboConstants.WRITEABLE_EVENT.equals(request.eventData())) {
                    connection.attribute(READONLY, null);
                }
            }
        }

        @Override
        public void idle(Connection connection, IdleState state) {
            if (state != IdleState.READER_IDLE) {
                return;
            }
            AtomicInteger count = (AtomicInteger) connection.attribute(IDLE_COUNT);
            int idlePeriods = count == null ? 1 : count.incrementAndGet();
            if ((long) idlePeriods * heartbeat.toMillis() >= idleTimeout.toMillis()) {
                // Nothing read for the whole idle timeout although we kept sending heartbeats: the peer is gone
                // (half-open connection). Drop it; the transport reconnects.
                log.warn("No reads from {} for {} ms; closing the connection to reconnect", connection.remoteAddress(),
                        idleTimeout.toMillis());
                connection.close();
                return;
            }
            sendHeartbeat(connection);
        }

        /** The stall probe is a two-way heartbeat, which a provider answers on its I/O thread. */
        @Override
        public boolean probe(Connection connection) {
            sendHeartbeat(connection);
            return true;
        }

        @Override
        public void stallChanged(Connection connection, boolean stalled) {
            log.debug("{} {}", connection, stalled ? "stalled: new calls refused, not sent" : "answers again");
        }

        private void sendHeartbeat(Connection connection) {
            try {
                connection.send(DubboRequest.heartbeat(ids.getAndIncrement(), defaultSerialization.id()),
                        WriteListener.NONE);
            } catch (SluiceException e) {
                log.debug("Heartbeat not sent to {}", connection.remoteAddress(), e);
            }
        }

        @Override
        public void disconnected(Connection connection, Throwable cause) {
            failAll(connection, cause instanceof ConnectionClosedException ? (ConnectionClosedException) cause
                    : new ConnectionClosedException("Connection closed", true, cause));
        }
    }

    /** Per-method facts of a proxy, computed once. */
    static final class MethodMeta {
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
            this.attachments = a; // shared by every call; never mutated after this point
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

    /** Builds a typed proxy. Not thread-safe; the proxy it makes is. */
    public final class Reference<T> {
        private final Class<T> iface;
        private String version;
        private String group;
        private Duration timeout = defaultTimeout;
        private Serialization serialization = defaultSerialization;
        private final java.util.Set<String> oneWay = new java.util.HashSet<>();
        private final Map<String, Object> fixedAttachments = new HashMap<>();

        private Reference(Class<T> iface) {
            if (!iface.isInterface()) {
                throw new IllegalArgumentException(iface.getName() + " is not an interface");
            }
            this.iface = iface;
        }

        public Reference<T> version(String version) {
            this.version = version;
            return this;
        }

        public Reference<T> group(String group) {
            this.group = group;
            return this;
        }

        /** Per-call timeout for this proxy (default: the client's, 1 s). */
        public Reference<T> timeout(Duration timeout) {
            this.timeout = Objects.requireNonNull(timeout, "timeout");
            return this;
        }

        /** The body serialization of this proxy's calls (default: the client's). */
        public Reference<T> serialization(Serialization serialization) {
            this.serialization = Objects.requireNonNull(serialization, "serialization");
            return this;
        }

        /** Sends calls of these methods one-way: no response is awaited (void methods). */
        public Reference<T> oneWay(String... methodNames) {
            oneWay.addAll(java.util.Arrays.asList(methodNames));
            return this;
        }

        /** An attachment sent with every call of this proxy. */
        public Reference<T> attachment(String key, Object value) {
            fixedAttachments.put(key, value);
            return this;
        }

        public T proxy() {
            allowlist.register(iface);
            Map<Method, MethodMeta> metas = new HashMap<>();
            for (Method m : iface.getMethods()) {
                if (m.getDeclaringClass() == Object.class || java.lang.reflect.Modifier.isStatic(m.getModifiers())) {
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
    }

    /** Client options; {@link #build()} connects. Not thread-safe. */
    public static final class Builder {
        private InetSocketAddress address;
        private TransportOptions options = TransportOptions.defaults();
        private Duration timeout = Duration.ofSeconds(1);
        private Duration heartbeat = Duration.ofSeconds(60);
        private Duration idleTimeout = Duration.ofSeconds(180);
        private Duration stallTimeout = DEFAULT_STALL_TIMEOUT;
        private Executor callbackExecutor = ForkJoinPool.commonPool();
        private EventLoops loops;
        private SslContext tls;
        private boolean failIfNotConnected;
        private Serialization serialization = Serialization.FASTJSON2;
        private final ClassAllowlist allowlist = ClassAllowlist.strict();
        private final java.util.List<SluiceInterceptor> interceptors = new java.util.ArrayList<>();

        private Builder() {
        }

        /**
         * Adds interceptors around every call of this client, after those added before: {@code onCall} runs in the
         * order added, {@code onComplete} in the reverse order. See {@link SluiceInterceptor} for threads.
         */
        public Builder intercept(SluiceInterceptor... interceptors) {
            for (SluiceInterceptor i : interceptors) {
                this.interceptors.add(Objects.requireNonNull(i, "interceptor"));
            }
            return this;
        }

        public Builder address(String host, int port) {
            this.address = new InetSocketAddress(host, port);
            return this;
        }

        public Builder address(InetSocketAddress address) {
            this.address = Objects.requireNonNull(address, "address");
            return this;
        }

        public Builder options(TransportOptions options) {
            this.options = Objects.requireNonNull(options, "options");
            return this;
        }

        /** Largest frame body accepted and sent (default 8 MiB, as Dubbo's {@code payload}). */
        public Builder payloadLimit(int bytes) {
            this.options = options.toBuilder().payloadLimit(bytes).build();
            return this;
        }

        /**
         * Stall detection (default {@link #DEFAULT_STALL_TIMEOUT}, 1 s; {@link Duration#ZERO} turns it off). When
         * calls were written and nothing at all was read for {@code timeout}, a heartbeat goes out; when that too is
         * unanswered for {@code timeout}, the connection is stalled and new calls fail at once with
         * {@link ConnectionStalledException} (not sent), until the provider sends anything. Calls already sent keep
         * their own timeouts. A provider answers heartbeats on its I/O thread, so a slow method or a busy service
         * pool is not a stall. See {@link TransportOptions#stallTimeout()}.
         */
        public Builder stallTimeout(Duration timeout) {
            Objects.requireNonNull(timeout, "timeout");
            if (timeout.isNegative()) {
                throw new IllegalArgumentException("stall timeout must be >= 0 (0 turns detection off), got "
                        + timeout);
            }
            this.stallTimeout = timeout;
            return this;
        }

        /** Default per-call timeout (1 s, as Dubbo). */
        public Builder timeout(Duration timeout) {
            this.timeout = Objects.requireNonNull(timeout, "timeout");
            return this;
        }

        /**
         * Sends a heartbeat after {@code interval} without reads (default 60 s), and reconnects after
         * {@code idleTimeout} without reads (default 180 s; at least twice the interval).
         */
        public Builder heartbeat(Duration interval, Duration idleTimeout) {
            if (idleTimeout.compareTo(interval.multipliedBy(2)) < 0) {
                throw new IllegalArgumentException("idle timeout " + idleTimeout + " must be at least twice the"
                        + " heartbeat interval " + interval);
            }
            this.heartbeat = interval;
            this.idleTimeout = idleTimeout;
            return this;
        }

        /** Where {@code CompletableFuture} results complete (default the common pool). */
        public Builder callbackExecutor(Executor executor) {
            this.callbackExecutor = Objects.requireNonNull(executor, "executor");
            return this;
        }

        public Builder eventLoops(EventLoops loops) {
            this.loops = loops;
            return this;
        }

        /** Uses TLS with this client context; the certificate must match the host name. */
        public Builder tls(SslContext clientContext) {
            this.tls = clientContext;
            return this;
        }

        /** Extra classes accepted from the wire (e.g. undeclared exception types). */
        public Builder allowClasses(String... classNames) {
            allowlist.allow(classNames);
            return this;
        }

        /**
         * The body serialization of calls (default {@link Serialization#FASTJSON2}; a reference may choose another).
         * A Dubbo 3.3 provider accepts both; a Dubbo 2.7 provider, and a 3.3 provider configured so, only
         * {@link Serialization#HESSIAN2}. Responses are read in whatever serialization they arrive in.
         */
        public Builder serialization(Serialization serialization) {
            this.serialization = Objects.requireNonNull(serialization, "serialization");
            return this;
        }

        /** Fail {@link #build()} when the first connect fails, instead of reconnecting in the background. */
        public Builder failIfNotConnected(boolean fail) {
            this.failIfNotConnected = fail;
            return this;
        }

        public SluiceClient build() {
            Objects.requireNonNull(address, "address is required");
            return new SluiceClient(this);
        }
    }
}
