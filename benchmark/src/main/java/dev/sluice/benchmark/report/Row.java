package dev.sluice.benchmark.report;

/**
 * The measurements of one (target, method, thread count). Missing values are NaN. Times are milliseconds (JMH's
 * output unit); bytes/op is the client JVM's allocation per operation from JMH's gc profiler.
 */
public final class Row {
    public final String target;
    public final String method;
    public final int threads;
    public double opsPerMs = Double.NaN;
    public double opsPerMsError = Double.NaN;
    public double p50Ms = Double.NaN;
    public double p99Ms = Double.NaN;
    public double p999Ms = Double.NaN;
    public double bytesPerOp = Double.NaN;

    public Row(String target, String method, int threads) {
        this.target = target;
        this.method = method;
        this.threads = threads;
    }
}
