package dev.sluice.rpc;

import dev.sluice.codec.dubbo.DubboMethod;
import dev.sluice.codec.dubbo.DubboRequest;
import dev.sluice.codec.dubbo.DubboResponse;
import dev.sluice.codec.dubbo.internal.DubboConstants;
import dev.sluice.codec.dubbo.internal.InterfaceTypeResolver;
import dev.sluice.transport.Connection;
import dev.sluice.transport.IdleState;
import dev.sluice.transport.TransportHandler;
import dev.sluice.transport.internal.LogLimiter;
import java.lang.ref.Cleaner;
import java.lang.reflect.Method;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The transport half of a {@link SluiceServer}: takes each decoded request, answers heartbeats and broken requests,
 * refuses what it must not run (a serialization not accepted, the server closing, an unknown service or method, the
 * service pool full by count or by bytes), answers {@code $echo}, finds the target of a generic call
 * ({@link GenericCalls}), and hands the rest to the service executor, where {@link ServiceInvoker} runs it. Closes
 * connections idle for the idle timeout.
 *
 * <p>Threads: every method runs on the connection's event loop and never blocks (with {@code directExecutor()} the
 * service method itself runs here too). Its counters are read by any thread ({@link SluiceServer#stats()}).
 */
final class ServerHandler implements TransportHandler {
    private static final Logger log = LoggerFactory.getLogger(ServerHandler.class);
    /** A peer can provoke these lines, one per connection it opens (docs/reliability.md A9b). */
    private static final LogLimiter IDLE_CLOSES = new LogLimiter();
    private static final String SERIALIZATION = "sluice.serialization";

    private final Map<String, Object> services;
    private final InterfaceTypeResolver resolver;
    private final Executor executor;
    /** Accepted body serializations, indexed by header id (0..31). */
    private final boolean[] accepted;
    private final String acceptedNames;
    private final long queuedBytesLimit;
    /** Wire bytes of requests handed to the executor whose invocation has not started yet. */
    private final AtomicLong queuedBytes = new AtomicLong();
    private final AtomicLong refusedRequests = new AtomicLong();
    private final InFlight inFlight;
    private final Replies replies;
    private final ServiceInvoker invoker;
    /** True for an executor not known to either run or reject every task: see {@link Ticket}. */
    private final boolean watchDiscards;
    private final AtomicBoolean warnedLost = new AtomicBoolean();
    /**
     * Test seam: runs on the event loop after a request passed every check and before it is counted in; null in
     * production. Final, so the request path reads no volatile for it.
     */
    private final Runnable beforeCounting;

    ServerHandler(Map<String, Object> services, InterfaceTypeResolver resolver, Executor executor, boolean[] accepted,
                  String acceptedNames, long queuedBytesLimit, InFlight inFlight, Replies replies,
                  ServiceInvoker invoker, boolean watchDiscards, Runnable beforeCounting) {
        this.services = services;
        this.resolver = resolver;
        this.executor = executor;
        this.accepted = accepted;
        this.acceptedNames = acceptedNames;
        this.queuedBytesLimit = queuedBytesLimit;
        this.inFlight = inFlight;
        this.replies = replies;
        this.invoker = invoker;
        this.watchDiscards = watchDiscards;
        this.beforeCounting = beforeCounting;
    }

    /** Requests answered with status 100 without being executed. Any thread. */
    long refusedRequests() {
        return refusedRequests.get();
    }

    /** Wire bytes of requests waiting for the service pool now. Any thread. */
    long queuedBytes() {
        return queuedBytes.get();
    }

    /** Event loop: remembers the serialization a connection's caller speaks, for the events sent to it. */
    private static void noteSerialization(Connection connection, byte id) {
        Object seen = connection.attribute(SERIALIZATION);
        if (seen == null || (Byte) seen != id) {
            connection.attribute(SERIALIZATION, id);
        }
    }

    /**
     * The serialization of the readonly event sent to {@code c}: what its caller last used, else hessian2, which
     * every Dubbo consumer reads (a Dubbo 2.7 consumer knows no fastjson2).
     */
    static byte eventSerialization(Connection c) {
        Object seen = c.attribute(SERIALIZATION);
        return seen == null ? DubboConstants.SERIALIZATION_HESSIAN2 : (Byte) seen;
    }

    @Override
    public void received(Connection connection, Object message) {
        assert connection.inEventLoop();
        if (!(message instanceof DubboRequest)) {
            return; // responses (to nothing we sent but events) carry no buffers
        }
        DubboRequest request = (DubboRequest) message;
        if (request.isHeartbeat()) {
            if (request.isTwoWay()) {
                replies.reply(connection, DubboResponse.replyHeartbeat(request));
            }
            return;
        }
        if (request.isBroken()) {
            log.debug("Bad request {} from {}: {}", request.id(), connection.remoteAddress(),
                    request.errorMessage());
            if (request.isTwoWay()) {
                replies.reply(connection, DubboResponse.replyError(request, request.brokenStatus(),
                        request.errorMessage()));
            }
            return;
        }
        if (request.isEvent()) {
            return;
        }
        noteSerialization(connection, request.serializationId());
        if (!accepted[request.serializationId()]) {
            if (request.isTwoWay()) {
                Serialization ser = Serialization.ofId(request.serializationId());
                replies.reply(connection, DubboResponse.replyError(request, DubboConstants.STATUS_BAD_REQUEST,
                        "Serialization " + (ser == null ? "id " : ser.dubboName() + ", id ")
                                + request.serializationId() + ", is not accepted by this server; it accepts "
                                + acceptedNames + ": configure serialization= on the consumer"));
            }
            return;
        }
        if (inFlight.closing()) {
            refuseClosing(connection, request);
            return;
        }
        Target target = target(request);
        Object impl = target.impl;
        Method method = target.method;
        if (impl != null && method == null && DubboConstants.ECHO_METHOD.equals(request.methodName())
                && DubboConstants.ECHO_DESC.equals(request.parameterTypesDesc())) {
            // Dubbo's EchoFilter: any exported service answers $echo(x) with x. Every Dubbo consumer proxy
            // implements EchoService, and callers use it as a liveness check.
            replies.answer(connection, request, Replies.withAttachments(request, request.arguments()[0], null, null));
            return;
        }
        GenericCalls.Target generic = null;
        if (impl != null && method == null && GenericCalls.isGeneric(request)) {
            // Dubbo's GenericService.$invoke: the target method is named by the arguments (GenericCalls).
            generic = GenericCalls.target(request,
                    resolver.serviceInterface(request.servicePath(), request.serviceVersion()));
            if (generic.error != null) {
                if (request.isTwoWay()) {
                    replies.reply(connection, DubboResponse.replyError(request, generic.status, generic.error));
                }
                return;
            }
            method = generic.method;
        }
        if (impl == null || method == null) {
            if (request.isTwoWay()) {
                replies.reply(connection, DubboResponse.replyError(request, DubboConstants.STATUS_BAD_REQUEST,
                        "Service not found: " + request.servicePath() + ":" + request.serviceVersion()
                                + (request.group() == null ? "" : " group " + request.group()) + " method "
                                + request.methodName() + "(" + request.parameterTypesDesc() + ")"));
            }
            return;
        }
        long bytes = Math.max(request.frameBytes(), request.decodedEstimate()); // decoded values outweigh the wire
        long queued = reserveQueuedBytes(bytes);
        if (queued >= 0) {
            refusedRequests.incrementAndGet();
            log.debug("Refused request {} from {}: {} bytes of requests already wait for the service pool,"
                    + " budget {}",
                    request.id(), connection.remoteAddress(), queued, queuedBytesLimit);
            if (request.isTwoWay()) {
                replies.reply(connection, DubboResponse.replyError(request,
                        DubboConstants.STATUS_SERVER_THREADPOOL_EXHAUSTED,
                        "Server " + connection.localAddress() + " thread pool is exhausted: " + queued + " bytes of"
                                + " requests already wait for it, and this " + bytes + "-byte request would exceed"
                                + " its budget of " + queuedBytesLimit + " bytes; the call was not executed, retry"
                                + " later or on another provider"));
            }
            return;
        }
        if (beforeCounting != null) {
            beforeCounting.run();
        }
        // Count the call in first, then look at closing (docs/reliability.md E25e): close() sets closing, then reads
        // the count. Checked the other way round, close() could read 0 between this thread's check and its count,
        // close the connections, and refuse the answer of a call that ran.
        boolean alone = inFlight.started() == 1;
        if (inFlight.closing()) {
            queuedBytes.addAndGet(-bytes);
            inFlight.finished();
            refuseClosing(connection, request);
            return;
        }
        Call call = new Call(new Ticket(connection, request, bytes), impl, method, generic);
        if (watchDiscards) {
            call.cleanable = Discards.CLEANER.register(call, call.ticket);
        }
        try {
            executor.execute(call);
            if (alone && inFlight.count() > 0) {
                // No other call in flight, and this one not answered yet (a direct executor, or a worker quicker
                // than this line, already has): keep the loop up for its answer.
                connection.answerDue();
            }
        } catch (RejectedExecutionException e) {
            call.ticket.refuse("thread pool is exhausted", e);
        } catch (Throwable t) { // NOPMD: an Error from execute (a thread that could not start) must not leak the call
            call.ticket.refuse("thread pool failed to take the call (" + t + ")", t);
        }
    }

    /** Event loop: answers that the server is closing and did not execute the call. */
    private void refuseClosing(Connection connection, DubboRequest request) {
        if (request.isTwoWay()) {
            replies.reply(connection, DubboResponse.replyError(request, DubboConstants.STATUS_SERVER_ERROR,
                    "Server " + connection.localAddress() + " is shutting down; the call was not executed,"
                            + " retry on another provider"));
        }
    }

    /**
     * Counts {@code bytes} against the budget of requests waiting for the pool. Returns -1 when they fit, else
     * the bytes already waiting. A request is always let in when nothing waits, so one frame larger than the
     * budget is not refused forever.
     */
    private long reserveQueuedBytes(long bytes) {
        for (;;) {
            long queued = queuedBytes.get();
            if (queued > 0 && queued + bytes > queuedBytesLimit) {
                return queued;
            }
            if (queuedBytes.compareAndSet(queued, queued + bytes)) {
                return -1;
            }
        }
    }

    @Override
    public void idle(Connection connection, IdleState state) {
        assert connection.inEventLoop();
        if (state == IdleState.ALL_IDLE) {
            IDLE_CLOSES.info(log, "Closing idle connection {} (no traffic within the idle timeout)", connection);
            connection.close();
        }
    }

    /**
     * What a request handed to the executor holds, the bytes charged to the budget and its place in
     * {@link InFlight}, given back exactly once: by the task as it starts ({@link #claim}), or by {@link #refuse} when
     * the executor will not run it (docs/reliability.md E25c). {@code execute} may reject the task, throw an
     * {@link Error} (a thread that could not start), or, with a discarding {@code RejectedExecutionHandler}, drop it
     * silently; the last is seen only when the dropped task becomes unreachable, so for executors that may do it a
     * {@link Cleaner} watches each task, and this ticket is its action (it must not reach the task itself).
     * Whoever claims first wins: a task that runs after its call was refused does nothing, since its caller was told
     * it was not executed. Threads: any (the event loop, a service thread, the cleaner's thread).
     */
    private final class Ticket extends AtomicBoolean implements Runnable {
        final Connection connection;
        final DubboRequest request;
        final long bytes;

        Ticket(Connection connection, DubboRequest request, long bytes) {
            this.connection = connection;
            this.request = request;
            this.bytes = bytes;
        }

        boolean claim() {
            return compareAndSet(false, true);
        }

        /** The cleaner's action: the task became unreachable. A no-op once it ran or was refused. */
        @Override
        public void run() {
            refuse("thread pool dropped the call without running or rejecting it (a discarding"
                    + " RejectedExecutionHandler?)", null);
        }

        /** Gives back what the call holds and answers status 100, unless it ran or was refused already. */
        void refuse(String what, Throwable cause) {
            if (!claim()) {
                return;
            }
            queuedBytes.addAndGet(-bytes);
            inFlight.finished();
            refusedRequests.incrementAndGet();
            if (cause instanceof RejectedExecutionException) {
                log.debug("Refused request {} from {}: the service pool rejected it ({})", request.id(),
                        connection.remoteAddress(), cause.getMessage());
            } else if (warnedLost.compareAndSet(false, true)) {
                log.warn("Refused request {} from {}: the service {}; answered with status 100 (logged once,"
                        + " counted in refusedRequests)", request.id(), connection.remoteAddress(), what, cause);
            }
            if (request.isTwoWay()) {
                replies.reply(connection, DubboResponse.replyError(request,
                        DubboConstants.STATUS_SERVER_THREADPOOL_EXHAUSTED,
                        "Server " + connection.localAddress() + " " + what + "; the call was not executed, retry"
                                + " later or on another provider"));
            }
        }
    }

    /** A request's task for the executor: runs the call once, unless its {@link Ticket} was refused first. */
    private final class Call implements Runnable {
        final Ticket ticket;
        final Object impl;
        final Method method;
        /** The generic call this runs, or null for a typed one. */
        final GenericCalls.Target generic;
        /** Set before {@code execute}, so the thread that runs the task sees it; null when not watched. */
        Cleaner.Cleanable cleanable;

        Call(Ticket ticket, Object impl, Method method, GenericCalls.Target generic) {
            this.ticket = ticket;
            this.impl = impl;
            this.method = method;
            this.generic = generic;
        }

        @Override
        public void run() {
            boolean mine = ticket.claim();
            if (cleanable != null) {
                cleanable.clean(); // unregisters; its action finds the ticket claimed
            }
            if (mine) {
                queuedBytes.addAndGet(-ticket.bytes);
                invoker.invoke(ticket.connection, ticket.request, impl, method, generic);
            }
        }
    }

    /** The one cleaner thread, started only when a server watches for discarded tasks. */
    private static final class Discards {
        static final Cleaner CLEANER = Cleaner.create();
    }

    /** A request's service and method as this handler resolved them, for a target and group. */
    private static final class Target {
        final ServerHandler owner;
        final String group;
        final Object impl;
        final Method method;

        Target(ServerHandler owner, String group, Object impl, Method method) {
            this.owner = owner;
            this.group = group;
            this.impl = impl;
            this.method = method;
        }
    }

    /**
     * The service and method {@code request} calls: kept on its {@link DubboMethod}, which the decoder reuses for every
     * request of the connection naming the same target, so a repeated call builds no lookup keys (two string
     * concatenations and their hashes per call, about a tenth of the server's samples at 4 x 64 async calls).
     */
    private Target target(DubboRequest request) {
        DubboMethod m = request.method();
        String group = request.group();
        Object kept = m.resolution();
        if (kept instanceof Target) {
            Target t = (Target) kept;
            if (t.owner == this && java.util.Objects.equals(t.group, group)) {
                return t;
            }
        }
        Target t = new Target(this, group,
                services.get(SluiceServer.serviceKey(request.servicePath(), request.serviceVersion(), group)),
                resolver.method(request.servicePath(), request.serviceVersion(), request.methodName(),
                        request.parameterTypesDesc()));
        m.resolution(t);
        return t;
    }
}
