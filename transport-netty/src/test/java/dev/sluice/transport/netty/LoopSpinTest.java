package dev.sluice.transport.netty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.transport.NativeTransport;
import dev.sluice.transport.TransportOptions;
import dev.sluice.transport.testing.LoopThreads;
import io.netty.channel.EventLoop;
import io.netty.channel.SelectStrategy;
import io.netty.util.IntSupplier;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@link LoopSpin} on real event loops: after {@link LoopSpin#expect()} the loop polls (it burns CPU instead of
 * sleeping) until the answer is written ({@link LoopSpin#answered()}) or the window runs out; misses halve the
 * window, an answer that a sleeping loop would have caught restores it.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LoopSpinTest {
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    private EventLoops loops;
    private long loopTid;

    @AfterEach
    void close() throws Exception {
        if (loops != null) {
            loops.group().shutdownGracefully(0, 1, TimeUnit.SECONDS).get(10, TimeUnit.SECONDS);
        }
    }

    private EventLoop loop(NativeTransport kind, Duration window) throws Exception {
        loops = EventLoops.create(kind, 1, "spin-test", window);
        EventLoop loop = loops.group().next();
        loopTid = loopThreadId(loop); // started: its strategy has run once
        return loop;
    }

    private static long loopThreadId(EventLoop loop) throws Exception {
        return loop.submit(() -> Thread.currentThread().getId()).get(10, TimeUnit.SECONDS);
    }

    /**
     * Expects an answer on {@code loop} once it is asleep (its thread used no CPU for 2 ms): only a loop that slept a
     * while before the call polls for its answer ({@link LoopSpin#IDLE_NANOS}).
     */
    private void expectWhenIdle(EventLoop loop) {
        LoopThreads.awaitAsleep(loopTid, "thread " + loopTid);
        loop.execute(LoopSpin::expect);
    }

    /** Waits (by polling a condition, at most 20 s) for what the loop does on its own. */
    private void await(BooleanSupplier condition, String what) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not within 20 s: " + what + " (" + (loops == null ? null
                        : loops.answerSpinStats()) + ")");
            }
            LockSupport.parkNanos(200_000); // not synchronisation: a poll that leaves the CPU to the loop
        }
    }

    /**
     * The condition the strategy exists for: with an answer expected, the loop keeps its CPU (a sleeping loop
     * accumulates none) and the answer written on the loop ends the window as a hit.
     */
    @ParameterizedTest
    @EnumSource(value = NativeTransport.class, names = {"NIO", "EPOLL"})
    void anExpectedAnswerFindsTheLoopPolling(NativeTransport kind) throws Exception {
        EventLoop loop = loop(kind, Duration.ofSeconds(30));
        long tid = loopThreadId(loop);
        long cpuBefore = THREADS.getThreadCpuTime(tid);
        expectWhenIdle(loop);
        await(() -> THREADS.getThreadCpuTime(tid) - cpuBefore > TimeUnit.MILLISECONDS.toNanos(50),
                "the loop polls: 50 ms of CPU after the answer was expected");
        assertEquals(0, loops.answerSpinStats().hits());
        loop.submit(() -> LoopSpin.answered()).get(10, TimeUnit.SECONDS); // the answer, as a drain says it
        LoopSpin.Stats stats = loops.answerSpinStats();
        assertEquals(1, stats.hits(), stats.toString());
        assertEquals(0, stats.misses(), stats.toString());
        // And then it sleeps: its CPU time stops growing (well under 50 ms in the next 300 ms of wall time).
        long cpuAfter = THREADS.getThreadCpuTime(tid);
        long wallAfter = System.nanoTime();
        await(() -> System.nanoTime() - wallAfter > TimeUnit.MILLISECONDS.toNanos(300), "300 ms pass");
        long used = THREADS.getThreadCpuTime(tid) - cpuAfter;
        assertTrue(used < TimeUnit.MILLISECONDS.toNanos(50), "a loop with nothing expected sleeps; used " + used);
    }

    /** A loop with no answer expected does not poll: nothing is counted and it stays asleep. */
    @Test
    void aLoopThatExpectsNothingSleeps() throws Exception {
        EventLoop loop = loop(NativeTransport.NIO, Duration.ofSeconds(30));
        long tid = loopThreadId(loop);
        long cpuBefore = THREADS.getThreadCpuTime(tid);
        long wallBefore = System.nanoTime();
        await(() -> System.nanoTime() - wallBefore > TimeUnit.MILLISECONDS.toNanos(300), "300 ms pass");
        long used = THREADS.getThreadCpuTime(tid) - cpuBefore;
        assertTrue(used < TimeUnit.MILLISECONDS.toNanos(50), "used " + used);
        assertEquals(new LoopSpin.Stats(TimeUnit.SECONDS.toNanos(30), 0, 0, TimeUnit.SECONDS.toNanos(30)),
                loops.answerSpinStats());
    }

    /**
     * A loop that did not sleep before the call came (it had tasks queued: under load) is not asked to poll; one
     * that slept a while is. The strategy driven as a loop drives it, on a thread of its own (it registers itself
     * with the thread that drives it).
     */
    @Test
    void onlyALoopThatWasIdleBeforeTheCallPolls() throws Exception {
        CompletableFuture<Void> done = new CompletableFuture<>();
        Thread driver = new Thread(() -> {
            try {
                SelectStrategy s = LoopSpin.factory(Duration.ofMillis(20)).newSelectStrategy();
                IntSupplier selectNow = () -> 0;
                assertEquals(0, s.calculateStrategy(selectNow, true), "tasks queued: select without waiting");
                LoopSpin.expect(); // the call, handled in that busy round
                assertEquals(SelectStrategy.SELECT, s.calculateStrategy(selectNow, false), "no window: it sleeps");
                long slept = System.nanoTime();
                while (System.nanoTime() - slept < 2 * LoopSpin.IDLE_NANOS) {
                    Thread.onSpinWait(); // the loop's sleep, as long as an idle loop's
                }
                LoopSpin.expect(); // a call after that sleep
                assertEquals(0, s.calculateStrategy(selectNow, false), "an idle loop polls for the answer");
                done.complete(null);
            } catch (Throwable t) {
                done.completeExceptionally(t);
            }
        });
        driver.start();
        done.get(10, TimeUnit.SECONDS);
    }

    /** An answer that does not come within the window: a miss, and the next window is half as long. */
    @Test
    void aWindowThatRunsOutIsAMissAndHalvesTheNext() throws Exception {
        EventLoop loop = loop(NativeTransport.NIO, Duration.ofMillis(20));
        expectWhenIdle(loop);
        await(() -> loops.answerSpinStats().misses() == 1, "the 20 ms window runs out");
        assertEquals(TimeUnit.MILLISECONDS.toNanos(10), loops.answerSpinStats().windowNanos());
        expectWhenIdle(loop);
        await(() -> loops.answerSpinStats().misses() == 2, "the 10 ms window runs out");
        assertEquals(TimeUnit.MILLISECONDS.toNanos(5), loops.answerSpinStats().windowNanos());
        assertEquals(0, loops.answerSpinStats().hits());
    }

    /**
     * Answers slower than any window (a method that blocks) halve it to nothing: the loop then sleeps at once. An
     * answer that comes within the full window after it was expected (polling would have caught it) restores it.
     */
    @Test
    void slowAnswersStopThePollingAndAFastOneRestoresIt() throws Exception {
        long max = TimeUnit.MILLISECONDS.toNanos(200);
        EventLoop loop = loop(NativeTransport.NIO, Duration.ofNanos(max));
        int misses = 0;
        while (loops.answerSpinStats().windowNanos() > 0) {
            expectWhenIdle(loop);
            int expected = ++misses;
            await(() -> loops.answerSpinStats().misses() == expected, "window " + expected + " runs out");
        }
        assertEquals(18, misses, "200 ms halved until under 1 µs");
        long tid = loopThreadId(loop);
        long cpuBefore = THREADS.getThreadCpuTime(tid);
        long wallBefore = System.nanoTime();
        loop.execute(LoopSpin::expect); // no window now: the loop sleeps
        await(() -> System.nanoTime() - wallBefore > TimeUnit.MILLISECONDS.toNanos(300), "300 ms pass");
        assertTrue(THREADS.getThreadCpuTime(tid) - cpuBefore < TimeUnit.MILLISECONDS.toNanos(50), "it slept");
        // Its answer comes after more than the full window: polling would not have caught it either.
        loop.submit(() -> LoopSpin.answered()).get(10, TimeUnit.SECONDS);
        assertEquals(0, loops.answerSpinStats().windowNanos());
        // Expected, and answered at once: the sleeping loop was woken well within the full window.
        loop.submit(() -> LoopSpin.expect()).get(10, TimeUnit.SECONDS);
        loop.submit(() -> LoopSpin.answered()).get(10, TimeUnit.SECONDS);
        assertEquals(max, loops.answerSpinStats().windowNanos());
        assertEquals(0, loops.answerSpinStats().hits(), "it slept through both: no window ended with a task");
    }

    @Test
    void expectOffAnEventLoopOrOnAPlainOneDoesNothing() throws Exception {
        LoopSpin.expect(); // the test thread: no strategy, no error
        LoopSpin.answered();
        EventLoop plain = loop(NativeTransport.NIO, Duration.ZERO);
        plain.submit(() -> LoopSpin.expect()).get(10, TimeUnit.SECONDS);
        assertNull(loops.answerSpinStats(), "no strategy, no counters");
    }

    @Test
    void windowsAreBoundedInTheOptions() {
        assertEquals(Duration.ZERO, TransportOptions.defaults().answerSpin(), "off by default");
        Duration suggested = Duration.ofNanos(TransportOptions.SUGGESTED_ANSWER_SPIN_MICROS * 1000L);
        assertEquals(suggested, TransportOptions.builder().answerSpin(suggested).build().answerSpin());
        IllegalArgumentException tooLong = assertThrows(IllegalArgumentException.class,
                () -> TransportOptions.builder().answerSpin(Duration.ofMillis(2)));
        assertTrue(tooLong.getMessage().contains("1 ms"), tooLong.getMessage());
        assertThrows(IllegalArgumentException.class, () -> TransportOptions.builder().answerSpin(Duration.ofNanos(10)));
        assertThrows(IllegalArgumentException.class, () -> TransportOptions.builder().answerSpin(Duration.ofNanos(-1)));
    }
}
