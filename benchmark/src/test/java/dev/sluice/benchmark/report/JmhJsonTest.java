package dev.sluice.benchmark.report;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

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
        assertEquals(2.3572, one.opsPerMs, 1e-4);
        assertEquals(0.09856, one.p50Ms, 1e-9);
        assertEquals(1.19183, one.p99Ms, 1e-5);
        assertEquals(10586.8, one.bytesPerOp, 0.1); // from the throughput run, not the sample one
        Row many = rows.get(1);
        assertEquals(32, many.threads);
        assertEquals(16.898, many.opsPerMs, 1e-3);
        assertEquals(5.97197, many.p99Ms, 1e-5);
    }
}
