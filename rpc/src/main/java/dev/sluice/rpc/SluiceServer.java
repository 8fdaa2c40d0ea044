package dev.sluice.rpc;

import dev.sluice.codec.dubbo.ClassAllowlist;
import dev.sluice.codec.dubbo.DubboCodec;
import dev.sluice.codec.dubbo.DubboRequest;
import dev.sluice.codec.dubbo.internal.DubboConstants;
import dev.sluice.codec.dubbo.internal.InterfaceTypeResolver;
import dev.sluice.transport.Connection;
import dev.sluice.transport.SluiceException;
import dev.sluice.transport.TransportOptions;
import dev.sluice.transport.WriteListener;
import dev.sluice.transport.internal.ServicePool;
import dev.sluice.transport.netty.NettyServerTransport;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A standalone Dubbo-protocol server: real Dubbo consumers (hessian2, Dubbo 3.3's default, or fastjson2) and
 * {@link SluiceClient}s call the registered implementations.
 *
 * <pre>{@code
 * SluiceServer server = SluiceServer.builder().port(0)
 *         .register(UserService.class, new UserServiceImpl()).start();
 * }</pre>
 *
 * <p>Threads: requests are decoded on the event loop and the service methods run on the server's executor, never
 * on the event loop unless {@link Builder#directExecutor()} is chosen. The default executor is Sluice's hot-worker
 * pool of at most 200 threads (as Dubbo's), which avoids a thread wake-up per call under load;
 * {@link Builder#hotWorkers(boolean) hotWorkers(false)} swaps in a plain {@code ThreadPoolExecutor} of the same bounds.
 * Heartbeats are answered on the event loop. Thread-safe.
 *
 * <p>Limits, each a {@link Builder} option with a default: connections in total and per remote address
 * ({@link Builder#maxConnections}), the time a frame may take to arrive ({@link Builder#frameTimeout}), requests
 * waiting for the service pool by count ({@link Builder#threads}) and by bytes ({@link Builder#queuedRequestBytes}),
 * the payload limit and the pending-bytes cap ({@link Builder#options}). Refused connections are closed with a
 * logged reason, refused requests answered with status 100; {@link #stats()} counts both.
 *
 * <p>This class is the facade, the builder and the graceful close. The work is split by thread, as
 * docs/ARCHITECTURE.md draws it: {@link ServerHandler} takes requests on the event loop (the transport half),
 * {@link ServiceInvoker} runs the service methods on the executor (the application half), {@link Replies} is the
 * reply path both use, and {@link InFlight} counts the calls a graceful close waits for.
 */
public final class SluiceServer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(SluiceServer.class);

    private final NettyServerTransport transport;
    private final ExecutorService ownedExecutor;
    private final InFlight inFlight = new InFlight();
    private final Replies replies = new Replies();
    private final ServerHandler handler;
    private final AtomicLong eventIds = new AtomicLong(ThreadLocalRandom.current().nextLong());
    private final AtomicBoolean closed = new AtomicBoolean();
    private final CompletableFuture<Void> closeFuture = new CompletableFuture<>();

    private SluiceServer(Builder b, TransportOptions options) {
        ClassAllowlist allowlist = b.allowlist;
        boolean[] accepted = new boolean[32];
        for (Serialization ser : b.serializations) {
            accepted[ser.id()] = true;
        }
        String acceptedNames = b.serializations.stream().map(Serialization::dubboName)
                .collect(java.util.stream.Collectors.joining(", "));
        InterfaceTypeResolver resolver = new InterfaceTypeResolver(allowlist);
        for (Registration r : b.registrations) {
            resolver.register(r.path, r.version, r.iface);
        }
        Executor executor;
        if (b.executor != null) {
            executor = b.executor;
            this.ownedExecutor = null;
        } else if (b.hotWorkers) {
            ServicePool pool = new ServicePool(b.threads, b.queueCapacity);
            executor = pool;
            this.ownedExecutor = pool;
        } else {
            ThreadPoolExecutor pool = new ThreadPoolExecutor(b.threads, b.threads, 60, TimeUnit.SECONDS,
                    new LinkedBlockingQueue<>(b.queueCapacity), r -> {
                        Thread t = new Thread(r, "sluice-service-" + THREADS.incrementAndGet());
                        t.setDaemon(true);
                        return t;
                    });
            pool.allowCoreThreadTimeOut(true);
            executor = pool;
            this.ownedExecutor = pool;
        }
        DubboCodec codec = DubboCodec.builder().payloadLimit(b.transportOptions().payloadLimit()).allowlist(allowlist)
                .decodeLimits(b.decodeLimits)
                .resolver(resolver).build();
        ServiceInvoker invoker = new ServiceInvoker(Interceptors.of(b.interceptors), b.applicationName, replies,
                inFlight, new GenericCalls(allowlist));
        this.handler = new ServerHandler(new ConcurrentHashMap<>(b.services), resolver, executor, accepted,
                acceptedNames, b.queuedBytesLimit, inFlight, replies, invoker, b.executor != null && !b.direct,
                b.beforeCounting);
        this.transport = b.transport.options(options).codec(codec).handler(handler)
                .eventLoops(b.loops()).tls(b.tlsContext()).bind();
    }

    private static final AtomicInteger THREADS = new AtomicInteger();
    /** Default of {@link Builder#queuedRequestBytes}: 64 MiB. */
    public static final long DEFAULT_QUEUED_REQUEST_BYTES = 64L * 1024 * 1024;
    /** Default total of {@link Builder#maxConnections}. */
    public static final int DEFAULT_MAX_CONNECTIONS = 10_000;
    /** Default per-address limit of {@link Builder#maxConnections}. */
    public static final int DEFAULT_MAX_CONNECTIONS_PER_ADDRESS = 1_000;
    /** Default of {@link Builder#idleTimeout}: 180 s, as Dubbo's. */
    public static final Duration DEFAULT_IDLE_TIMEOUT = Duration.ofSeconds(180);
    /** Default of {@link Builder#frameTimeout}. */
    public static final Duration DEFAULT_FRAME_TIMEOUT = Duration.ofSeconds(30);

    public static Builder builder() {
        return new Builder();
    }

    /** The bound port. */
    public int port() {
        return transport.port();
    }

    public InetSocketAddress localAddress() {
        return transport.localAddress();
    }

    /** Calls accepted and not yet answered. */
    public int inFlight() {
        return inFlight.count();
    }

    /** A snapshot of the server's counters, for monitoring. Any thread. */
    public Stats stats() {
        return new Stats(transport.connections().size(), replies.dropped(), transport.refusedConnections(),
                transport.frameTimeouts(), handler.refusedRequests(), handler.queuedBytes());
    }

    /**
     * Graceful stop: stops accepting connections, sends Dubbo's readonly event to every client so it routes new
     * calls elsewhere, rejects new calls with a retryable error, waits up to {@code wait} for in-flight calls to
     * finish, then closes every connection after its queued responses. Idempotent. Calls still waiting for the
     * server's own service pool after {@code wait} are not run (their connections are closed by then, so their
     * callers fail promptly); calls running are interrupted.
     */
    public CompletableFuture<Void> close(Duration wait) {
        if (!closed.compareAndSet(false, true)) {
            return closeFuture;
        }
        long deadline = System.nanoTime() + wait.toNanos();
        inFlight.startClosing();
        transport.stopAccepting();
        for (Connection c : transport.connections()) {
            try {
                c.send(DubboRequest.readonlyEvent(eventIds.getAndIncrement(), ServerHandler.eventSerialization(c)),
                        WriteListener.NONE);
            } catch (SluiceException e) {
                log.debug("Could not send readonly event to {}", c, e);
            }
        }
        inFlight.quiesced().completeOnTimeout(null, Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)
                .thenCompose(v -> transport.close(Duration.ofNanos(Math.max(TimeUnit.MILLISECONDS.toNanos(100),
                        deadline - System.nanoTime()))))
                .whenComplete((v, t) -> {
                    if (ownedExecutor != null) {
                        ownedExecutor.shutdownNow();
                    }
                    closeFuture.complete(null);
                });
        return closeFuture;
    }

    /** Forceful stop: closes every connection now; in-flight calls fail promptly at their callers. */
    public CompletableFuture<Void> closeNow() {
        return close(Duration.ZERO);
    }

    /** Graceful stop waiting up to 10 s for in-flight calls; blocks until closed. */
    @Override
    public void close() {
        try {
            close(Duration.ofSeconds(10)).get(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            log.warn("Sluice server on port {} did not close cleanly", port(), e);
        }
    }

    /**
     * The key a service is registered under ({@link Builder#register}) and looked up by ({@link ServerHandler}):
     * {@code group/path:version}, with Dubbo's default and wildcard versions as none.
     */
    static String serviceKey(String path, String version, String group) {
        String v = version == null || version.isEmpty() || DubboConstants.DEFAULT_SERVICE_VERSION.equals(version)
                || "*".equals(version) ? "" : version;
        return (group == null ? "" : group) + '/' + path + ':' + v;
    }

    /** Counters of a running server; an immutable snapshot taken by {@link SluiceServer#stats()}. */
    public static final class Stats {
        private final int connections;
        private final long droppedResponses;
        private final long refusedConnections;
        private final long frameTimeouts;
        private final long refusedRequests;
        private final long queuedRequestBytes;

        Stats(int connections, long droppedResponses, long refusedConnections, long frameTimeouts,
              long refusedRequests, long queuedRequestBytes) {
            this.connections = connections;
            this.droppedResponses = droppedResponses;
            this.refusedConnections = refusedConnections;
            this.frameTimeouts = frameTimeouts;
            this.refusedRequests = refusedRequests;
            this.queuedRequestBytes = queuedRequestBytes;
        }

        /** Connections open now. */
        public int connections() {
            return connections;
        }

        /**
         * Responses to calls that ran (or to heartbeats and refused requests) that did not reach the socket as
         * produced: over the connection's pending-bytes cap, failed to encode, or the connection closed first. Each
         * is logged at WARN; where the connection still took one, the caller got an error response instead (held
         * back until the connection's backlog drained when the pending-bytes cap refused that too).
         */
        public long droppedResponses() {
            return droppedResponses;
        }

        /** Connections closed as they were accepted, over {@link Builder#maxConnections}. */
        public long refusedConnections() {
            return refusedConnections;
        }

        /** Connections closed because a frame did not arrive whole within {@link Builder#frameTimeout}. */
        public long frameTimeouts() {
            return frameTimeouts;
        }

        /**
         * Requests answered with status 100 without being executed: the service pool's queue was full, by count
         * ({@link Builder#threads}) or by bytes ({@link Builder#queuedRequestBytes}).
         */
        public long refusedRequests() {
            return refusedRequests;
        }

        /** Bytes charged for requests waiting for the service pool now (see {@link Builder#queuedRequestBytes}). */
        public long queuedRequestBytes() {
            return queuedRequestBytes;
        }

        @Override
        public String toString() {
            return "Stats{connections=" + connections + ", droppedResponses=" + droppedResponses
                    + ", refusedConnections=" + refusedConnections + ", frameTimeouts=" + frameTimeouts
                    + ", refusedRequests=" + refusedRequests + ", queuedRequestBytes=" + queuedRequestBytes + "}";
        }
    }

    private static final class Registration {
        final Class<?> iface;
        final String path;
        final String version;

        Registration(Class<?> iface, String path, String version) {
            this.iface = iface;
            this.path = path;
            this.version = version;
        }
    }

    /** Server options; {@link #start()} binds. Not thread-safe. */
    public static final class Builder extends EndpointBuilder<Builder> {
        private final Map<String, Object> services = new HashMap<>();
        private final List<Registration> registrations = new ArrayList<>();
        /** Null until set: {@link TransportOptions#allIdle()} or {@link #DEFAULT_IDLE_TIMEOUT} then. */
        private Duration idleTimeout;
        private Executor executor;
        /** The executor is {@link #directExecutor()}, which runs every task it is given. */
        private boolean direct;
        private int threads = 200;
        private int queueCapacity = 10_000;
        private boolean hotWorkers = true;
        private long queuedBytesLimit = DEFAULT_QUEUED_REQUEST_BYTES;
        /**
         * Carries the bind address and the connection limits, which it validates; the rest is set when the server
         * starts.
         */
        private final NettyServerTransport.Builder transport = NettyServerTransport.builder()
                .maxConnections(DEFAULT_MAX_CONNECTIONS, DEFAULT_MAX_CONNECTIONS_PER_ADDRESS)
                .frameTimeout(DEFAULT_FRAME_TIMEOUT);
        private java.util.Set<Serialization> serializations = java.util.EnumSet.allOf(Serialization.class);
        /** Test seam, see {@link #beforeCounting}; null in production. */
        private Runnable beforeCounting;

        private Builder() {
            super(false);
        }

        /**
         * The body serializations calls may use (default both, hessian2 and fastjson2, as a Dubbo 3.3 provider's
         * {@code prefer.serialization}); each call is answered in the serialization it arrived in. A call in any other
         * is answered with status 40 naming the accepted ones. Heartbeats and events are answered in either.
         */
        public Builder serializations(Serialization... accepted) {
            if (accepted.length == 0) {
                throw new IllegalArgumentException("accept at least one serialization");
            }
            this.serializations = java.util.EnumSet.copyOf(java.util.Arrays.asList(accepted));
            return this;
        }

        /** Listens on every interface (as Dubbo does) on {@code port}; 0 picks a free port. */
        public Builder port(int port) {
            transport.port(port);
            return this;
        }

        public Builder bindAddress(InetSocketAddress address) {
            transport.bindAddress(address);
            return this;
        }

        /** Serves {@code impl} as {@code iface} with no version and no group. */
        public <T> Builder register(Class<T> iface, T impl) {
            return register(iface, impl, null, null);
        }

        /** Serves {@code impl} as {@code iface} under a service version and group (either may be null). */
        public <T> Builder register(Class<T> iface, T impl, String version, String group) {
            Objects.requireNonNull(impl, "impl");
            if (!iface.isInterface()) {
                throw new IllegalArgumentException(iface.getName() + " is not an interface");
            }
            String key = serviceKey(iface.getName(), version, group);
            if (services.putIfAbsent(key, impl) != null) {
                throw new IllegalArgumentException("a service is already registered as " + key);
            }
            registrations.add(new Registration(iface, iface.getName(), version));
            return this;
        }

        /**
         * Closes a connection with no reads and no writes for this long (default 180 s, as Dubbo). The same setting
         * as {@link TransportOptions#allIdle()} in {@link #options}, whichever is called first: an explicit value
         * either way beats the default, and two different explicit values fail {@link #start()} with an
         * {@link IllegalStateException} naming both.
         */
        public Builder idleTimeout(Duration timeout) {
            this.idleTimeout = Objects.requireNonNull(timeout, "timeout");
            return this;
        }

        /**
         * Runs service methods on {@code executor}, which the caller owns. A call it rejects (it throws
         * {@code RejectedExecutionException}, or anything else) is answered with status 100 and not executed. One
         * it drops silently (a discarding {@code RejectedExecutionHandler}) is found once the dropped task is
         * garbage-collected, and answered the same way then: its caller waits until that GC, so prefer a pool that
         * rejects.
         */
        public Builder executor(Executor executor) {
            this.executor = Objects.requireNonNull(executor, "executor");
            this.direct = false;
            return this;
        }

        /**
         * The service pool's size: at most {@code threads} calls run at once (default 200, as Dubbo's), and up to
         * {@code queueCapacity} wait (default 10,000; beyond it calls are answered with status 100). By default the
         * pool is Sluice's hot-worker pool of those bounds ({@link #hotWorkers(boolean)}); with
         * {@code hotWorkers(false)} a {@link java.util.concurrent.ThreadPoolExecutor} of that size whose idle threads
         * time out. To use a pool of your own, {@link #executor}.
         */
        public Builder threads(int threads, int queueCapacity) {
            if (threads < 1 || queueCapacity < 1) {
                throw new IllegalArgumentException("threads and queue capacity must be >= 1");
            }
            this.threads = threads;
            this.queueCapacity = queueCapacity;
            return this;
        }

        /**
         * Runs service methods on hot workers instead of a plain thread pool (default true): about one worker per
         * core (at least 2, at most {@code threads}) that spins for about 20 µs before it parks, and a call wakes a
         * parked worker only when no other worker is looking for work, so a burst of calls does not pay a thread
         * wake-up per call; more workers start, up to {@code threads}, only while calls wait and none has started for
         * 500 µs with a worker waiting inside a call (5 ms otherwise), so calls that block do not starve the queue.
         *
         * <p>A plain pool's threads take calls in turn, each one cold, where parked hot workers are reused last-in
         * first-out. {@code hotWorkers(false)} keeps the plain pool (Dubbo's model) for whoever needs it. The two
         * pools compared: docs/performance/README.md.
         */
        public Builder hotWorkers(boolean enabled) {
            this.hotWorkers = enabled;
            return this;
        }

        /**
         * Most bytes of requests waiting for the service pool at once; default 64 MiB. A request is charged the larger
         * of its frame's wire size and the decoder's estimate of its decoded values
         * ({@link DubboRequest#decodedEstimate()}).
         * Beyond it a request is answered with status 100 without being executed, as when the pool's queue is full
         * by count ({@link #threads}): a count alone lets 10,000 requests of up to the payload limit each pile up.
         * A request is always accepted when none waits. Applies to any executor, the caller's included.
         */
        public Builder queuedRequestBytes(long bytes) {
            if (bytes < 1) {
                throw new IllegalArgumentException("queuedRequestBytes must be >= 1, got " + bytes);
            }
            this.queuedBytesLimit = bytes;
            return this;
        }

        /**
         * Most connections open at once, in total (default 10,000) and from one remote IP address (default 1,000;
         * an IPv6 peer counts per /64, which one host usually holds whole);
         * 0 lifts a limit. A connection over either is closed as it is accepted, before any byte is read; refusals
         * are logged at WARN (at most once a second, with the count since) and counted in
         * {@link Stats#refusedConnections()}.
         */
        public Builder maxConnections(int total, int perAddress) {
            transport.maxConnections(total, perAddress);
            return this;
        }

        /**
         * Most time a frame may take to arrive once its first byte is in (default 30 s; zero disables). A peer that
         * sends a header and trickles the body keeps resetting the idle timeout; this closes its connection, logged
         * at WARN and counted in {@link Stats#frameTimeouts()}. Raise it for very large frames over slow links.
         */
        public Builder frameTimeout(Duration timeout) {
            transport.frameTimeout(timeout);
            return this;
        }

        /**
         * Runs service methods on the event loop. Only for methods that never block: a blocking method stalls every
         * connection on that loop.
         */
        public Builder directExecutor() {
            this.executor = Runnable::run;
            this.direct = true;
            return this;
        }

        /**
         * The transport options the server runs with: its idle timeout as the all-idle time, from whichever knob set
         * it explicitly.
         *
         * @throws IllegalStateException when this builder and the options set it to different values
         */
        TransportOptions resolvedOptions() {
            TransportOptions options = transportOptions();
            Duration idle = oneKnob("idleTimeout", idleTimeout, options, TransportOptions.Setting.ALL_IDLE,
                    options.allIdle(), DEFAULT_IDLE_TIMEOUT);
            return options.toBuilder().allIdle(idle).build();
        }

        /**
         * Test seam: {@code hook} runs on the event loop after a request passed every check, before it is counted
         * in flight (docs/reliability.md E25e). Fixed when the server starts, so serving reads no volatile for it.
         */
        Builder beforeCounting(Runnable hook) {
            this.beforeCounting = hook;
            return this;
        }

        /**
         * Binds and starts serving.
         *
         * @throws IllegalStateException when no service is registered, or when a setting was set to different values
         *     on this builder and in {@link #options}
         */
        public SluiceServer start() {
            if (services.isEmpty()) {
                throw new IllegalStateException("register at least one service before start()");
            }
            return new SluiceServer(this, resolvedOptions());
        }
    }
}
