package dev.sluice.dubbo;

import dev.sluice.transport.Connection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.dubbo.common.URL;
import org.apache.dubbo.common.constants.CommonConstants;
import org.apache.dubbo.remoting.exchange.Request;
import org.apache.dubbo.remoting.exchange.Response;
import org.apache.dubbo.rpc.Result;
import org.apache.dubbo.rpc.RpcInvocation;
import org.apache.dubbo.rpc.model.MethodDescriptor;
import org.apache.dubbo.rpc.model.ModuleModel;
import org.apache.dubbo.rpc.model.ServiceDescriptor;
import org.apache.dubbo.rpc.model.ServiceMetadata;
import org.apache.dubbo.rpc.model.ServiceModel;

/**
 * The per-call timers of one connection of the Dubbo {@code sluice} Transporter (only with {@code sluice.metrics}):
 * two-way requests (not events) waiting for their response, by request id, and the timer each ends in.
 *
 * <ul>
 *   <li><b>Server:</b> the clock starts when a request is received ({@link #received}, event loop) and stops when
 *       its response is handed to the write queue ({@link #sent}, the provider's thread), outcome from the response.
 *       {@code interface}/{@code group}/{@code version}/{@code method} are those Dubbo's protocol resolved the
 *       request to (the invocation's {@code ServiceModel}, set only for an exported service, and a method of its
 *       descriptor); anything else is tagged {@code unknown}, so a peer cannot create tag values.</li>
 *   <li><b>Client:</b> the clock starts when a two-way request is sent ({@link #sending}, the caller's thread) and
 *       stops when its response has been received and its result decoded ({@link #responseReceived}, Dubbo's
 *       consumer thread or the event loop), so it covers what the caller waits for, as the standalone client's timer
 *       does. {@code interface}/{@code group}/{@code version}/{@code method} are the invocation's own (its
 *       reference's service metadata), which the local application chose.</li>
 * </ul>
 *
 * <p><b>Bounded.</b> Dubbo's timeouts never reach the transport ({@code DefaultFuture} times out by itself), so a
 * sweep on the connection's event loop, scheduled only while entries wait, every {@value #SWEEP_MILLIS} ms, removes
 * client entries past their call's timeout (the invocation's {@code timeout} attachment, else the URL's) and records
 * them as {@code timeout}; server entries whose response never left within {@link #LIMIT_NANOS} as {@code failure}.
 * No entry lives longer than {@link #LIMIT_NANOS}. A closed connection records what still waits as {@code failure}
 * (Dubbo fails those calls as the channel closes) and keeps nothing. A connection tracks at most
 * {@value #MAX_PENDING} calls at once; calls above that are not timed.
 *
 * <p>Threads: as said per method; thread-safe (a concurrent map; each entry is removed, and recorded, by exactly one
 * thread). Loop-only methods assert {@code inEventLoop()}.
 */
final class CallClock {
    /** Most calls of one connection timed at once. */
    static final int MAX_PENDING = 65_536;
    /** The longest an entry is kept, whatever the call's timeout. */
    static final long LIMIT_NANOS = TimeUnit.MINUTES.toNanos(10);
    /** Period of the sweep while entries wait. */
    static final long SWEEP_MILLIS = 100;

    private final Connection connection;
    private final CallMeters meters;
    private final boolean client;
    private final long defaultTimeoutNanos;
    /** The endpoint URL's {@code application}: the application name when an invocation's service model has none. */
    private final String application;
    private final ConcurrentHashMap<Long, Pending> pending = new ConcurrentHashMap<>();
    private final AtomicBoolean sweepScheduled = new AtomicBoolean();
    private final Runnable sweep = this::sweep;
    private volatile boolean closed;

    /**
     * @param client true for a consumer's connection
     * @param url the endpoint's URL: its {@code timeout} is the client's default call timeout
     */
    CallClock(Connection connection, CallMeters meters, boolean client, URL url) {
        this.connection = connection;
        this.meters = meters;
        this.client = client;
        this.defaultTimeoutNanos = boundedMillis(
                url.getParameter(CommonConstants.TIMEOUT_KEY, (long) CommonConstants.DEFAULT_TIMEOUT));
        this.application = none(url.getApplication());
    }

    /** One call waiting for its response. */
    private static final class Pending {
        final long start;
        final long deadline;
        /** Client: the timers, resolved when sent. Server: null (resolved from {@link #request} at the end). */
        final CallMeters.Method method;
        /** Server: the request, whose invocation Dubbo decodes and resolves on its provider thread. */
        final Request request;

        Pending(long start, long deadline, CallMeters.Method method, Request request) {
            this.start = start;
            this.deadline = deadline;
            this.method = method;
            this.request = request;
        }
    }

    /** Two-way and not an event (heartbeats, readonly): a call someone waits for. */
    private static Request call(Object message) {
        if (message instanceof Request) {
            Request r = (Request) message;
            return r.isTwoWay() && !r.isEvent() ? r : null;
        }
        return null;
    }

    /** Client, caller's thread, before the request is encoded and queued: its clock starts. */
    void sending(Object message) {
        Request request = client ? call(message) : null;
        if (request == null) {
            return;
        }
        Object data = request.getData();
        CallMeters.Method method;
        long timeout = defaultTimeoutNanos;
        if (data instanceof RpcInvocation) {
            RpcInvocation inv = (RpcInvocation) data;
            ServiceModel model = inv.getServiceModel();
            ServiceMetadata service = model == null ? null : model.getServiceMetadata();
            method = service != null && service.getServiceInterfaceName() != null
                    ? meters.method(application(model), service.getServiceInterfaceName(), none(service.getGroup()),
                            none(service.getVersion()), name(inv.getMethodName()))
                    : meters.method(application, name(inv.getServiceName()), CallMeters.NONE, CallMeters.NONE,
                            name(inv.getMethodName()));
            timeout = timeoutNanos(inv.getObjectAttachmentWithoutConvert(CommonConstants.TIMEOUT_KEY), timeout);
        } else {
            method = unknown();
        }
        long now = System.nanoTime();
        track(request.getId(), new Pending(now, now + timeout, method, null));
    }

    /**
     * Caller's thread (client requests) or provider's thread (server responses), after the send: {@code queued}
     * true when the message went onto the write queue, false when the send failed. A server's response stops its
     * request's clock; a client's request that was not sent ends as {@code failure}.
     */
    void sent(Object message, boolean queued) {
        if (client) {
            Request request = queued ? null : call(message);
            if (request != null) {
                end(request.getId(), CallMeters.Outcome.FAILURE);
            }
        } else if (message instanceof Response && !((Response) message).isEvent()) {
            Response response = (Response) message;
            end(response.getId(), queued ? outcome(response) : CallMeters.Outcome.FAILURE);
        }
    }

    /** Event loop: a message was decoded. On a server, a two-way request's clock starts. */
    void received(Object message) {
        assert connection.inEventLoop();
        Request request = client ? null : call(message);
        if (request != null) {
            long now = System.nanoTime();
            track(request.getId(), new Pending(now, now + LIMIT_NANOS, null, request));
        }
    }

    /**
     * Client, the thread Dubbo delivers the response on (its consumer thread, or the event loop), with the result
     * already decoded: the request's clock stops.
     */
    void responseReceived(Response response) {
        if (client && !response.isEvent()) {
            end(response.getId(), outcome(response));
        }
    }

    /** Event loop, when the connection has closed: what still waits ends as {@code failure}; nothing is kept. */
    void closed() {
        assert connection.inEventLoop();
        closed = true;
        long now = System.nanoTime();
        for (Map.Entry<Long, Pending> e : pending.entrySet()) {
            if (pending.remove(e.getKey(), e.getValue())) {
                record(e.getValue(), CallMeters.Outcome.FAILURE, now);
            }
        }
    }

    /** Calls waiting for their response (tests). */
    int pendingCount() {
        return pending.size();
    }

    private void track(long id, Pending p) {
        if (closed || pending.size() >= MAX_PENDING) {
            return; // not timed: the connection is gone, or too many calls wait at once
        }
        pending.put(id, p);
        if (closed) { // closed() may have iterated before the put: nothing may stay behind
            if (pending.remove(id, p)) {
                record(p, CallMeters.Outcome.FAILURE, System.nanoTime());
            }
            return;
        }
        if (!sweepScheduled.get() && sweepScheduled.compareAndSet(false, true)) {
            scheduleSweep();
        }
    }

    private void end(long id, CallMeters.Outcome outcome) {
        Pending p = pending.remove(id);
        if (p != null) {
            record(p, outcome, System.nanoTime());
        }
    }

    private void record(Pending p, CallMeters.Outcome outcome, long now) {
        CallMeters.Method method = p.method != null ? p.method : serverMethod(p.request);
        method.record(outcome, now - p.start);
    }

    private void scheduleSweep() {
        Executor loop = connection.executor();
        if (!(loop instanceof ScheduledExecutorService)) {
            return; // no timer to sweep with (never the case on a Netty connection): close still empties the map
        }
        try {
            ((ScheduledExecutorService) loop).schedule(sweep, SWEEP_MILLIS, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            sweepScheduled.set(false); // the loop is shutting down; the connection's close empties the map
        }
    }

    /** Event loop: ends the entries past their deadline, and comes back while any wait. */
    private void sweep() {
        assert connection.inEventLoop();
        long now = System.nanoTime();
        CallMeters.Outcome expired = client ? CallMeters.Outcome.TIMEOUT : CallMeters.Outcome.FAILURE;
        for (Map.Entry<Long, Pending> e : pending.entrySet()) {
            Pending p = e.getValue();
            if (now - p.deadline >= 0 && pending.remove(e.getKey(), p)) {
                record(p, expired, now);
            }
        }
        sweepScheduled.set(false);
        if (!closed && !pending.isEmpty() && sweepScheduled.compareAndSet(false, true)) {
            scheduleSweep();
        }
    }

    /** The outcome a response says, with its result decoded: the same classification as the standalone client's. */
    static CallMeters.Outcome outcome(Response response) {
        byte status = response.getStatus();
        if (status == Response.OK) {
            Object result = response.getResult();
            return result instanceof Result && ((Result) result).hasException()
                    ? CallMeters.Outcome.APPLICATION_EXCEPTION : CallMeters.Outcome.SUCCESS;
        }
        return status == Response.CLIENT_TIMEOUT || status == Response.SERVER_TIMEOUT
                ? CallMeters.Outcome.TIMEOUT : CallMeters.Outcome.FAILURE;
    }

    /**
     * Server: the service (interface, group, version) and method Dubbo's protocol resolved the request to, or
     * {@code unknown}: the invocation's {@code ServiceModel} is set only once the protocol found an exported service
     * for it, and the method must be one of that service's descriptor. Never a name only the peer sent.
     */
    private CallMeters.Method serverMethod(Request request) {
        Object data = request.getData();
        if (data instanceof RpcInvocation) {
            RpcInvocation inv = (RpcInvocation) data;
            ServiceModel model = inv.getServiceModel();
            ServiceDescriptor service = model == null ? null : model.getServiceModel();
            if (service != null && service.getInterfaceName() != null) {
                String name = inv.getMethodName();
                List<MethodDescriptor> methods = name == null ? null : service.getMethods(name);
                ServiceMetadata metadata = model.getServiceMetadata();
                return meters.method(application(model), service.getInterfaceName(),
                        metadata == null ? CallMeters.NONE : none(metadata.getGroup()),
                        metadata == null ? CallMeters.NONE : none(metadata.getVersion()),
                        methods == null || methods.isEmpty() ? CallMeters.UNKNOWN : name);
            }
        }
        return unknown();
    }

    private CallMeters.Method unknown() {
        return meters.method(application, CallMeters.UNKNOWN, CallMeters.NONE, CallMeters.NONE, CallMeters.UNKNOWN);
    }

    /** The name of the application the service belongs to (as Dubbo's own meters tag it), else the URL's. */
    private String application(ServiceModel model) {
        ModuleModel module = model.getModuleModel();
        String name = module == null ? null : module.getApplicationModel().getApplicationName();
        return name == null || name.isEmpty() ? application : name;
    }

    private static String name(String s) {
        return s == null || s.isEmpty() ? CallMeters.UNKNOWN : s;
    }

    private static String none(String s) {
        return s == null ? CallMeters.NONE : s;
    }

    /** The invocation's {@code timeout} attachment (a number or its text, in ms), bounded; else the default. */
    private static long timeoutNanos(Object attachment, long otherwise) {
        if (attachment instanceof Number) {
            return boundedMillis(((Number) attachment).longValue());
        }
        if (attachment instanceof String) {
            try {
                return boundedMillis(Long.parseLong(((String) attachment).trim()));
            } catch (NumberFormatException e) {
                return otherwise;
            }
        }
        return otherwise;
    }

    private static long boundedMillis(long millis) {
        return Math.min(LIMIT_NANOS, TimeUnit.MILLISECONDS.toNanos(Math.max(1, millis)));
    }
}
