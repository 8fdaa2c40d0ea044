package dev.sluice.benchmark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.benchmark.report.Row;
import java.util.List;
import org.junit.jupiter.api.Test;

@org.junit.jupiter.api.Timeout(30)
class SettingsTest {

    @Test
    void shortIsTheDefaultAndInterleavesFourteenWarmUpRoundsThenFourteenMeasuredRoundsOfTwoMethods() {
        Settings s = Settings.parse(new String[0]);
        assertEquals("short", s.profile);
        assertTrue(s.interleaved);
        assertTrue(s.clientJvmPerRun); // for async loads, which are not interleaved
        assertEquals(14, s.firstWarmupRounds); // before the first thread count, in cold client JVMs
        assertEquals(1, s.laterWarmupRounds); // before a later one, in the same client JVMs, warm
        assertEquals(14, s.measuredRounds);
        assertEquals(3, s.warmupIterations); // per method, for async loads (one client JVM per run)
        assertEquals(5, s.concurrentWarmupIterations); // two methods: 5 x 2 s x (2 + 1) = 30 s before the first
        assertEquals(3, Settings.parse(new String[] {"--benchmarks", "createUser,existUser,getUser,listUser"})
                .concurrentWarmupIterations);
        assertEquals(2, s.warmupSeconds);
        assertEquals(5, s.iterations); // JMH's iterations, for async loads
        assertEquals(2, s.seconds);
        assertEquals(List.of(32, 1), s.threads);
        assertEquals(List.of("thrpt"), s.modes); // percentiles come from the per-call recorder
        assertEquals(List.of("existUser", "listUser"), s.methods); // the two ends; --benchmarks for the others
        assertEquals(Settings.METHODS, Settings.parse(new String[] {"--benchmarks", String.join(",", Settings.METHODS)})
                .methods);
        assertEquals(Settings.METHODS, Settings.parse(new String[] {"--full"}).methods);
        assertEquals(List.of(), s.asyncLoads);
        assertTrue(s.sync);
        assertNull(s.targets);
    }

    @Test
    void jfrAddsAFlightRecordingToTheJvmFlagsAndOnlyThen() {
        java.nio.file.Path file = java.nio.file.Path.of("/tmp/x/server-a.jfr");
        assertEquals(List.of(), Settings.parse(new String[0]).jfrFlags(file));
        Settings s = Settings.parse(new String[] {"--jfr", "settings=profile,delay=5s"});
        assertEquals(List.of("-XX:StartFlightRecording=filename=/tmp/x/server-a.jfr,settings=profile,delay=5s"),
                s.jfrFlags(file));
    }

    @Test
    void asyncLoadsWaitFiveSecondsForACallUnlessATimeoutIsGiven() {
        Settings s = Settings.parse(new String[] {"--async"});
        assertEquals(1000, s.timeoutMillis); // Dubbo's default, for the synchronous workload
        assertEquals(5000, s.asyncTimeoutMillis);
        assertTrue(s.describe().contains("call timeout 1000 ms (async 5000 ms)"), s.describe());
        s = Settings.parse(new String[] {"--async", "--timeout", "800"});
        assertEquals(800, s.timeoutMillis);
        assertEquals(800, s.asyncTimeoutMillis); // an explicit timeout is every client's
        assertEquals(10_000, Settings.parse(new String[] {"--smoke"}).asyncTimeoutMillis);
        assertFalse(Settings.parse(new String[0]).describe().contains("async 5000"));
    }

    @Test
    void asyncTakesLoadsOrDefaultsToTheThreeOfTheIssue() {
        Settings s = Settings.parse(new String[] {"--async"});
        assertEquals(List.of(new Row.Load(1, 64), new Row.Load(4, 64), new Row.Load(32, 8)), s.asyncLoads);
        s = Settings.parse(new String[] {"--async", "--targets", "sluice"});
        assertEquals(3, s.asyncLoads.size());
        assertEquals(List.of("sluice"), s.targets);
        s = Settings.parse(new String[] {"--async", "2x16, 8X4", "--no-sync"});
        assertEquals(List.of(new Row.Load(2, 16), new Row.Load(8, 4)), s.asyncLoads);
        assertFalse(s.sync);
        for (String bad : new String[] {"4", "0x8", "4x0", "4x", "ax8", "4x8x2"}) {
            assertThrows(Settings.UsageException.class, () -> Settings.parse(new String[] {"--async", bad}), bad);
        }
        assertThrows(Settings.UsageException.class, () -> Settings.parse(new String[] {"--no-sync"}));
    }

    @Test
    void smokeChecksAsyncAndRunsFewerMethodsForHessian2AndAsync() {
        Settings s = Settings.parse(new String[] {"--smoke"});
        assertEquals(List.of(new Row.Load(2, 8)), s.asyncLoads);
        assertEquals(Settings.METHODS, s.methodsFor(false, false));
        assertEquals(List.of("createUser", "listUser"), s.methodsFor(true, false));
        assertEquals(List.of("listUser"), s.methodsFor(false, true));
        // an explicit method list is honoured everywhere
        s = Settings.parse(new String[] {"--smoke", "--benchmarks", "getUser"});
        assertEquals(List.of("getUser"), s.methodsFor(true, true));
        // outside the smoke every run has every method of its profile
        assertEquals(Settings.SHORT_METHODS, Settings.parse(new String[] {"--async"}).methodsFor(true, true));
        assertEquals(Settings.METHODS, Settings.parse(new String[] {"--full", "--async"}).methodsFor(true, true));
    }

    @Test
    void fullIsDubboBenchmark() {
        Settings s = Settings.parse(new String[] {"--full"});
        assertEquals(3, s.warmupIterations);
        assertEquals(10, s.warmupSeconds);
        assertEquals(3, s.iterations);
        assertEquals(10, s.seconds);
        assertEquals(List.of(32), s.threads);
    }

    @Test
    void smokeIsOneSecond() {
        Settings s = Settings.parse(new String[] {"--smoke"});
        assertEquals(0, s.warmupIterations);
        assertEquals(1, s.iterations);
        assertEquals(1, s.seconds);
    }

    @Test
    void overridesWinOverTheProfile() {
        Settings s = Settings.parse(new String[] {"--threads", "1,8,32,128", "--full", "--targets", "dubbo-netty4,raw",
            "--benchmarks", "listUser,existUser", "--time", "5"});
        assertEquals(List.of(1, 8, 32, 128), s.threads);
        assertEquals(List.of("dubbo-netty4", "raw"), s.targets);
        assertEquals(List.of("existUser", "listUser"), s.methods); // canonical order
        assertEquals(5, s.seconds);
        assertEquals(1, s.forks);
        assertEquals(3, Settings.parse(new String[] {"--forks", "3"}).forks);
        assertThrows(Settings.UsageException.class, () -> Settings.parse(new String[] {"--forks", "0"}));
    }

    @Test
    void rejectsNonsense() {
        assertThrows(Settings.UsageException.class, () -> Settings.parse(new String[] {"--bogus"}));
        assertThrows(Settings.UsageException.class, () -> Settings.parse(new String[] {"--threads", "0"}));
        assertThrows(Settings.UsageException.class, () -> Settings.parse(new String[] {"--benchmarks", "nope"}));
        assertThrows(Settings.UsageException.class, () -> Settings.parse(new String[] {"--threads"}));
    }
}
