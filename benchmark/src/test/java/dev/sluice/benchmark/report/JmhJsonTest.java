package dev.sluice.benchmark.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

@org.junit.jupiter.api.Timeout(30)
class JmhJsonTest {

    /** A real JMH 1.37 result (getUser of a short dubbo-netty4 run, raw data removed). */
    @Test
    void readsThroughputPercentilesAndAllocation() throws Exception {
        List<Row> rows = JmhJson.read(Path.of(getClass().getResource("/jmh-result-sample.json").toURI()));
        assertEquals(2, rows.size());
        Row one = rows.get(0);
        assertEquals("dubbo-netty4", one.target);
        assertEquals("getUser", one.method);
        assertEquals(1, one.threads);
        assertEquals(2.3572, one.opsPerMs, 1e-4); // no raw data in this file: JMH's mean
        assertEquals("sample", one.latencySource);
        assertEquals(0.09856, one.p50Ms, 1e-9);
        assertEquals(1.19183, one.p99Ms, 1e-5);
        assertEquals(10586.8, one.bytesPerOp, 0.1); // from the throughput run, not the sample one
        Row many = rows.get(1);
        assertEquals(32, many.threads);
        assertEquals(16.898, many.opsPerMs, 1e-3);
        assertEquals(5.97197, many.p99Ms, 1e-5);
    }

    /** Throughput from the iterations' median, percentiles from the recorder unless SampleTime ran, async loads. */
    @Test
    void readsMediansCallPercentilesAndAsyncLoads() throws Exception {
        List<Row> rows = JmhJson.read(Path.of(getClass().getResource("/jmh-result-async-sample.json").toURI()));
        assertEquals(2, rows.size());
        Row sync = rows.get(0);
        assertEquals("sluice-hessian2", sync.target);
        assertEquals(0, sync.inflight);
        assertEquals(45.0, sync.opsPerMs, 1e-9); // median of 10, 45, 44, 50, 51: the cold first iteration is ignored
        assertEquals(40.0, sync.opsPerMsMean, 1e-9);
        assertEquals(12.5, sync.opsPerMsError, 1e-9);
        assertEquals(5, sync.iterations);
        // the SampleTime entry comes after the throughput one and wins: dubbo-benchmark's way of measuring
        assertEquals("sample", sync.latencySource);
        assertEquals(0.6, sync.p50Ms, 1e-9);
        assertEquals(4.4, sync.p999Ms, 1e-9);
        assertEquals(9000.0, sync.bytesPerOp, 1e-9); // from the throughput run

        Row async = rows.get(1);
        assertEquals("sluice", async.target);
        assertEquals(4, async.threads);
        assertEquals(64, async.inflight);
        assertEquals(100.0, async.opsPerMs, 1e-9); // median of an even count: mean of 99 and 101
        assertEquals("calls", async.latencySource);
        assertEquals(2.5, async.p50Ms, 1e-9);
        assertEquals(5.0, async.p99Ms, 1e-9);
        assertEquals(7.5, async.p999Ms, 1e-9);
        assertEquals(3000.0, async.bytesPerOp, 1e-9);
    }

    @Test
    void medianOfOddAndEvenCounts() {
        assertEquals(3, JmhJson.median(new double[] {9, 1, 3}), 1e-12);
        assertEquals(2.5, JmhJson.median(new double[] {4, 1, 2, 3}), 1e-12);
        assertTrue(Double.isNaN(JmhJson.median(new double[0])));
    }
}
