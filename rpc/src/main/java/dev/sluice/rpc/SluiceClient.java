package dev.sluice.rpc;

import dev.sluice.codec.dubbo.ClassAllowlist;
import dev.sluice.codec.dubbo.DubboCodec;
import dev.sluice.transport.ConnectionClosedException;
import dev.sluice.transport.ConnectionStalledException;
import dev.sluice.transport.SluiceException;
import dev.sluice.transport.TransportOptions;
import dev.sluice.transport.netty.NettyClientTransport;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
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
 *
 * <p>This class is the facade and the builder. The work is split by thread, as docs/ARCHITECTURE.md draws it:
 * {@link ProxyFactory} makes the proxies and runs their calls on the calling thread (the application half);
 * {@link ClientHandler} is the event loop's side (response matching, heartbeats, readonly events, idle and stall
 * probes; the transport half); {@link PendingCalls} is the table of calls waiting for a response, with their
 * timeouts, where the two halves and the timer meet, each call a {@link PendingCall}.
 */
public final class SluiceClient implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(SluiceClient.class);
    /**
     * Default stall timeout, 1 s: a live provider answers a heartbeat on its I/O thread within a round trip even
     * with every service thread busy, so 2 s of total silence with a heartbeat out (probe after 1 s, stalled 1 s
     * later) means a frozen process or a dead path, while young-generation GC pauses and scheduling hiccups of a
     * loaded host stay well below it. See docs/guide/stall-detection.md.
     */
    public static final Duration DEFAULT_STALL_TIMEOUT = Duration.ofSeconds(1);
    /** Default heartbeat interval, 60 s, as Dubbo's. */
    public static final Duration DEFAULT_HEARTBEAT = Duration.ofSeconds(60);

    private final NettyClientTransport transport;
    private final PendingCalls pending;
    private final ProxyFactory proxies;
    private final ClassAllowlist allowlist;
    private final Duration defaultTimeout;
    private final Serialization defaultSerialization;

    private SluiceClient(Builder b, TransportOptions options) {
        this.allowlist = b.allowlist;
        this.defaultTimeout = b.timeout;
        this.defaultSerialization = b.serialization;
        this.pending = new PendingCalls(b.address,
                b.callbackExecutor != null ? b.callbackExecutor : CallbackPool.shared());
        // Result values are parsed by the waiting caller (PendingCalls.readResult), not by the event loop: 32
        // callers waiting on one connection then parse in parallel instead of queueing behind one thread.
        DubboCodec codec = DubboCodec.builder().payloadLimit(b.transportOptions().payloadLimit()).allowlist(allowlist)
                .decodeLimits(b.decodeLimits)
                .deferResponseValues(true).build();
        this.transport = NettyClientTransport.builder().remote(b.address).options(options).codec(codec)
                .handler(new ClientHandler(pending, options.readerIdle(), b.resolvedIdleTimeout(), b.serialization))
                .eventLoops(b.loops()).tls(b.tlsContext()).build();
        this.proxies = new ProxyFactory(transport, pending, allowlist, options.stallTimeout(),
                Interceptors.of(b.interceptors), b.applicationName);
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

    /**
     * A generic reference to {@code serviceName} (the interface's fully qualified name, as the provider exports it):
     * calls without the interface on the class path, as Dubbo's {@code GenericService}. Configure it, then take its
     * {@link GenericReference#service()}.
     */
    public GenericReference generic(String serviceName) {
        return new GenericReference(serviceName);
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

    /**
     * True when a new call would be sent: connected, not stalled, and the provider has not announced that it is
     * shutting down (readonly event). Any thread.
     */
    boolean acceptsCalls() {
        try {
            return transport.isConnected() && !transport.connection().isStalled()
                    && !Boolean.TRUE.equals(transport.connection().attribute(ClientHandler.READONLY));
        } catch (RuntimeException e) { // lost between the calls
            return false;
        }
    }

    ProxyFactory proxies() {
        return proxies;
    }

    ClassAllowlist allowlist() {
        return allowlist;
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
        pending.close(new ConnectionClosedException("Client closed", true, null));
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
            return proxies.proxy(iface, version, group, timeout, serialization, oneWay, fixedAttachments);
        }
    }

    /**
     * Builds a {@link GenericService}: version, group, timeout, serialization and fixed attachments, as
     * {@link Reference}. Not thread-safe; the service it makes is.
     */
    public final class GenericReference {
        private final String serviceName;
        private String version;
        private String group;
        private Duration timeout = defaultTimeout;
        private Serialization serialization = defaultSerialization;
        private final Map<String, Object> fixedAttachments = new HashMap<>();

        private GenericReference(String serviceName) {
            if (serviceName == null || serviceName.isEmpty()) {
                throw new IllegalArgumentException("a generic reference needs the service name, got '" + serviceName
                        + "'");
            }
            this.serviceName = serviceName;
        }

        public GenericReference version(String version) {
            this.version = version;
            return this;
        }

        public GenericReference group(String group) {
            this.group = group;
            return this;
        }

        /** Per-call timeout (default: the client's). */
        public GenericReference timeout(Duration timeout) {
            this.timeout = Objects.requireNonNull(timeout, "timeout");
            return this;
        }

        /** The body serialization of the calls (default: the client's). */
        public GenericReference serialization(Serialization serialization) {
            this.serialization = Objects.requireNonNull(serialization, "serialization");
            return this;
        }

        /** An attachment sent with every call; {@code "generic"} defaults to {@code "true"}, Dubbo's default mode. */
        public GenericReference attachment(String key, Object value) {
            fixedAttachments.put(key, value);
            return this;
        }

        public GenericService service() {
            MethodMeta sync = MethodMeta.generic(serviceName, false, version, group, timeout.toMillis(),
                    serialization, fixedAttachments);
            MethodMeta async = MethodMeta.generic(serviceName, true, version, group, timeout.toMillis(),
                    serialization, fixedAttachments);
            String name = "SluiceGenericService[" + serviceName + (version == null ? "" : ":" + version)
                    + (group == null ? "" : ", group " + group) + " -> " + transport.remoteAddress() + "]";
            return new GenericService() {
                @Override
                public Object invoke(String method, String[] parameterTypes, Object[] args) {
                    try {
                        return proxies.invoke(sync, new Object[] {method, parameterTypes, args});
                    } catch (RuntimeException | Error e) {
                        throw e;
                    } catch (Throwable t) { // a checked exception: only a provider outside Dubbo's rules sends one
                        throw new RpcException(0, sync.description + " " + method + " failed: " + t, false, t);
                    }
                }

                @Override
                @SuppressWarnings("unchecked")
                public CompletableFuture<Object> invokeAsync(String method, String[] parameterTypes, Object[] args) {
                    try {
                        return (CompletableFuture<Object>) proxies.invoke(async,
                                new Object[] {method, parameterTypes, args});
                    } catch (Throwable t) { // NOPMD: refused before sending: the future carries it
                        return CompletableFuture.failedFuture(t);
                    }
                }

                @Override
                public String toString() {
                    return name;
                }
            };
        }
    }

    /** Client options; {@link #build()} connects. Not thread-safe. */
    public static final class Builder extends EndpointBuilder<Builder> {
        private InetSocketAddress address;
        private Duration timeout = Duration.ofSeconds(1);
        /** Null until set: {@link TransportOptions#readerIdle()} or {@link #DEFAULT_HEARTBEAT} then. */
        private Duration heartbeat;
        /** Null until set: three heartbeat intervals then. */
        private Duration idleTimeout;
        /** Null until set: {@link TransportOptions#stallTimeout()} or {@link #DEFAULT_STALL_TIMEOUT} then. */
        private Duration stallTimeout;
        private Executor callbackExecutor;
        private boolean failIfNotConnected;
        private Serialization serialization = Serialization.FASTJSON2;

        private Builder() {
            super(true);
        }

        public Builder address(String host, int port) {
            this.address = new InetSocketAddress(host, port);
            return this;
        }

        public Builder address(InetSocketAddress address) {
            this.address = Objects.requireNonNull(address, "address");
            return this;
        }

        /**
         * Stall detection (default {@link #DEFAULT_STALL_TIMEOUT}, 1 s; {@link Duration#ZERO} turns it off). When
         * calls were written and nothing at all was read for {@code timeout}, a heartbeat goes out; when that too is
         * unanswered for {@code timeout}, the connection is stalled and new calls fail at once with
         * {@link ConnectionStalledException} (not sent), until the provider sends anything. Calls already sent keep
         * their own timeouts. A provider answers heartbeats on its I/O thread, so a slow method or a busy service
         * pool is not a stall. See {@link TransportOptions#stallTimeout()}.
         *
         * <p>The same setting as {@link TransportOptions#stallTimeout()} in {@link #options}, whichever is called
         * first: an explicit value either way beats the default (so {@code options} with an explicit zero turns
         * detection off), and two different explicit values fail {@link #build()} with an
         * {@link IllegalStateException} naming both.
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
         * {@code idleTimeout} without reads (default three intervals, 180 s; at least twice the interval).
         *
         * <p>The interval is the same setting as {@link TransportOptions#readerIdle()} in {@link #options}, whichever
         * is called first: an explicit value either way beats the default, and two different explicit values fail
         * {@link #build()} with an {@link IllegalStateException} naming both.
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

        /**
         * Where {@code CompletableFuture} results are parsed and their futures completed, so where callbacks chained
         * on them run (never an event loop). Default: one hot-worker pool shared by every client in the JVM
         * ({@code sluice-callback-N} threads, about one busy per core, growing to 64 while callbacks block). An
         * executor that rejects a task, or throws anything else from {@code execute}, fails that call's future with
         * {@link CallbackRejectedException}.
         */
        public Builder callbackExecutor(Executor executor) {
            this.callbackExecutor = Objects.requireNonNull(executor, "executor");
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

        /**
         * The transport options the client runs with: its heartbeat interval as the reader-idle time and its stall
         * timeout, each from whichever knob set it explicitly.
         *
         * @throws IllegalStateException when this builder and the options set one of them to different values
         */
        TransportOptions resolvedOptions() {
            TransportOptions options = transportOptions();
            Duration interval = oneKnob("heartbeat", heartbeat, options, TransportOptions.Setting.READER_IDLE,
                    options.readerIdle(), DEFAULT_HEARTBEAT);
            Duration stall = oneKnob("stallTimeout", stallTimeout, options, TransportOptions.Setting.STALL_TIMEOUT,
                    options.stallTimeout(), DEFAULT_STALL_TIMEOUT);
            return options.toBuilder().readerIdle(interval).stallTimeout(stall).build();
        }

        /** How long the client goes without reads before it reconnects: as set, else three heartbeat intervals. */
        Duration resolvedIdleTimeout() {
            return idleTimeout != null ? idleTimeout : resolvedOptions().readerIdle().multipliedBy(3);
        }

        /**
         * Creates the client and connects.
         *
         * @throws IllegalStateException when a setting was set to different values on this builder and in
         *     {@link #options}
         */
        public SluiceClient build() {
            Objects.requireNonNull(address, "address is required");
            return new SluiceClient(this, resolvedOptions());
        }
    }
}
