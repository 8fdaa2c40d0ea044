package dev.sluice.it.harness;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A concurrent call load for a scenario: {@code threads} threads, released together, each making
 * {@code callsPerThread} calls numbered {@code thread * callsPerThread + i}; every answer is verified by the call
 * itself, and the latency of each call is recorded. Scenarios report the {@link Result} as their own result line.
 *
 * <p>{@link #run} is called on the scenario's main thread, which starts and joins the load threads.
 */
public final class CallLoad {
    private CallLoad() {}

    /** One call of the load; runs on a load thread. */
    @FunctionalInterface
    public interface Call {
        /** Makes call number {@code index}; returns null when the answer was right, else what was wrong. */
        String run(int index);
    }

    /** What a load did. Immutable. */
    public static final class Result {
        private final long[] sortedNanos;
        private final int errors;
        private final String firstError;
        private final long wallNanos;

        private Result(long[] sortedNanos, int errors, String firstError, long wallNanos) {
            this.sortedNanos = sortedNanos;
            this.errors = errors;
            this.firstError = firstError;
            this.wallNanos = wallNanos;
        }

        public int count() {
            return sortedNanos.length;
        }

        /** Calls that threw or returned a wrong answer. */
        public int errors() {
            return errors;
        }

        /** {@code call <index>: <problem>} of the first failed call, or null. */
        public String firstError() {
            return firstError;
        }

        /** Time from releasing the threads until the last one finished. */
        public long wallMillis() {
            return TimeUnit.NANOSECONDS.toMillis(wallNanos);
        }

        public long p50Micros() {
            return micros(sortedNanos[sortedNanos.length / 2]);
        }

        public long p99Micros() {
            return micros(sortedNanos[Math.min(sortedNanos.length - 1, sortedNanos.length * 99 / 100)]);
        }

        public long maxMicros() {
            return micros(sortedNanos[sortedNanos.length - 1]);
        }

        /** {@code <errors> of <count> calls failed; first: <firstError>}. */
        public String failureSummary() {
            return errors + " of " + sortedNanos.length + " calls failed; first: " + firstError;
        }

        private static long micros(long nanos) {
            return TimeUnit.NANOSECONDS.toMicros(nanos);
        }
    }

    /** Runs the load and waits for it (at most 120 s); a thread that throws counts its call as an error. */
    public static Result run(int threads, int callsPerThread, Call call) throws Exception {
        long[] latencies = new long[threads * callsPerThread];
        AtomicInteger errors = new AtomicInteger();
        AtomicReference<String> firstError = new AtomicReference<>();
        CountDownLatch go = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        long wallStart;
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int base = t * callsPerThread;
                done.add(pool.submit(() -> {
                    go.await();
                    for (int i = 0; i < callsPerThread; i++) {
                        int index = base + i;
                        long start = System.nanoTime();
                        String problem;
                        try {
                            problem = call.run(index);
                        } catch (RuntimeException e) {
                            problem = e.toString();
                        }
                        latencies[index] = System.nanoTime() - start;
                        if (problem != null) {
                            errors.incrementAndGet();
                            firstError.compareAndSet(null, "call " + index + ": " + problem);
                        }
                    }
                    return null;
                }));
            }
            wallStart = System.nanoTime();
            go.countDown();
            for (Future<?> f : done) {
                f.get(120, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        long wallNanos = System.nanoTime() - wallStart;
        Arrays.sort(latencies);
        return new Result(latencies, errors.get(), firstError.get(), wallNanos);
    }
}
