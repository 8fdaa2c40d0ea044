package dev.sluice.benchmark.latency;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.profile.InternalProfiler;
import org.openjdk.jmh.results.AggregationPolicy;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.ScalarResult;
import org.openjdk.jmh.runner.IterationType;

/**
 * A JMH profiler (runs in the forked benchmark JVM, on JMH's control thread, between iterations) that turns
 * {@link CallLatency} into secondary results {@value #P50}, {@value #P99} and {@value #P999} in milliseconds, plus
 * {@value #CALLS}. Each measurement iteration reports the percentiles of the calls that finished in it; JMH
 * averages them over the iterations. Warm-up iterations report nothing.
 */
public final class CallLatencyProfiler implements InternalProfiler {

    public static final String P50 = "call.p50";
    public static final String P99 = "call.p99";
    public static final String P999 = "call.p99.9";
    public static final String CALLS = "call.count";

    @Override
    public String getDescription() {
        return "per-call latency percentiles recorded by the benchmark (dev.sluice.benchmark.latency.CallLatency)";
    }

    @Override
    public void beforeIteration(BenchmarkParams benchmarkParams, IterationParams iterationParams) {
        CallLatency.reset();
    }

    @Override
    public Collection<? extends Result> afterIteration(BenchmarkParams benchmarkParams, IterationParams iterationParams,
            IterationResult result) {
        if (iterationParams.getType() != IterationType.MEASUREMENT) {
            return List.of();
        }
        CallLatency.Snapshot s = CallLatency.snapshot();
        List<Result> out = new ArrayList<>();
        if (s.count() > 0) {
            out.add(new ScalarResult(P50, s.percentileNanos(50) / 1e6, "ms", AggregationPolicy.AVG));
            out.add(new ScalarResult(P99, s.percentileNanos(99) / 1e6, "ms", AggregationPolicy.AVG));
            out.add(new ScalarResult(P999, s.percentileNanos(99.9) / 1e6, "ms", AggregationPolicy.AVG));
        }
        out.add(new ScalarResult(CALLS, s.count(), "calls", AggregationPolicy.SUM));
        return out;
    }
}
