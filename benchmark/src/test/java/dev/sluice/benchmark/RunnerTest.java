package dev.sluice.benchmark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

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
    void theDefaultRunInterleavesTheTargetsAfterSixtyFourSecondsOfCallsPerClientWithinFifteenMinutes() {
        Settings s = Settings.parse(new String[0]);
        assertTrue(s.interleaved);
        for (String t : Targets.defaultNames()) {
            assertEquals(List.of(), Runner.runs(s, Targets.get(t)), t + ": no JMH run, the interleaved rounds measure");
        }
        // 2 methods x 4 targets x (0.3 s settle + 2 s) per round: at 32 threads 14 warm-up and 14 measured rounds, at
        // 1 thread (the same client JVMs) 1 + 14; 8 s for the client JVMs; then a server start per target
        long seconds = Interleaved.seconds(s, Targets.defaultNames().size()) + 5L * Targets.defaultNames().size();
        assertEquals(8 * 23 * (14 + 14 + 1 + 14) / 10 + 8 + 4 * 5, seconds);
        assertTrue(seconds <= 14 * 60, seconds + " s, and the measured runs took 30-45 s more than estimated");
        // what each cold client JVM has called before its first measured turn: every method in every warm-up round
        long warmUpMillis = (long) Interleaved.warmUpRounds(s, true) * s.methods.size()
                * (s.warmupSeconds * 1000L + Interleaved.SETTLE_MILLIS);
        assertEquals(64_400, warmUpMillis);
        assertEquals(1, Interleaved.warmUpRounds(s, false));
    }

    /** Six targets interleaved (the default's four and the peers) would take over 15 minutes: the peers are apart. */
    @Test
    void thePeersWouldPushTheDefaultRunPastFifteenMinutesAndTheirOwnRunTakesAsLongAsTheDefault() {
        Settings s = Settings.parse(new String[0]);
        int six = Targets.defaultNames().size() + 2;
        assertTrue(Interleaved.seconds(s, six) + 5L * six > 15 * 60);
        Settings peers = Settings.parse(new String[] {"--targets", "peers"});
        int four = Targets.expand(peers.targets).size();
        assertEquals(Targets.defaultNames().size(), four);
        assertTrue(Interleaved.seconds(peers, four) + 5L * four <= 14 * 60);
    }

    @Test
    void aRunOfOneClientJvmPerTargetAndThreadCountWarmsEveryMethodForThirtySeconds() {
        Settings s = Settings.parse(new String[] {"--client-jvm", "per-run", "--benchmarks",
            String.join(",", Settings.METHODS)});
        assertTrue(s.clientJvmPerRun);
        assertFalse(s.interleaved);
        // 4 targets x 2 thread counts = 8 client JVMs, each: 4 methods x (3 x 2 s bulk + 3 x 2 s own warm-up +
        // 5 x 2 s measured + 1 s connect and close) + 4 s start and stop
        assertEquals(32, Targets.defaultNames().stream().mapToInt(t -> Runner.benchmarksOf(s, Targets.get(t))).sum());
        long seconds = seconds(s, Targets.defaultNames());
        assertEquals(8 * (4 + 4 * (6 + 6 + 10 + 1)) + 4 * 5, seconds);
        // the default's two methods (and an async load, which runs a client JVM per run) warm as long
        for (Settings each : List.of(s, Settings.parse(new String[] {"--client-jvm", "per-run"}),
                Settings.parse(new String[] {"--async", "--no-sync"}))) {
            for (Runner.Run run : Runner.runs(each, Targets.get("sluice"))) {
                // the first method measured in a client JVM follows every method's bulk warm-up and its own
                long firstWarmUp = (long) Runner.warmupIterations(each, run) * each.warmupSeconds
                        * (run.methods().size() + 1);
                assertTrue(firstWarmUp >= (run.threads() > 1 || run.async() ? 30 : 18),
                        run.label() + ": " + firstWarmUp + " s");
            }
        }
    }

    @Test
    void anAsyncRunPassesTheAsyncTimeoutToItsClientASynchronousRunDubbosDefault(@TempDir Path out) throws Exception {
        Settings s = Settings.parse(new String[] {"--async", "1x64", "--client-jvm", "per-run"});
        BenchTarget sluice = Targets.get("sluice");
        int async = 0;
        for (Runner.Run run : Runner.runs(s, sluice)) {
            var options = Runner.options(s, run, sluice, "127.0.0.1", 20880, out).build();
            assertEquals(List.of(run.async() ? "5000" : "1000"),
                    new ArrayList<>(options.getParameter("timeoutMs").get()), run.label());
            async += run.async() ? 1 : 0;
        }
        assertEquals(1, async);
    }

    @Test
    void theFullRunForksAClientJvmPerMethodAsDubboBenchmark() {
        assertFalse(Settings.parse(new String[] {"--full"}).clientJvmPerRun);
        assertFalse(Settings.parse(new String[] {"--forks", "2"}).clientJvmPerRun);
        assertTrue(Settings.parse(new String[] {"--full", "--client-jvm", "per-run"}).clientJvmPerRun);
        assertThrows(Settings.UsageException.class,
                () -> Settings.parse(new String[] {"--forks", "2", "--client-jvm", "per-run"}));
        assertThrows(Settings.UsageException.class, () -> Settings.parse(new String[] {"--client-jvm", "shared"}));
        assertFalse(Settings.parse(new String[] {"--full"}).interleaved);
        assertFalse(Settings.parse(new String[] {"--smoke"}).interleaved);
        assertFalse(Settings.parse(new String[] {"--forks", "2"}).interleaved);
        assertTrue(Settings.parse(new String[] {"--full", "--modes", "thrpt", "--client-jvm", "interleaved"})
                .interleaved);
        // JMH's sample mode needs JMH: the default falls back to a client JVM per run, an explicit choice is refused
        Settings sample = Settings.parse(new String[] {"--modes", "thrpt,sample"});
        assertFalse(sample.interleaved);
        assertTrue(sample.clientJvmPerRun);
        assertThrows(Settings.UsageException.class,
                () -> Settings.parse(new String[] {"--modes", "sample", "--client-jvm", "interleaved"}));
    }

    @Test
    void theSmokeRunsEveryTargetAndTheAsyncWorkloadInAboutFourMinutes() {
        Settings s = Settings.parse(new String[] {"--smoke"});
        long seconds = seconds(s, Targets.group(Targets.ALL));
        assertTrue(seconds <= 240, seconds + " s");
        assertTrue(Targets.group(Targets.ALL).containsAll(List.of("dubbo-triple", "grpc-java")));
        for (String t : Targets.group(Targets.ALL)) {
            List<Runner.Run> runs = Runner.runs(s, Targets.get(t));
            assertTrue(runs.stream().anyMatch(r -> !r.async()), t);
            // every async client of its own is checked: the hessian2 targets and the levers share the fastjson2 ones'
            String group = Targets.groupOf(t);
            assertEquals(Targets.FASTJSON2.equals(group) || Targets.PEERS.equals(group),
                    runs.stream().anyMatch(Runner.Run::async), t);
        }
    }

    @Test
    void forksMultiplyTheTime() {
        Runner.Run oneThread = new Runner.Run(1, 0, List.of("existUser"), List.of("thrpt"));
        Runner.Run many = new Runner.Run(32, 0, List.of("existUser"), List.of("thrpt"));
        Settings s = Settings.parse(new String[] {"--full"});
        assertEquals(64, Runner.secondsPerBenchmark(s, oneThread)); // 3 x 10 s warm-up + 3 x 10 s + 4 s for the JVM
        assertEquals(64, Runner.secondsPerBenchmark(s, many));
        Settings two = Settings.parse(new String[] {"--full", "--forks", "2"});
        assertEquals(2 * 64, Runner.secondsPerBenchmark(two, oneThread));
        assertEquals(2 * 64, Runner.secondsOfRun(two, many));
        Settings given = Settings.parse(new String[] {"--warmup-iterations", "3", "--full", "--threads", "32"});
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
