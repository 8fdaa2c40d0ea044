package dev.sluice.rpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.codec.dubbo.internal.DubboConstants;
import dev.sluice.transport.internal.ServicePool;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@link SluiceServer} on its default {@link ServicePool}: blocking services, the pool's limits, end to end. */
@Timeout(120)
class ServicePoolServerTest {
    /** Calls each lost-call test sends to a pool that will not run them. */
    private static final int LOST_CALLS = 30;

    /** The service under test; its methods block the way a service calling a database would. */
    public interface ProbeService {
        /** Sleeps {@code millis}: the service's behaviour, not test synchronisation. */
        String sleep(int millis);

        /** Waits until {@link #release()} is called (at most 60 s). */
        String hold();

        String release();

        String echo(String s);
    }

    static final class ProbeImpl implements ProbeService {
        final AtomicInteger sleeping = new AtomicInteger();
        final AtomicInteger maxSleeping = new AtomicInteger();
        final CountDownLatch released = new CountDownLatch(1);
        final AtomicInteger holding = new AtomicInteger();
        final AtomicInteger echoes = new AtomicInteger();
        /** The thread that ran the last {@link #echo}. */
        volatile Thread echoedOn;

        @Override
        public String sleep(int millis) {
            maxSleeping.accumulateAndGet(sleeping.incrementAndGet(), Math::max);
            try {
                Thread.sleep(millis);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                sleeping.decrementAndGet();
            }
            return "slept";
        }

        @Override
        public String hold() {
            holding.incrementAndGet();
            try {
                return released.await(60, TimeUnit.SECONDS) ? "held" : "timed out";
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return "interrupted";
            }
        }

        @Override
        public String release() {
            released.countDown();
            return "released";
        }

        @Override
        public String echo(String s) {
            echoes.incrementAndGet();
            echoedOn = Thread.currentThread();
            return s;
        }
    }

    private final List<AutoCloseable> closeables = new ArrayList<>();
    private final ExecutorService callers = Executors.newCachedThreadPool();

    @AfterEach
    void closeAll() throws Exception {
        callers.shutdownNow();
        for (int i = closeables.size() - 1; i >= 0; i--) {
            closeables.get(i).close();
        }
    }

    private SluiceServer start(SluiceServer.Builder builder) {
        SluiceServer server = builder.start();
        closeables.add(server);
        return server;
    }

    private ProbeService client(SluiceServer server) {
        SluiceClient client = SluiceClient.builder().address("127.0.0.1", server.port())
                .timeout(Duration.ofSeconds(30)).build();
        closeables.add(client);
        return client.proxy(ProbeService.class);
    }

    private static int core() {
        return ServicePool.coreThreads(200);
    }

    /**
     * A server built with the defaults runs its methods on the hot-worker pool: the worker that ran a call, once idle,
     * is parked by a {@link ServicePool}; with {@code hotWorkers(false)} it waits in a plain thread pool's queue.
     */
    @Test
    void aServerBuiltWithTheDefaultsRunsItsMethodsOnHotWorkers() throws Exception {
        ProbeImpl hot = new ProbeImpl();
        assertEquals("a", client(start(SluiceServer.builder().port(0).register(ProbeService.class, hot))).echo("a"));
        Object blocker = blockerOnceIdle(hot.echoedOn);
        assertTrue(blocker instanceof ServicePool, "an idle worker of the default pool waits in " + blocker);

        ProbeImpl plain = new ProbeImpl();
        assertEquals("b", client(start(SluiceServer.builder().port(0).hotWorkers(false)
                .register(ProbeService.class, plain))).echo("b"));
        Object plainBlocker = blockerOnceIdle(plain.echoedOn);
        assertTrue(plainBlocker != null && !(plainBlocker instanceof ServicePool),
                "hotWorkers(false): an idle worker waits in " + plainBlocker);
    }

    /** What {@code worker} parks on once it has finished its call and found no other (within 10 s). */
    private static Object blockerOnceIdle(Thread worker) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        Object blocker;
        while ((blocker = java.util.concurrent.locks.LockSupport.getBlocker(worker)) == null
                && System.nanoTime() - deadline < 0) {
            Thread.yield();
        }
        return blocker;
    }

    /**
     * More calls than the pool's hot workers block until a call that arrives after them: the default pool must grow
     * past its core to run that call, or every call times out.
     */
    @Test
    void callsBlockedOnALaterCallDoNotDeadlockTheDefaultPool() throws Exception {
        ProbeImpl impl = new ProbeImpl();
        SluiceServer server = start(SluiceServer.builder().port(0).hotWorkers(true).register(ProbeService.class, impl));
        ProbeService probe = client(server);
        int blocked = core() + 4;
        List<Future<String>> holds = new ArrayList<>();
        for (int i = 0; i < blocked; i++) {
            holds.add(callers.submit(probe::hold));
        }
        assertEquals("released", callers.submit(probe::release).get(60, TimeUnit.SECONDS));
        for (Future<String> f : holds) {
            assertEquals("held", f.get(60, TimeUnit.SECONDS));
        }
    }

    /**
     * 32 callers of a method that sleeps 5 ms, and one caller of a quick method: every call succeeds, and the server
     * ran more sleeping calls at once than it keeps hot workers (it grew instead of queueing them behind each other).
     */
    @Test
    void aServiceThatSleeps5msDoesNotStarveOtherCalls() throws Exception {
        ProbeImpl impl = new ProbeImpl();
        SluiceServer server = start(SluiceServer.builder().port(0).hotWorkers(true).register(ProbeService.class, impl));
        ProbeService probe = client(server);
        List<Future<?>> sleepers = new ArrayList<>();
        for (int t = 0; t < 32; t++) {
            sleepers.add(callers.submit(() -> {
                for (int i = 0; i < 20; i++) {
                    assertEquals("slept", probe.sleep(5));
                }
                return null;
            }));
        }
        Future<?> quick = callers.submit(() -> {
            for (int i = 0; i < 200; i++) {
                assertEquals("q" + i, probe.echo("q" + i));
            }
            return null;
        });
        quick.get(60, TimeUnit.SECONDS);
        for (Future<?> f : sleepers) {
            f.get(60, TimeUnit.SECONDS);
        }
        assertTrue(impl.maxSleeping.get() > core(), "at most " + impl.maxSleeping.get()
                + " sleeping calls ran at once; the pool keeps " + core() + " hot workers and should have grown");
        assertEquals(0, server.inFlight());
    }

    /** Closing the server ends every service thread it started, the grown ones and the monitor included. */
    @Test
    void closingTheServerEndsItsServiceThreads() throws Exception {
        java.util.Set<Thread> before = Thread.getAllStackTraces().keySet();
        ProbeImpl impl = new ProbeImpl();
        SluiceServer server =
                SluiceServer.builder().port(0).hotWorkers(true).register(ProbeService.class, impl).start();
        ProbeService probe = client(server);
        List<Future<String>> holds = new ArrayList<>();
        for (int i = 0; i < core() + 3; i++) {
            holds.add(callers.submit(probe::hold));
        }
        assertEquals("released", callers.submit(probe::release).get(60, TimeUnit.SECONDS));
        for (Future<String> f : holds) {
            assertEquals("held", f.get(60, TimeUnit.SECONDS));
        }
        List<Thread> started = new ArrayList<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (!before.contains(t) && t.getName().startsWith("sluice-service")) {
                started.add(t);
            }
        }
        long workers = started.stream().filter(t -> !t.getName().endsWith("-monitor")).count();
        assertTrue(workers > core(), "the pool should have grown past its core: " + started);
        server.close(Duration.ofSeconds(10)).get(30, TimeUnit.SECONDS);
        for (Thread t : started) {
            t.join(TimeUnit.SECONDS.toMillis(10));
            assertTrue(!t.isAlive(), t.getName() + " outlived the server's close");
        }
    }

    /**
     * threads(1, 1): one call runs, one waits, the next is answered with status 100 (not executed), and the first two
     * still complete.
     */
    @Test
    void aCallBeyondTheQueueCapacityIsAnsweredWithStatus100() throws Exception {
        ProbeImpl impl = new ProbeImpl();
        SluiceServer server =
                start(SluiceServer.builder().port(0).hotWorkers(true).register(ProbeService.class, impl).threads(1, 1));
        ProbeService probe = client(server);
        Future<String> running = callers.submit(probe::hold);
        awaitCondition(() -> impl.holding.get() == 1, "the first call should be running");
        Future<String> waiting = callers.submit(() -> probe.echo("queued"));
        awaitCondition(() -> server.inFlight() == 2, "the second call should be queued");
        RpcException e = assertThrows(RpcException.class, () -> probe.echo("refused"));
        assertEquals(DubboConstants.STATUS_SERVER_THREADPOOL_EXHAUSTED, e.status());
        assertTrue(e.getMessage().contains("thread pool is exhausted"), e.getMessage());
        assertEquals(1, server.stats().refusedRequests());
        impl.released.countDown();
        assertEquals("held", running.get(60, TimeUnit.SECONDS));
        assertEquals("queued", waiting.get(60, TimeUnit.SECONDS));
    }

    /**
     * docs/reliability.md E25c: calls a caller's {@code ThreadPoolExecutor} with {@code DiscardPolicy} drops (its one
     * thread busy, its queue of one full) are answered with status 100 once the dropped tasks are collected, give
     * back their budget bytes and in-flight places, and never run; the server serves on and closes promptly.
     */
    @Test
    void callsADiscardingPoolDropsAreAnsweredAndGiveBackTheirBudgetAndInFlight() throws Exception {
        ThreadPoolExecutor pool = new ThreadPoolExecutor(1, 1, 60, TimeUnit.SECONDS, new ArrayBlockingQueue<>(1),
                new ThreadPoolExecutor.DiscardPolicy());
        closeables.add(pool::shutdownNow);
        ProbeImpl impl = new ProbeImpl();
        SluiceServer server = start(SluiceServer.builder().port(0).executor(pool).register(ProbeService.class, impl));
        ProbeService probe = client(server);
        Future<String> held = callers.submit(probe::hold);
        awaitCondition(() -> impl.holding.get() == 1, "the pool's one thread is busy");
        Future<String> queued = callers.submit(() -> probe.echo("queued"));
        awaitCondition(() -> pool.getQueue().size() == 1, "a call waits in the pool's queue");
        long queuedBytes = server.stats().queuedRequestBytes();
        assertTrue(queuedBytes > 0, "the waiting call is charged to the budget");

        List<Future<String>> dropped = new ArrayList<>();
        for (int i = 0; i < LOST_CALLS; i++) {
            String tag = "dropped-" + i;
            dropped.add(callers.submit(() -> probe.echo(tag)));
        }
        // A dropped task is found once it is unreachable: collect until every caller has its answer.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!dropped.stream().allMatch(Future::isDone)) {
            assertTrue(System.nanoTime() < deadline, "every caller of a dropped call is answered within 20 s: "
                    + dropped.stream().filter(Future::isDone).count() + " of " + LOST_CALLS + " are");
            System.gc();
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20)); // not a sync: paces the collections
        }
        for (Future<String> f : dropped) {
            assertNotExecuted(f, "dropped the call");
        }
        assertEquals(LOST_CALLS, server.stats().refusedRequests());
        assertEquals(queuedBytes, server.stats().queuedRequestBytes(), "only the waiting call is charged");
        assertEquals(2, server.inFlight(), "the running and the waiting call");

        impl.released.countDown();
        assertEquals("held", held.get(30, TimeUnit.SECONDS));
        assertEquals("queued", queued.get(30, TimeUnit.SECONDS));
        assertEquals(1, impl.echoes.get(), "no dropped call ran");
        awaitCondition(() -> server.inFlight() == 0, "nothing is left in flight");
        assertEquals(0, server.stats().queuedRequestBytes(), "the budget is empty again");
        assertEquals("again", probe.echo("again"), "a later call is served");
        assertClosesPromptly(server);
    }

    /**
     * docs/reliability.md E25c: calls a real {@code ThreadPoolExecutor} cannot take because its threads cannot start
     * ({@code execute} throws the {@link OutOfMemoryError} a JVM out of native threads gives) are answered with status
     * 100 naming the error, give back their budget bytes and in-flight places, and never run; once a thread can start,
     * calls are served again, and the server closes promptly.
     */
    @Test
    void callsAPoolThrowsAnErrorForAreAnsweredAndGiveBackTheirBudgetAndInFlight() throws Exception {
        AtomicBoolean threadsFail = new AtomicBoolean(true);
        ThreadPoolExecutor pool = new ThreadPoolExecutor(1, 1, 60, TimeUnit.SECONDS, new ArrayBlockingQueue<>(100),
                r -> {
                    if (threadsFail.get()) {
                        throw new OutOfMemoryError("unable to create native thread: possibly out of memory");
                    }
                    Thread t = new Thread(r, "service-pool-server-test-worker");
                    t.setDaemon(true);
                    return t;
                });
        closeables.add(pool::shutdownNow);
        ProbeImpl impl = new ProbeImpl();
        SluiceServer server = start(SluiceServer.builder().port(0).executor(pool).register(ProbeService.class, impl));
        ProbeService probe = client(server);
        List<Future<String>> refused = new ArrayList<>();
        for (int i = 0; i < LOST_CALLS; i++) {
            String tag = "refused-" + i;
            refused.add(callers.submit(() -> probe.echo(tag)));
        }
        for (Future<String> f : refused) {
            assertNotExecuted(f, "OutOfMemoryError");
        }
        assertEquals(LOST_CALLS, server.stats().refusedRequests());
        assertEquals(0, server.stats().queuedRequestBytes(), "the budget is empty again");
        assertEquals(0, server.inFlight(), "nothing is left in flight");
        assertEquals(0, impl.echoes.get(), "no refused call ran");

        threadsFail.set(false);
        assertEquals("again", probe.echo("again"), "a later call is served once the pool can start a thread");
        assertClosesPromptly(server);
    }

    /** The call of {@code f} failed with status 100, not executed, for {@code why}; not by its timeout. */
    private static void assertNotExecuted(Future<String> f, String why) {
        ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(20, TimeUnit.SECONDS));
        RpcException rpc = assertInstanceOf(RpcException.class, e.getCause());
        assertEquals(DubboConstants.STATUS_SERVER_THREADPOOL_EXHAUSTED, rpc.status(), rpc.getMessage());
        assertTrue(rpc.getMessage().contains(why) && rpc.getMessage().contains("not executed"), rpc.getMessage());
    }

    /** A graceful close with nothing in flight completes long before its wait. */
    private static void assertClosesPromptly(SluiceServer server) throws Exception {
        Duration wait = Duration.ofSeconds(30);
        long start = System.nanoTime();
        server.close(wait).get(wait.toSeconds() + 10, TimeUnit.SECONDS);
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertTrue(millis < wait.toMillis() / 3, "the close took " + millis + " ms of its " + wait.toMillis()
                + " ms wait");
    }

    /** Waits for a state another thread reaches (no fixed sleep): yields until it holds or 30 s pass. */
    private static void awaitCondition(java.util.function.BooleanSupplier condition, String what) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError(what + " within 30 s");
            }
            Thread.yield();
        }
    }
}
