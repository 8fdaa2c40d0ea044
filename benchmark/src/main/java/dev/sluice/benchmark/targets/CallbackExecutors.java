package dev.sluice.benchmark.targets;

import dev.sluice.rpc.SluiceClient;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Where the benchmark's {@link SluiceClient} completes {@code CompletableFuture} results, chosen by the environment
 * variable {@value #ENV} so that the async workload can be measured with each (the client runs in JMH's forked JVM,
 * which inherits the environment of {@code ./bench.sh}):
 * <ul>
 *   <li>{@code default}: the client's own default ({@link SluiceClient.Builder#callbackExecutor});
 *   <li>{@code common}: {@link ForkJoinPool#commonPool()} (one thread on a 2-core machine);
 *   <li>{@code fixed2}: a fixed pool of 2 threads;
 *   <li>{@code cached}: {@link Executors#newCachedThreadPool()}.
 * </ul>
 * {@code SLUICE_BENCH_CALLBACK=common ./bench.sh --async --no-sync --targets sluice}. Runs in the client JVM.
 */
enum CallbackExecutors {
    DEFAULT("default"),
    COMMON("common"),
    FIXED2("fixed2"),
    CACHED("cached"),
    ;

    static final String ENV = "SLUICE_BENCH_CALLBACK";
    private static final AtomicInteger THREADS = new AtomicInteger();

    private final String key;

    CallbackExecutors(String key) {
        this.key = key;
    }

    /** The executor named by {@value #ENV}; {@link #DEFAULT} when it is not set. */
    static CallbackExecutors selected() {
        String value = System.getenv(ENV);
        if (value == null || value.isBlank()) {
            return DEFAULT;
        }
        for (CallbackExecutors c : values()) {
            if (c.key.equals(value.trim().toLowerCase(Locale.ROOT))) {
                return c;
            }
        }
        throw new IllegalArgumentException(ENV + "=" + value + " is not a callback executor; use one of default,"
                + " common, fixed2, cached");
    }

    /** For a target's description; empty for {@link #DEFAULT}. */
    String describe() {
        return this == DEFAULT ? "" : ", callback executor: " + key;
    }

    /** Applies this executor to {@code builder}; returns what to shut down after the client closes. */
    Runnable apply(SluiceClient.Builder builder) {
        ExecutorService owned;
        switch (this) {
            case COMMON:
                builder.callbackExecutor(ForkJoinPool.commonPool());
                return () -> { };
            case FIXED2:
                owned = Executors.newFixedThreadPool(2, CallbackExecutors::thread);
                break;
            case CACHED:
                owned = Executors.newCachedThreadPool(CallbackExecutors::thread);
                break;
            default:
                return () -> { };
        }
        builder.callbackExecutor(owned);
        return owned::shutdown;
    }

    private static Thread thread(Runnable r) {
        Thread t = new Thread(r, "bench-callback-" + THREADS.incrementAndGet());
        t.setDaemon(true);
        return t;
    }
}
