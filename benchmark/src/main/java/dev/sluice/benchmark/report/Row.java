package dev.sluice.benchmark.report;

/**
 * The measurements of one (target, method, load), where the load is a thread count for the synchronous workload and
 * threads × calls in flight per thread for the asynchronous one ({@link #inflight} 0 = synchronous). Missing values
 * are NaN. Times are milliseconds (JMH's output unit); bytes/op is the client JVM's allocation per operation from JMH's
 * gc profiler.
 */
public final class Row {
    public final String target;
    public final String method;
    public final int threads;
    /** Calls in flight per thread in the asynchronous workload; 0 for the synchronous one. */
    public final int inflight;
    /** The median of the measurement iterations' scores (JMH's score if it reported no per-iteration data). */
    public double opsPerMs = Double.NaN;
    /** JMH's score: the mean of the measurement iterations. */
    public double opsPerMsMean = Double.NaN;
    /** JMH's 99.9 % confidence half-width of the mean. */
    public double opsPerMsError = Double.NaN;
    /** Measurement iterations behind {@link #opsPerMs}. */
    public int iterations;
    /** Each measurement iteration's ops/ms, in the order measured (empty if JMH reported none). */
    public double[] iterationScores = new double[0];
    /**
     * Measured by the interleaved harness: iteration i of every target of a method and load is round i, taken
     * seconds apart, so ratios are taken round by round.
     */
    public boolean interleaved;
    public double p50Ms = Double.NaN;
    public double p99Ms = Double.NaN;
    public double p999Ms = Double.NaN;
    /** Where the percentiles come from: {@code sample} (JMH SampleTime mode) or {@code calls} (per-call recorder). */
    public String latencySource;
    public double bytesPerOp = Double.NaN;

    public Row(String target, String method, int threads) {
        this(target, method, threads, 0);
    }

    public Row(String target, String method, int threads, int inflight) {
        this.target = target;
        this.method = method;
        this.threads = threads;
        this.inflight = inflight;
    }

    /** This row's load, for grouping rows into tables. */
    public Load load() {
        return new Load(threads, inflight);
    }

    /** JMH's error relative to its score, NaN if either is missing. */
    public double relativeError() {
        return opsPerMsError / opsPerMsMean;
    }

    /** A thread count and, for the asynchronous workload, the calls in flight per thread. */
    public record Load(int threads, int inflight) implements Comparable<Load> {

        public boolean async() {
            return inflight > 0;
        }

        /** Synchronous loads first, then by threads, then by calls in flight. */
        @Override
        public int compareTo(Load o) {
            int c = Boolean.compare(async(), o.async());
            if (c == 0) {
                c = Integer.compare(threads, o.threads);
            }
            return c != 0 ? c : Integer.compare(inflight, o.inflight);
        }

        /** "32 threads", "async, 4 threads x 64 in flight". */
        public String label() {
            String t = threads + (threads == 1 ? " thread" : " threads");
            return async() ? "async, " + t + " x " + inflight + " in flight" : t;
        }
    }
}
