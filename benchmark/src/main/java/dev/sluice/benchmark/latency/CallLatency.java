package dev.sluice.benchmark.latency;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The per-call latencies of the benchmark JVM (the JMH fork): each benchmark call's duration, from just before the
 * client is asked to make the call to the moment its result is there (the sync call returns; the async call's future
 * completes, on whichever thread completes it). Each recording thread has its own {@link LatencyHistogram}, so 32
 * benchmark threads do not contend on one set of counters. {@link CallLatencyProfiler} resets it before each JMH
 * iteration and reads it after.
 *
 * <p>Recording costs two {@code System.nanoTime()} calls and one uncontended atomic increment, tens of nanoseconds
 * against calls of tens of microseconds.
 */
public final class CallLatency {

    private static final List<LatencyHistogram> ALL = new CopyOnWriteArrayList<>();
    private static final ThreadLocal<LatencyHistogram> MINE = ThreadLocal.withInitial(() -> {
        LatencyHistogram h = new LatencyHistogram();
        ALL.add(h);
        return h;
    });

    private CallLatency() {}

    /** Records a call that started at {@code startNanos} ({@link System#nanoTime()}) and has just finished. */
    public static void since(long startNanos) {
        MINE.get().record(System.nanoTime() - startNanos);
    }

    /** Forgets every recorded call (called between iterations, when no benchmark thread is measuring). */
    public static void reset() {
        for (LatencyHistogram h : ALL) {
            h.reset();
        }
    }

    /** Every thread's counts merged. */
    public static Snapshot snapshot() {
        long[] merged = new long[LatencyHistogram.BUCKETS];
        for (LatencyHistogram h : ALL) {
            h.addTo(merged);
        }
        return new Snapshot(merged);
    }

    /** Merged counts at one moment. */
    public static final class Snapshot {
        private final long[] counts;

        Snapshot(long[] counts) {
            this.counts = counts;
        }

        public long count() {
            long n = 0;
            for (long c : counts) {
                n += c;
            }
            return n;
        }

        /** The {@code p}-th percentile (0–100) in nanoseconds, NaN if nothing was recorded. */
        public double percentileNanos(double p) {
            return LatencyHistogram.percentile(counts, p);
        }
    }
}
