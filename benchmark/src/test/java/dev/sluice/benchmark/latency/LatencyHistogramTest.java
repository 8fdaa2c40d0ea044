package dev.sluice.benchmark.latency;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class LatencyHistogramTest {

    @Test
    void bucketsAreOrderedAndAtMostOneSixtyFourthWide() {
        long previousLower = -1;
        for (int i = 0; i < LatencyHistogram.BUCKETS; i++) {
            long lower = LatencyHistogram.lowerBound(i);
            assertTrue(lower > previousLower, "bucket " + i);
            assertEquals(i, LatencyHistogram.index(lower), "lower bound of bucket " + i);
            if (i + 1 < LatencyHistogram.BUCKETS) {
                long upper = LatencyHistogram.lowerBound(i + 1) - 1;
                assertEquals(i, LatencyHistogram.index(upper), "upper end of bucket " + i);
                assertTrue(upper - lower + 1 <= Math.max(1, lower / 64), "bucket " + i + " too wide");
            }
            previousLower = lower;
        }
        assertEquals(0, LatencyHistogram.index(-5));
        assertEquals(LatencyHistogram.BUCKETS - 1, LatencyHistogram.index(Long.MAX_VALUE));
    }

    @Test
    void percentilesOfAUniformSpreadAreWithinTheBucketWidth() {
        LatencyHistogram h = new LatencyHistogram();
        // 1 µs .. 10 ms in 1 µs steps: p50 = 5 ms, p99 = 9.9 ms, p99.9 = 9.99 ms
        for (long us = 1; us <= 10_000; us++) {
            h.record(us * 1000);
        }
        long[] merged = new long[LatencyHistogram.BUCKETS];
        h.addTo(merged);
        assertEquals(5_000_000, LatencyHistogram.percentile(merged, 50), 5_000_000 / 64.0);
        assertEquals(9_900_000, LatencyHistogram.percentile(merged, 99), 9_900_000 / 64.0);
        assertEquals(9_990_000, LatencyHistogram.percentile(merged, 99.9), 9_990_000 / 64.0);
        assertEquals(1000, LatencyHistogram.percentile(merged, 0), 1000 / 64.0);
    }

    @Test
    void aRareSlowCallShowsOnlyInTheTail() {
        LatencyHistogram h = new LatencyHistogram();
        for (int i = 0; i < 999; i++) {
            h.record(100_000); // 100 µs
        }
        h.record(50_000_000); // one 50 ms call
        long[] merged = new long[LatencyHistogram.BUCKETS];
        h.addTo(merged);
        assertEquals(100_000, LatencyHistogram.percentile(merged, 50), 100_000 / 64.0);
        assertEquals(100_000, LatencyHistogram.percentile(merged, 99.9), 100_000 / 64.0);
        assertEquals(50_000_000, LatencyHistogram.percentile(merged, 100), 50_000_000 / 64.0);
    }

    @Test
    void resetForgetsAndAnEmptyHistogramHasNoPercentile() {
        LatencyHistogram h = new LatencyHistogram();
        h.record(42);
        h.reset();
        long[] merged = new long[LatencyHistogram.BUCKETS];
        h.addTo(merged);
        assertTrue(Double.isNaN(LatencyHistogram.percentile(merged, 50)));
    }

    @Test
    void callLatencyMergesEveryRecordingThread() throws Exception {
        CallLatency.reset();
        Thread[] threads = new Thread[4];
        for (int t = 0; t < threads.length; t++) {
            threads[t] = new Thread(() -> {
                for (int i = 0; i < 1000; i++) {
                    CallLatency.since(System.nanoTime());
                }
            });
            threads[t].start();
        }
        for (Thread t : threads) {
            t.join();
        }
        assertEquals(4000, CallLatency.snapshot().count());
        CallLatency.reset();
        assertEquals(0, CallLatency.snapshot().count());
    }
}
