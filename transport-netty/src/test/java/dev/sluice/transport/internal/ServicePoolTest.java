package dev.sluice.transport.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@link ServicePool}: hand-off without lost wake-ups, growth past blocked workers, rejection and shutdown. */
@Timeout(120)
class ServicePoolTest {

    private static final long MINUTE = TimeUnit.MINUTES.toNanos(1);

    private static List<Thread> liveThreads(String prefix) {
        List<Thread> live = new ArrayList<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().startsWith(prefix + "-") && t.isAlive()) {
                live.add(t);
            }
        }
        return live;
    }

    private static void terminate(ServicePool pool, String name) throws InterruptedException {
        pool.shutdownNow();
        assertTrue(pool.awaitTermination(10, TimeUnit.SECONDS), "pool did not terminate: " + pool);
        assertTrue(pool.isTerminated());
        for (Thread t : liveThreads(name)) {
            t.join(TimeUnit.SECONDS.toMillis(10)); // a thread counts down termination just before it returns
        }
        assertEquals(List.of(), liveThreads(name), "threads left after termination");
    }

    /**
     * Producers submit small batches at random moments just after the previous batch drained, i.e. while workers
     * spin, register as parked, or park. The monitor is off, so a lost wake-up leaves a task that never runs.
     */
    @ParameterizedTest(name = "max {0} threads")
    @ValueSource(ints = {1, 4})
    void everyTaskRunsWhenProducersRaceParkingWorkers(int max) throws Exception {
        raceProducers("race-park", max, MINUTE, 3_000, 150_000);
    }

    /** As above with a keep-alive of 20 µs: workers keep exiting (and new ones starting) while producers submit. */
    @ParameterizedTest(name = "max {0} threads")
    @ValueSource(ints = {1, 4})
    void everyTaskRunsWhenProducersRaceWorkersExpiring(int max) throws Exception {
        raceProducers("race-expire", max, TimeUnit.MICROSECONDS.toNanos(20), 3_000, 150_000);
    }

    /**
     * One worker at most and a keep-alive of 1 ns: the worker leaves as soon as its spin ends, and producers submit
     * just around that moment (0-40 µs after the queue drained; the spin lasts 20 µs). A submitter that claims the
     * wake-up while the leaving worker still counts as live cannot start a new one, and the leaving worker, finding
     * the wake-up claimed, starts none either; one of them must look again once the other is done.
     */
    @Test
    void everyTaskRunsWhenASubmitterRacesTheLastWorkerLeaving() throws Exception {
        raceProducers("race-leave", 1, 1, 5_000, 40_000);
    }

    /**
     * Calls that come further apart than the spin (each one only after the worker has parked and the whole spin time
     * has passed): every spin finds nothing, so the spin halves each time until the worker parks at once. Then a call
     * that comes right after the worker parked (well within the longest spin) restores the full spin.
     */
    @Test
    void theSpinShrinksToNoneForCallsFurtherApartAndComesBackForCallsSooner() throws Exception {
        String name = "adapt";
        long longest = TimeUnit.MILLISECONDS.toNanos(20);
        ServicePool pool = new ServicePool(name, 1, 100, MINUTE, 0, longest);
        try {
            assertEquals(longest, pool.spinNanos());
            int calls = 0;
            long previous = longest;
            while (pool.spinNanos() > 0) {
                assertTrue(++calls <= 40, "the spin never reached zero: " + pool.spinNanos() + " ns after " + calls);
                runOne(pool);
                awaitParked(pool);
                long now = pool.spinNanos();
                assertTrue(now < previous, "a fruitless spin of " + previous + " ns left the next at " + now + " ns");
                previous = now;
                long until = System.nanoTime() + longest; // the next call comes later than any spin could last
                while (System.nanoTime() - until < 0) {
                    Thread.onSpinWait();
                }
            }
            // 20 ms halved down to under 1 µs: 15 fruitless spins
            assertEquals(15, calls, "calls until the worker stopped spinning");
            runOne(pool); // comes long after the park: no spin would have caught it
            assertEquals(0, pool.spinNanos(), "a call later than the longest spin restored it");
            awaitParked(pool);
            runOne(pool); // the worker parked moments ago
            assertEquals(longest, pool.spinNanos(), "a call a spin would have caught restores the full spin");
        } finally {
            terminate(pool, name);
        }
    }

    private static void runOne(ServicePool pool) throws InterruptedException {
        CountDownLatch ran = new CountDownLatch(1);
        pool.execute(ran::countDown);
        assertTrue(ran.await(10, TimeUnit.SECONDS), "task never ran: " + pool);
    }

    private static void awaitParked(ServicePool pool) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (pool.parkedWorkers() == 0) {
            assertTrue(System.nanoTime() - deadline < 0, "the worker never parked: " + pool);
            Thread.yield();
        }
    }

    private static void raceProducers(String name, int max, long keepAlive, int iterations, long maxDelayNanos)
            throws Exception {
        ServicePool pool = new ServicePool(name, max, 1_000, keepAlive, 0);
        int producers = 3;
        int perProducer = 3;
        CyclicBarrier start = new CyclicBarrier(producers + 1);
        AtomicReference<CountDownLatch> done = new AtomicReference<>();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        AtomicInteger ran = new AtomicInteger();
        List<Thread> threads = new ArrayList<>();
        for (int p = 0; p < producers; p++) {
            Thread t = new Thread(() -> {
                try {
                    for (int i = 0; i < iterations; i++) {
                        start.await();
                        CountDownLatch latch = done.get();
                        long delay = ThreadLocalRandom.current().nextLong(maxDelayNanos); // spin, park or exit
                        long until = System.nanoTime() + delay;
                        while (System.nanoTime() - until < 0) {
                            Thread.onSpinWait();
                        }
                        for (int k = 0; k < perProducer; k++) {
                            pool.execute(() -> {
                                ran.incrementAndGet();
                                latch.countDown();
                            });
                        }
                    }
                } catch (InterruptedException | BrokenBarrierException e) {
                    // the test has failed and is tearing down
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            }, name + "-producer-" + p);
            t.setDaemon(true);
            t.start();
            threads.add(t);
        }
        try {
            for (int i = 0; i < iterations; i++) {
                CountDownLatch latch = new CountDownLatch(producers * perProducer);
                done.set(latch);
                start.await(10, TimeUnit.SECONDS);
                if (!latch.await(10, TimeUnit.SECONDS)) {
                    fail("iteration " + i + ": " + latch.getCount() + " tasks never ran (lost wake-up?) " + pool
                            + (failure.get() == null ? "" : ", producer failed: " + failure.get()));
                }
            }
            if (failure.get() != null) {
                throw new AssertionError("a producer failed", failure.get());
            }
            assertEquals(iterations * producers * perProducer, ran.get());
        } finally {
            for (Thread t : threads) {
                t.interrupt();
            }
            terminate(pool, name);
        }
    }

    /**
     * More tasks than core workers wait for a task queued behind them: without growth past blocked workers this
     * deadlocks. The pool must add workers until the releasing task runs.
     */
    @Test
    void blockedWorkersDoNotStarveTheQueue() throws Exception {
        String name = "blocked";
        ServicePool pool = new ServicePool(name, 64, 1_000, MINUTE, ServicePool.DEFAULT_STALL_NANOS);
        try {
            int blockers = pool.coreThreads() + 5;
            CountDownLatch release = new CountDownLatch(1);
            CountDownLatch finished = new CountDownLatch(blockers);
            for (int i = 0; i < blockers; i++) {
                pool.execute(() -> {
                    try {
                        if (release.await(60, TimeUnit.SECONDS)) {
                            finished.countDown();
                        }
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                });
            }
            pool.execute(release::countDown);
            assertTrue(finished.await(30, TimeUnit.SECONDS), "blocked tasks starved the queue: " + pool);
            assertTrue(pool.threads() > pool.coreThreads(), "the pool should have grown past its core: " + pool);
            assertTrue(pool.threads() <= 64, pool.toString());
        } finally {
            terminate(pool, name);
        }
    }

    /**
     * As above, but the blocked tasks stay runnable (they spin, as a thread in socket I/O shows as runnable): the
     * pool must still grow, after the longer runnable stall.
     */
    @Test
    void runnableWaitingWorkersDoNotStarveTheQueue() throws Exception {
        String name = "runnable";
        ServicePool pool = new ServicePool(name, 64, 1_000, MINUTE, ServicePool.DEFAULT_STALL_NANOS);
        java.util.concurrent.atomic.AtomicBoolean release = new java.util.concurrent.atomic.AtomicBoolean();
        try {
            int blockers = pool.coreThreads() + 1;
            CountDownLatch finished = new CountDownLatch(blockers);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            for (int i = 0; i < blockers; i++) {
                pool.execute(() -> {
                    while (!release.get() && System.nanoTime() - deadline < 0) {
                        Thread.onSpinWait();
                    }
                    finished.countDown();
                });
            }
            pool.execute(() -> release.set(true));
            assertTrue(finished.await(30, TimeUnit.SECONDS), "runnable tasks starved the queue: " + pool);
            assertTrue(pool.threads() > pool.coreThreads(), "the pool should have grown past its core: " + pool);
        } finally {
            release.set(true);
            terminate(pool, name);
        }
    }

    /** A pool that may not grow (max = core) keeps its limit however long the queue waits. */
    @Test
    void growthStopsAtTheMaximum() throws Exception {
        String name = "max";
        ServicePool pool = new ServicePool(name, 3, 1_000, MINUTE, ServicePool.DEFAULT_STALL_NANOS);
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch started = new CountDownLatch(3);
        try {
            for (int i = 0; i < 10; i++) {
                pool.execute(() -> {
                    started.countDown();
                    try {
                        release.await(60, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                });
            }
            assertTrue(started.await(30, TimeUnit.SECONDS), "three workers should have started: " + pool);
            assertEquals(3, pool.threads(), pool.toString());
            assertEquals(7, pool.queuedTasks(), pool.toString());
        } finally {
            release.countDown();
            terminate(pool, name);
        }
    }

    @Test
    void tasksBeyondTheQueueCapacityAreRejected() throws Exception {
        String name = "reject";
        ServicePool pool = new ServicePool(name, 1, 3, MINUTE, 0);
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch running = new CountDownLatch(1);
        AtomicInteger ran = new AtomicInteger();
        CountDownLatch all = new CountDownLatch(4);
        Runnable counted = () -> {
            ran.incrementAndGet();
            all.countDown();
        };
        try {
            pool.execute(() -> {
                running.countDown();
                try {
                    release.await(60, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                counted.run();
            });
            assertTrue(running.await(30, TimeUnit.SECONDS));
            for (int i = 0; i < 3; i++) {
                pool.execute(counted);
            }
            RejectedExecutionException e = assertThrows(RejectedExecutionException.class, () -> pool.execute(counted));
            assertTrue(e.getMessage().contains("3 tasks wait (capacity 3)"), e.getMessage());
            release.countDown();
            assertTrue(all.await(30, TimeUnit.SECONDS), pool.toString());
            assertEquals(4, ran.get());
            pool.execute(counted); // room again once the queue drained
        } finally {
            release.countDown();
            terminate(pool, name);
        }
    }

    /** shutdown(): new tasks are rejected, queued ones still run, then every thread exits. */
    @Test
    void shutdownRunsQueuedTasksThenEveryThreadExits() throws Exception {
        String name = "shutdown";
        ServicePool pool = new ServicePool(name, 2, 100, MINUTE, ServicePool.DEFAULT_STALL_NANOS);
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch running = new CountDownLatch(2);
        AtomicInteger ran = new AtomicInteger();
        for (int i = 0; i < 2; i++) {
            pool.execute(() -> {
                running.countDown();
                try {
                    release.await(60, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
        }
        assertTrue(running.await(30, TimeUnit.SECONDS));
        for (int i = 0; i < 20; i++) {
            pool.execute(ran::incrementAndGet);
        }
        pool.shutdown();
        assertTrue(pool.isShutdown());
        assertThrows(RejectedExecutionException.class, () -> pool.execute(ran::incrementAndGet));
        assertFalse(pool.awaitTermination(0, TimeUnit.SECONDS));
        release.countDown();
        assertTrue(pool.awaitTermination(30, TimeUnit.SECONDS), pool.toString());
        assertEquals(20, ran.get());
        for (Thread t : liveThreads(name)) {
            t.join(TimeUnit.SECONDS.toMillis(10));
        }
        assertEquals(List.of(), liveThreads(name));
    }

    /** shutdownNow(): queued tasks are returned unrun, running ones are interrupted, then every thread exits. */
    @Test
    void shutdownNowReturnsQueuedTasksAndInterruptsRunningOnes() throws Exception {
        String name = "shutdown-now";
        ServicePool pool = new ServicePool(name, 2, 100, MINUTE, 0);
        CountDownLatch running = new CountDownLatch(2);
        CountDownLatch interrupted = new CountDownLatch(2);
        for (int i = 0; i < 2; i++) {
            pool.execute(() -> {
                running.countDown();
                try {
                    new CountDownLatch(1).await(60, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    interrupted.countDown();
                }
            });
        }
        assertTrue(running.await(30, TimeUnit.SECONDS));
        AtomicInteger ran = new AtomicInteger();
        for (int i = 0; i < 20; i++) {
            pool.execute(ran::incrementAndGet);
        }
        List<Runnable> left = pool.shutdownNow();
        assertEquals(20, left.size());
        assertTrue(interrupted.await(30, TimeUnit.SECONDS), "running tasks were not interrupted");
        assertThrows(RejectedExecutionException.class, () -> pool.execute(ran::incrementAndGet));
        terminate(pool, name);
        assertEquals(0, ran.get());
    }

    /**
     * A pool bounded to 3 tasks in flight ({@code maxInFlight}, Dubbo's {@code threads} + {@code queues}): 2 tasks
     * blocked on 2 workers and 1 waiting fill it, so a fourth is refused through the pool's {@link
     * ServicePool.Rejection}, whose exception {@code execute} throws; the tasks that returned and the tasks
     * {@code shutdownNow} handed back free their places.
     */
    @Test
    void runningAndWaitingTasksCountTowardsTheInFlightBound() throws Exception {
        String name = "in-flight";
        AtomicReference<String> reason = new AtomicReference<>();
        ServicePool pool = ServicePool.settings(name, 2).core(2).maxInFlight(3).stallNanos(0)
                .rejection((p, why) -> {
                    reason.set(why);
                    return new RejectedExecutionException("refused by the rejection: " + why);
                })
                .build();
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch started = new CountDownLatch(2);
        Runnable blocked = () -> {
            started.countDown();
            try {
                release.await(60, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        };
        try {
            for (int i = 0; i < 3; i++) {
                pool.execute(blocked);
            }
            assertTrue(started.await(30, TimeUnit.SECONDS), pool.toString());
            assertEquals(3, pool.inFlight(), pool.toString());
            assertEquals(1, pool.queuedTasks(), pool.toString());
            RejectedExecutionException e = assertThrows(RejectedExecutionException.class,
                    () -> pool.execute(() -> { }));
            assertTrue(e.getMessage().startsWith("refused by the rejection: "), e.getMessage());
            assertTrue(reason.get().contains("3 tasks are running or waiting (limit 3)"), reason.get());
            release.countDown();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (pool.inFlight() > 0) {
                assertTrue(System.nanoTime() < deadline, "tasks that returned still count: " + pool);
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
            }
            CountDownLatch ran = new CountDownLatch(1);
            pool.execute(ran::countDown);
            assertTrue(ran.await(30, TimeUnit.SECONDS), pool.toString());
        } finally {
            release.countDown();
            terminate(pool, name);
        }
        assertEquals(0, pool.inFlight(), "tasks handed back by shutdownNow still count: " + pool);
        assertEquals(2, pool.largestThreads(), pool.toString());
    }

    /** The workers are the threads the pool's factory makes, and the pool still starts only what it needs. */
    @Test
    void workersAreMadeByTheThreadFactory() throws Exception {
        String name = "factory";
        AtomicInteger made = new AtomicInteger();
        ServicePool pool = ServicePool.settings(name, 4).stallNanos(0).threadFactory(r -> {
            Thread t = new Thread(r, name + "-made-" + made.incrementAndGet());
            t.setDaemon(true);
            return t;
        }).build();
        try {
            AtomicReference<String> ranOn = new AtomicReference<>();
            CountDownLatch ran = new CountDownLatch(1);
            pool.execute(() -> {
                ranOn.set(Thread.currentThread().getName());
                ran.countDown();
            });
            assertTrue(ran.await(30, TimeUnit.SECONDS), pool.toString());
            assertEquals(name + "-made-1", ranOn.get());
            assertEquals(1, made.get(), "one task, one thread: " + pool);
        } finally {
            terminate(pool, name);
        }
    }

    /** A task that throws does not kill the pool or lose the tasks behind it. */
    @Test
    void aThrowingTaskDoesNotStopTheWorker() throws Exception {
        String name = "throws";
        ServicePool pool = new ServicePool(name, 1, 100, MINUTE, 0);
        CountDownLatch after = new CountDownLatch(1);
        try {
            Thread.UncaughtExceptionHandler quiet = (t, e) -> { };
            pool.execute(() -> {
                Thread.currentThread().setUncaughtExceptionHandler(quiet);
                throw new IllegalStateException("boom");
            });
            pool.execute(after::countDown);
            assertTrue(after.await(30, TimeUnit.SECONDS), pool.toString());
        } finally {
            terminate(pool, name);
        }
    }
}
