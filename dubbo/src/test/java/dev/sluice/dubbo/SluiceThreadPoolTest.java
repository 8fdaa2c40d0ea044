package dev.sluice.dubbo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.transport.internal.ServicePool;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.apache.dubbo.common.URL;
import org.apache.dubbo.common.threadlocal.InternalThread;
import org.apache.dubbo.common.threadpool.ThreadPool;
import org.apache.dubbo.rpc.model.ApplicationModel;
import org.apache.dubbo.rpc.model.FrameworkModel;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link SluiceThreadPool} as Dubbo finds it: through its {@code ThreadPool} SPI and the adaptive extension that
 * reads {@code threadpool=} from the URL, with Dubbo's pool keys. What happens between a real provider and real
 * consumers (the refusal reaching the consumer, netty4 and sluice on either side) is {@code DubboThreadPoolTest} in
 * the root {@code src/test}.
 *
 * <p>Runs on the test thread; the pools' workers run the tasks.
 */
@Timeout(60)
class SluiceThreadPoolTest {
    /** A model of its own (the pool's refusal reads its listeners from it), destroyed after each test. */
    private final FrameworkModel model = new FrameworkModel();
    private final ApplicationModel application = model.newApplication();
    private final List<ServicePool> pools = new ArrayList<>();

    @AfterEach
    void close() throws InterruptedException {
        for (ServicePool pool : pools) {
            pool.shutdownNow();
            assertTrue(pool.awaitTermination(10, TimeUnit.SECONDS), pool.toString());
        }
        model.destroy();
    }

    private ServicePool pool(String parameters) {
        URL url = URL.valueOf("dubbo://127.0.0.1:20880/dev.sluice.Example?threadpool=sluice" + parameters,
                application);
        Executor executor = model.getExtensionLoader(ThreadPool.class).getAdaptiveExtension().getExecutor(url);
        ServicePool pool = assertInstanceOf(ServicePool.class, executor, "threadpool=sluice picks Sluice's pool");
        pools.add(pool);
        return pool;
    }

    /** Without other keys: the fixed pool's 200 threads and no queue, Dubbo's thread factory and names. */
    @Test
    void threadpoolSluiceSelectsTheHotWorkerPoolWithTheFixedPoolsDefaults() throws Exception {
        ServicePool pool = pool("");
        assertEquals(200, pool.maxThreads());
        assertEquals(200, pool.maxInFlight(), "threads + queues, queues 0");
        assertEquals(ServicePool.coreThreads(200), pool.coreThreads());
        AtomicReference<Thread> ranOn = new AtomicReference<>();
        CountDownLatch ran = new CountDownLatch(1);
        pool.execute(() -> {
            ranOn.set(Thread.currentThread());
            ran.countDown();
        });
        assertTrue(ran.await(10, TimeUnit.SECONDS), pool.toString());
        assertInstanceOf(InternalThread.class, ranOn.get(), "Dubbo's InternalThread: RpcContext's fast path");
        assertEquals("Dubbo-thread-1", ranOn.get().getName());
        assertTrue(ranOn.get().isDaemon());
    }

    @Test
    void dubbosPoolKeysSetTheBounds() {
        ServicePool pool = pool("&threads=16&queues=100&corethreads=3&alive=5000&threadname=orders");
        assertEquals(16, pool.maxThreads());
        assertEquals(116, pool.maxInFlight());
        assertEquals(3, pool.coreThreads());
        assertEquals("orders", pool.name());
        assertEquals(Integer.MAX_VALUE, pool("&queues=-1").maxInFlight(), "a negative queues lifts the bound");
        assertEquals(4, pool("&threads=4&corethreads=9").coreThreads(), "corethreads is at most threads");
    }

    @Test
    void outOfRangeValuesFailNamingTheKey() {
        for (String bad : List.of("threads=0", "alive=0", "corethreads=-1")) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> pool("&" + bad));
            assertTrue(e.getMessage().contains(bad + " is out of range"), e.getMessage());
        }
    }

    /**
     * threads=4, queues=2 and only 2 workers started at once (corethreads): six tasks that block are all taken, the
     * pool grows to 4 workers because the waiting ones stall behind blocked workers, and a seventh is refused with
     * Dubbo's "Thread pool is EXHAUSTED!" until a place is free.
     */
    @Test
    void blockedTasksGrowThePoolToThreadsAndMoreThanThreadsPlusQueuesAreRefused() throws Exception {
        ServicePool pool = pool("&threads=4&queues=2&corethreads=2&threadname=grow");
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch fourRunning = new CountDownLatch(4);
        AtomicInteger done = new AtomicInteger();
        Runnable blocked = () -> {
            fourRunning.countDown();
            try {
                release.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            done.incrementAndGet();
        };
        try {
            for (int i = 0; i < 6; i++) {
                pool.execute(blocked);
            }
            assertTrue(fourRunning.await(30, TimeUnit.SECONDS), "the pool did not grow to threads=4: " + pool);
            assertEquals(4, pool.threads(), pool.toString());
            RejectedExecutionException e = assertThrows(RejectedExecutionException.class,
                    () -> pool.execute(() -> { }));
            assertTrue(e.getMessage().startsWith("Thread pool is EXHAUSTED! Thread Name: grow, Pool Size: 4"),
                    e.getMessage());
            assertTrue(e.getMessage().contains("max: 4") && e.getMessage().contains("limit 6, waiting 2")
                    && e.getMessage().endsWith("in dubbo://127.0.0.1:20880!"), e.getMessage());
        } finally {
            release.countDown();
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (pool.inFlight() > 0) {
            assertTrue(System.nanoTime() < deadline, "tasks that returned still count: " + pool);
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
        assertEquals(6, done.get());
        CompletableFuture.runAsync(() -> { }, pool).get(30, TimeUnit.SECONDS); // taken again once calls returned
        assertEquals(4, pool.largestThreads(), "never more than threads: " + pool);
    }

    /**
     * Eight callers keep a service that sleeps 5 ms busy while another calls a fast one: every fast call is taken
     * at once (the pool grows past its 2 core workers for the sleepers, up to all 8 at once) and none waits long.
     */
    @Test
    void aServiceThatSleepsDoesNotStarveAFastOne() throws Exception {
        ServicePool pool = pool("&threads=16&corethreads=2&threadname=sleepers");
        AtomicInteger sleeping = new AtomicInteger();
        AtomicInteger mostSleeping = new AtomicInteger();
        Runnable sleeper = () -> {
            mostSleeping.accumulateAndGet(sleeping.incrementAndGet(), Math::max);
            try {
                Thread.sleep(5); // the behaviour under test: a service method that blocks
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                sleeping.decrementAndGet();
            }
        };
        CountDownLatch stop = new CountDownLatch(1);
        List<CompletableFuture<Integer>> callers = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            callers.add(CompletableFuture.supplyAsync(() -> {
                int calls = 0;
                while (stop.getCount() > 0) {
                    CompletableFuture.runAsync(sleeper, pool).join();
                    calls++;
                }
                return calls;
            }, runnable -> new Thread(runnable, "sleepy-caller").start()));
        }
        long worstNanos = 0;
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            for (int i = 0; i < 200 || mostSleeping.get() < 8; i++) {
                assertTrue(System.nanoTime() < deadline, "the sleepers never all ran at once: " + pool);
                long t0 = System.nanoTime();
                CompletableFuture.runAsync(() -> { }, pool).get(10, TimeUnit.SECONDS);
                worstNanos = Math.max(worstNanos, System.nanoTime() - t0);
            }
        } finally {
            stop.countDown();
        }
        int sleeps = 0;
        for (CompletableFuture<Integer> caller : callers) {
            sleeps += caller.get(30, TimeUnit.SECONDS);
        }
        assertEquals(8, mostSleeping.get(), "all eight sleepers ran at once: the pool grew past its core; " + pool);
        assertTrue(sleeps >= 8, "the sleepers were served too: " + sleeps);
        assertTrue(worstNanos < TimeUnit.SECONDS.toNanos(1), "a fast call waited "
                + TimeUnit.NANOSECONDS.toMillis(worstNanos) + " ms behind the sleeping ones: " + pool);
    }
}
