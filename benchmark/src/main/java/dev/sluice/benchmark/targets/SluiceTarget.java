package dev.sluice.benchmark.targets;

import dev.sluice.benchmark.BenchTarget;
import dev.sluice.benchmark.Observe;
import dev.sluice.benchmark.async.AsyncUserService;
import dev.sluice.benchmark.async.AsyncUserServiceImpl;
import dev.sluice.rpc.Serialization;
import dev.sluice.rpc.SluiceClient;
import dev.sluice.rpc.SluiceServer;
import dev.sluice.rpc.micrometer.MicrometerInterceptor;
import dev.sluice.transport.TransportOptions;
import dev.sluice.transport.micrometer.MicrometerTransportObserver;
import dev.sluice.transport.netty.EventLoops;
import dev.sluice.transport.netty.LoopSpin;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.dubbo.benchmark.service.UserService;
import org.apache.dubbo.benchmark.service.UserServiceServerImpl;

/**
 * Standalone Sluice on both sides, no Dubbo: {@link SluiceServer} serving {@code UserServiceServerImpl} (and
 * {@link AsyncUserServiceImpl}) and a {@link SluiceClient} proxy, both with their defaults (which follow Dubbo's, e.g.
 * 200 service threads) and the harness's call timeout. The client sends the target's serialization; the server, at its
 * default, accepts hessian2 and fastjson2 and answers each call in the serialization it arrived in.
 * The server's service pool can be switched for comparisons with {@link ServicePools} ({@code SLUICE_BENCH_POOL}),
 * and its loops made to poll for answers ({@code TransportOptions.answerSpin}, off by default) with
 * {@code SLUICE_BENCH_ANSWER_SPIN=<microseconds>}; the server then runs on loops of its own and prints what they
 * counted (windows ended by their answer, windows run out) to its log when it closes.
 */
public final class SluiceTarget implements BenchTarget {
    /** The server's answer spin in microseconds; unset or 0: the server's default (off). */
    public static final String ANSWER_SPIN_ENV = "SLUICE_BENCH_ANSWER_SPIN";
    public static final String ANSWER_SPIN_PROPERTY = "sluice.bench.answer-spin";

    /** What else a Sluice target runs with, to measure what observing it costs against the plain one. */
    public enum Observed {
        /** Nothing: no interceptor, no observer, JFR events disabled (their default). */
        NONE,
        /** Both JVMs record the {@code dev.sluice.*} events with {@code sluice.jfc} (the target's JVM flags). */
        JFR,
        /**
         * A Micrometer {@code SimpleMeterRegistry} on each side, bound as docs/guide/observability.md says: the
         * transport meters ({@code MicrometerTransportObserver}) and the call timers ({@code MicrometerInterceptor}),
         * p50/p99 published.
         */
        METRICS
    }

    private final String name;
    private final Serialization serialization;
    private final Observed observed;

    public SluiceTarget(String name, Serialization serialization) {
        this(name, serialization, Observed.NONE);
    }

    /** A Sluice target observed as {@code observed}. */
    public SluiceTarget(String name, Serialization serialization, Observed observed) {
        this.name = name;
        this.serialization = serialization;
        this.observed = observed;
    }

    @Override
    public String unavailableReason() {
        return observed == Observed.JFR ? Observe.unavailableReason() : null;
    }

    @Override
    public List<String> jvmArgs() {
        return observed == Observed.JFR ? Observe.eventsOn() : List.of();
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public String description() {
        String with = switch (observed) {
            case NONE -> "";
            case JFR -> ", dev.sluice JFR events recorded (sluice.jfc)";
            case METRICS -> ", Micrometer transport meters and call timers bound (SimpleMeterRegistry)";
        };
        return "standalone SluiceServer / SluiceClient (no Dubbo), dubbo protocol, " + serialization.dubboName()
                + ", defaults" + ServicePools.selected().describe() + CallbackExecutors.selected().describe()
                + (answerSpin().isZero() ? "" : ", answer spin " + answerSpin().toNanos() / 1000 + " µs") + with;
    }

    /** The answer spin {@value #ANSWER_SPIN_PROPERTY} or {@value #ANSWER_SPIN_ENV} asks for; zero when unset. */
    public static Duration answerSpin() {
        String value = System.getProperty(ANSWER_SPIN_PROPERTY, System.getenv(ANSWER_SPIN_ENV));
        if (value == null || value.isBlank()) {
            return Duration.ZERO;
        }
        try {
            return Duration.ofNanos(Long.parseLong(value.trim()) * 1000);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(ANSWER_SPIN_ENV + "=" + value + " is not a number of microseconds");
        }
    }

    public Serialization serialization() {
        return serialization;
    }

    @Override
    public boolean supportsAsync() {
        return true;
    }

    @Override
    public AutoCloseable startServer(String host, int port) {
        SluiceServer.Builder builder = SluiceServer.builder()
                .bindAddress(new InetSocketAddress(host, port))
                .register(UserService.class, new UserServiceServerImpl())
                .register(AsyncUserService.class, new AsyncUserServiceImpl());
        TransportOptions.Builder options = TransportOptions.builder();
        // with an answer spin the loops are lent, so that what they counted can be read at close
        TransportOptions defaults = TransportOptions.defaults();
        EventLoops spinning = answerSpin().isZero() ? null
                : EventLoops.create(defaults.nativeTransport(), defaults.ioThreads(), "sluice-server", answerSpin());
        if (spinning != null) {
            builder.eventLoops(spinning);
        }
        if (observed == Observed.METRICS) {
            MeterRegistry registry = new SimpleMeterRegistry();
            options.observer(MicrometerTransportObserver.create(registry, "server", 0.5, 0.99));
            builder.intercept(MicrometerInterceptor.create(registry, 0.5, 0.99));
        }
        builder.options(options.build());
        ServicePools pool = ServicePools.selected();
        AutoCloseable ownedPool = pool.apply(builder);
        SluiceServer server = builder.start();
        System.out.println("sluice server" + pool.describe());
        return () -> {
            System.out.println("sluice server: " + ServicePools.liveServiceThreads()
                    + " service threads alive at close");
            server.close();
            ownedPool.close();
            if (spinning != null) {
                LoopSpin.Stats stats = spinning.answerSpinStats();
                System.out.println("sluice server: answer spin windows ended by their answer " + stats.hits()
                        + ", run out " + stats.misses() + ", next window " + stats.windowNanos() / 1000 + " µs");
                spinning.group().shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
            }
        };
    }

    /** A client and what to shut down after it ({@link CallbackExecutors}). */
    private record Built(SluiceClient client, Runnable afterClose) {
        void close() {
            try {
                client.close();
            } finally {
                afterClose.run();
            }
        }
    }

    private Built client(ClientConfig config) {
        SluiceClient.Builder builder = SluiceClient.builder()
                .address(config.host(), config.port())
                .timeout(Duration.ofMillis(config.timeoutMillis()))
                .serialization(serialization)
                .failIfNotConnected(true);
        if (observed == Observed.METRICS) {
            MeterRegistry registry = new SimpleMeterRegistry();
            builder.options(TransportOptions.builder()
                            .observer(MicrometerTransportObserver.create(registry, "client", 0.5, 0.99)).build())
                    .intercept(MicrometerInterceptor.create(registry, 0.5, 0.99));
        }
        Runnable afterClose = CallbackExecutors.selected().apply(builder);
        return new Built(builder.build(), afterClose);
    }

    @Override
    public Client connect(ClientConfig config) {
        Built client = client(config);
        UserService proxy = client.client().proxy(UserService.class);
        return new Client() {
            @Override
            public UserService service() {
                return proxy;
            }

            @Override
            public void close() {
                client.close();
            }
        };
    }

    @Override
    public AsyncClient connectAsync(ClientConfig config) {
        Built client = client(config);
        AsyncUserService proxy = client.client().proxy(AsyncUserService.class);
        return new AsyncClient() {
            @Override
            public AsyncUserService service() {
                return proxy;
            }

            @Override
            public void close() {
                client.close();
            }
        };
    }
}
