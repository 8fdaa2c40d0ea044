package dev.sluice.benchmark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class RunnerTest {

    /** Seconds of a whole run: every benchmark of every target, plus a server start per target. */
    private static long seconds(Settings s, List<String> targets) {
        long seconds = 5L * targets.size();
        for (String t : targets) {
            seconds += Runner.secondsOf(s, Targets.get(t));
        }
        return seconds;
    }

    @Test
    void theDefaultRunStaysUnderFifteenMinutesWithALongerWarmUpAtThirtyTwoThreads() {
        Settings s = Settings.parse(new String[0]);
        // 4 targets x 2 thread counts x 4 methods, one mode: 16 client JVMs of 26 s warm-up at 32 threads and 16 of
        // 10 s at one thread, each + 5 s measured + start
        assertEquals(32, Targets.defaultNames().stream().mapToInt(t -> Runner.benchmarksOf(s, Targets.get(t))).sum());
        long seconds = seconds(s, Targets.defaultNames());
        assertTrue(seconds <= 15 * 60, seconds + " s");
        assertTrue(seconds >= 13 * 60, seconds + " s: the warm-up would be too short to trust");
        List<Runner.Run> runs = Runner.runs(s, Targets.get("sluice"));
        assertEquals(26, Runner.warmupIterations(s, runs.get(0)) * s.warmupSeconds, runs.get(0).label());
        assertEquals(10, Runner.warmupIterations(s, runs.get(1)) * s.warmupSeconds, runs.get(1).label());
    }

    @Test
    void theSmokeRunsEveryTargetAndTheAsyncWorkloadInAboutThreeMinutes() {
        Settings s = Settings.parse(new String[] {"--smoke"});
        long seconds = seconds(s, Targets.group(Targets.ALL));
        assertTrue(seconds <= 200, seconds + " s");
        for (String t : Targets.group(Targets.ALL)) {
            List<Runner.Run> runs = Runner.runs(s, Targets.get(t));
            assertTrue(runs.stream().anyMatch(r -> !r.async()), t);
            assertEquals(Targets.defaultNames().contains(t), runs.stream().anyMatch(Runner.Run::async), t);
        }
    }

    @Test
    void forksMultiplyTheTime() {
        Runner.Run oneThread = new Runner.Run(1, 0, List.of("existUser"), List.of("thrpt"));
        Runner.Run many = new Runner.Run(32, 0, List.of("existUser"), List.of("thrpt"));
        Settings s = Settings.parse(new String[0]);
        assertEquals(19, Runner.secondsPerBenchmark(s, oneThread)); // 5 x 2 s warm-up + 5 x 1 s + 4 s for the JVM
        assertEquals(35, Runner.secondsPerBenchmark(s, many)); // 13 x 2 s warm-up + 5 x 1 s + 4 s
        Settings two = Settings.parse(new String[] {"--forks", "2"});
        assertEquals(2 * 19, Runner.secondsPerBenchmark(two, oneThread));
        assertEquals(2 * 35, Runner.secondsPerBenchmark(two, many));
        Settings given = Settings.parse(new String[] {"--warmup-iterations", "3"});
        assertEquals(3, Runner.warmupIterations(given, many), "--warmup-iterations sets every run's warm-up");
    }

    @Test
    void syncRunsGoFromTheMostThreadsThenAsyncInThroughputModeOnly() {
        Settings s = Settings.parse(new String[] {"--threads", "1,8,32", "--async", "1x64,32x8", "--full"});
        List<Runner.Run> runs = Runner.runs(s, Targets.get("sluice"));
        assertEquals(List.of("t=32", "t=8", "t=1", "async t=1x64", "async t=32x8"),
                runs.stream().map(Runner.Run::label).toList());
        assertEquals(List.of("thrpt", "sample"), runs.get(0).modes());
        assertEquals(List.of("thrpt"), runs.get(3).modes());
        assertEquals(8, runs.get(0).benchmarks());
        assertEquals(4, runs.get(4).benchmarks());
    }
}
