package dev.sluice.benchmark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.benchmark.async.AsyncUserService;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.dubbo.benchmark.bean.Page;
import org.apache.dubbo.benchmark.bean.User;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The unmeasured warm-up of a fresh server before its first asynchronous load: which runs get one, at which load, for
 * how long, and that it calls every method of the run and reports a failed call.
 */
@Timeout(30)
class ServerWarmUpTest {

    @Test
    void aFreshServerIsWarmedAtTheBusiestAsyncLoadForOneBulkWarmUp() {
        Settings s = Settings.parse(new String[] {"--async", "--no-sync"}); // 1x64, 4x64, 32x8
        List<Runner.Run> runs = Runner.runs(s, Targets.get("sluice"));
        Runner.Run load = ServerWarmUp.loadFor(s, runs);
        // 4 x 64 and 32 x 8 both keep 256 calls in flight; fewer threads pass more calls on two cores
        assertEquals("async t=4x64", load.label());
        assertEquals(s.methods, load.methods());
        // a bulk warm-up is 5 rounds of 2 s of existUser and listUser (20 s): 8 rounds reach the 30 s a cold pair needs
        assertEquals(8, ServerWarmUp.rounds(s, load));
        assertEquals(8 * 2 * 2, ServerWarmUp.callSeconds(s, load));
        long measured = 0;
        for (Runner.Run r : runs) {
            measured += Runner.secondsOfRun(s, r);
        }
        assertEquals(measured + 32 + ClientJvm.JVM_SECONDS + ClientJvm.SETUP_SECONDS,
                Runner.secondsOf(s, Targets.get("sluice")), "the estimate counts the warm-up");

        Settings one = Settings.parse(new String[] {"--async", "1x64", "--benchmarks", "existUser"});
        Runner.Run only = ServerWarmUp.loadFor(one, Runner.runs(one, Targets.get("raw")));
        assertEquals("async t=1x64", only.label());
        assertEquals(15, ServerWarmUp.rounds(one, only)); // not the bulk warm-up's 3 rounds of 2 s
        assertEquals(30, ServerWarmUp.callSeconds(one, only));
        // a longer warm-up asked for is a longer server warm-up too
        Settings longer = Settings.parse(new String[] {"--async", "--no-sync", "--warmup-iterations", "10"});
        Runner.Run busiest = ServerWarmUp.loadFor(longer, Runner.runs(longer, Targets.get("sluice")));
        assertEquals(10 * 2 * 2, ServerWarmUp.callSeconds(longer, busiest));
    }

    @Test
    void noWarmUpWithoutAnAsyncLoadInAClientJvmPerRunOrWithoutWarmUpIterations() {
        for (String[] args : List.of(
                new String[0], // interleaved synchronous only: its rounds warm its own servers
                new String[] {"--client-jvm", "per-run"}, // synchronous only
                new String[] {"--full", "--async", "4x64"}, // forked client JVMs, 3 x 10 s warm-up each
                new String[] {"--smoke"})) { // no warm-up at all
            Settings s = Settings.parse(args);
            assertNull(ServerWarmUp.loadFor(s, Runner.runs(s, Targets.get("sluice"))), String.join(" ", args));
            assertEquals(0, ServerWarmUp.seconds(s, Runner.runs(s, Targets.get("sluice"))));
        }
    }

    /** Answers every call at once and counts the calls per method; fails every call of {@code failing}. */
    static final class Answers implements AsyncUserService {
        final Map<String, AtomicLong> calls = new ConcurrentHashMap<>();
        final String failing;

        Answers(String failing) {
            this.failing = failing;
        }

        private <T> CompletableFuture<T> answer(String method, T value) {
            calls.computeIfAbsent(method, m -> new AtomicLong()).incrementAndGet();
            return method.equals(failing) ? CompletableFuture.failedFuture(new IllegalStateException("refused"))
                    : CompletableFuture.completedFuture(value);
        }

        @Override
        public CompletableFuture<Boolean> existUser(String email) {
            return answer("existUser", Boolean.TRUE);
        }

        @Override
        public CompletableFuture<Boolean> createUser(User user) {
            return answer("createUser", Boolean.TRUE);
        }

        @Override
        public CompletableFuture<User> getUser(long id) {
            return answer("getUser", new User());
        }

        @Override
        public CompletableFuture<Page<User>> listUser(int pageNo) {
            return answer("listUser", new Page<>());
        }
    }

    private static AsyncUserServiceBenchmark benchmark(AsyncUserService service) {
        AsyncUserServiceBenchmark b = new AsyncUserServiceBenchmark();
        b.inflight = 4;
        b.timeoutMs = 1000;
        b.service = service;
        return b;
    }

    @Test
    void theWarmUpCallsEveryMethodOfTheRunFromEveryThread() throws Exception {
        Answers answers = new Answers(null);
        long calls = ServerWarmUp.warm(benchmark(answers), 3, List.of("existUser", "listUser"), 2,
                TimeUnit.MILLISECONDS.toNanos(20));
        assertTrue(answers.calls.get("existUser").get() > 3 * 4, "beyond the windows' first fill");
        assertTrue(answers.calls.get("listUser").get() > 0);
        assertEquals(Set.of("existUser", "listUser"), answers.calls.keySet()); // and no other method
        // every call issued after the first fill was counted (the last window's calls complete at once)
        long issued = answers.calls.values().stream().mapToLong(AtomicLong::get).sum();
        assertEquals(issued - 3 * 4, calls);
    }

    @Test
    void aFailedWarmUpCallEndsTheWarmUpWithItsCause() {
        Answers answers = new Answers("listUser");
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> ServerWarmUp.warm(
                benchmark(answers), 2, List.of("existUser", "listUser"), 50, TimeUnit.MILLISECONDS.toNanos(20)));
        assertTrue(e.getMessage().contains("refused"), e.getMessage());
    }
}
