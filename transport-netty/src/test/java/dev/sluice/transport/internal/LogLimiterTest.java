package dev.sluice.transport.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The log budget of docs/reliability.md A9b: one line per period, however many threads count occurrences. */
@Timeout(30)
class LogLimiterTest {

    @Test
    void manyThreadsCountingAtOnceGetExactlyOneLinePerPeriod() throws Exception {
        LogLimiter limiter = new LogLimiter(Duration.ofHours(1));
        int threads = 8;
        int each = 10_000;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<long[]>> results = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                results.add(pool.submit(() -> {
                    start.await(10, TimeUnit.SECONDS);
                    long lines = 0;
                    long reported = 0;
                    for (int i = 0; i < each; i++) {
                        long n = limiter.admit();
                        if (n > 0) {
                            lines++;
                            reported += n;
                        }
                    }
                    return new long[] {lines, reported};
                }));
            }
            start.countDown();
            long lines = 0;
            for (Future<long[]> r : results) {
                lines += r.get(20, TimeUnit.SECONDS)[0];
            }
            assertEquals(1, lines, "lines admitted in one period by " + threads * each + " occurrences");
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void theLineAfterAPeriodReportsTheOccurrencesInBetween() {
        LogLimiter limiter = new LogLimiter(Duration.ofNanos(1));
        assertEquals(1, limiter.admit(), "the first occurrence is logged");
        long reported = 0;
        long calls = 0;
        while (reported == 0) { // the next period starts within nanoseconds
            calls++;
            reported = limiter.admit();
        }
        assertEquals(calls, reported, "the line reports itself and every occurrence suppressed before it");
        assertEquals("", LogLimiter.alsoSince(1));
        assertTrue(LogLimiter.alsoSince(5).contains("4 more"), LogLimiter.alsoSince(5));
        assertThrows(IllegalArgumentException.class, () -> new LogLimiter(Duration.ZERO));
    }
}
