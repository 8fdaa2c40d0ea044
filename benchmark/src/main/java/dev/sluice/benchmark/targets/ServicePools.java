package dev.sluice.benchmark.targets;

import dev.sluice.rpc.SluiceServer;
import java.util.Locale;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Which service pool the benchmark's {@link SluiceServer} runs its methods on, chosen by the environment variable
 * {@value #ENV} (or the system property {@value #PROPERTY}) so that one target can be measured with each pool:
 * <ul>
 *   <li>{@code default}: the server's own default pool (hot workers, as {@code hot});
 *   <li>{@code hot}: {@link SluiceServer.Builder#hotWorkers(boolean)}, hot workers that grow when calls stall;
 *   <li>{@code tpe}: a {@link ThreadPoolExecutor} of 200 threads and a queue of 10,000, owned by the benchmark;
 *   <li>{@code fixed4}: a {@link ThreadPoolExecutor} of 4 threads and a queue of 10,000;
 *   <li>{@code direct}: {@link SluiceServer.Builder#directExecutor()}, methods run on the event loop.
 * </ul>
 * An environment variable because the server runs in its own JVM, which inherits the environment of
 * {@code ./bench.sh}: {@code SLUICE_BENCH_POOL=tpe ./bench.sh --targets sluice --threads 1,32}. Runs in the server JVM
 * (and, for the description, in the orchestrator).
 */
public enum ServicePools {
    DEFAULT("default", "the server's default pool"),
    HOT("hot", "hot workers"),
    TPE("tpe", "ThreadPoolExecutor 200 threads"),
    FIXED4("fixed4", "ThreadPoolExecutor 4 threads"),
    DIRECT("direct", "directExecutor"),
    ;

    public static final String ENV = "SLUICE_BENCH_POOL";
    public static final String PROPERTY = "sluice.bench.pool";
    private static final AtomicInteger THREADS = new AtomicInteger();

    private final String key;
    private final String description;

    ServicePools(String key, String description) {
        this.key = key;
        this.description = description;
    }

    /** The pool named by {@value #PROPERTY} or {@value #ENV}; {@link #DEFAULT} when neither is set. */
    public static ServicePools selected() {
        String value = System.getProperty(PROPERTY, System.getenv(ENV));
        if (value == null || value.isBlank()) {
            return DEFAULT;
        }
        for (ServicePools p : values()) {
            if (p.key.equals(value.trim().toLowerCase(Locale.ROOT))) {
                return p;
            }
        }
        throw new IllegalArgumentException(ENV + "=" + value + " is not a service pool; use one of default, hot, tpe,"
                + " fixed4, direct");
    }

    /** For a target's description, e.g. {@code ", service pool: tpe (ThreadPoolExecutor 200 threads)"}. */
    public String describe() {
        return ", service pool: " + key + " (" + description + ")";
    }

    /** Applies this pool to {@code builder}; returns what to close after the server (the pool the bench owns). */
    public AutoCloseable apply(SluiceServer.Builder builder) {
        switch (this) {
            case TPE:
                return own(builder, 200);
            case FIXED4:
                return own(builder, 4);
            case DIRECT:
                builder.directExecutor();
                return () -> { };
            case HOT:
                builder.hotWorkers(true);
                return () -> { };
            default:
                return () -> { };
        }
    }

    /** Live threads of the server's service pool (any of these pools), for the server log at close. */
    public static int liveServiceThreads() {
        int n = 0;
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            String name = t.getName();
            if (t.isAlive() && (name.startsWith("bench-service-") || name.startsWith("sluice-service-"))
                    && !name.endsWith("-monitor")) {
                n++;
            }
        }
        return n;
    }

    private static AutoCloseable own(SluiceServer.Builder builder, int threads) {
        ThreadPoolExecutor pool = new ThreadPoolExecutor(threads, threads, 60, TimeUnit.SECONDS,
                new LinkedBlockingQueue<>(10_000), r -> {
                    Thread t = new Thread(r, "bench-service-" + THREADS.incrementAndGet());
                    t.setDaemon(true);
                    return t;
                });
        pool.allowCoreThreadTimeOut(true);
        builder.executor(pool);
        return pool::shutdownNow;
    }
}
