package dev.sluice.rpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.codec.dubbo.DubboConstants;
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
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * docs/reliability.md E25c: a call the service executor never runs gives back what it holds, its bytes in the
 * queued-request budget and its place among the calls in flight, and its caller is answered with status 100 (not
 * executed), whether the executor drops it silently (a {@code ThreadPoolExecutor} with {@code DiscardPolicy}) or
 * throws an {@link Error} from {@code execute} (a pool whose threads cannot start). Afterwards the budget and the
 * in-flight count are back to 0, a call is served again, and a graceful close does not wait out its timeout.
 */
@Timeout(120)
class LostCallTest {
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration CLOSE_WAIT = Duration.ofSeconds(30);
    private static final int CALLS = 30;

    public interface Work {
        String hold();

        String echo(String s);
    }

    static final class WorkImpl implements Work {
        final CountDownLatch holding = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        final AtomicInteger echoed = new AtomicInteger();

        @Override
        public String hold() {
            holding.countDown();
            try {
                release.await(60, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return "held";
        }

        @Override
        public String echo(String s) {
            echoed.incrementAndGet();
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

    private Work client(SluiceServer server) {
        SluiceClient client = SluiceClient.builder().address("127.0.0.1", server.port()).timeout(CALL_TIMEOUT)
                .build();
        closeables.add(client);
        return client.proxy(Work.class);
    }

    @Test
    void callsADiscardingThreadPoolDropsAreAnsweredAndGiveBackTheirBudgetAndInFlight() throws Exception {
        ThreadPoolExecutor pool = new ThreadPoolExecutor(1, 1, 60, TimeUnit.SECONDS, new ArrayBlockingQueue<>(1),
                new ThreadPoolExecutor.DiscardPolicy());
        closeables.add(pool::shutdownNow);
        WorkImpl impl = new WorkImpl();
        SluiceServer server = SluiceServer.builder().port(0).executor(pool).register(Work.class, impl).start();
        closeables.add(server);
        Work work = client(server);
        Future<String> held = callers.submit(work::hold);
        assertTrue(impl.holding.await(30, TimeUnit.SECONDS), "the pool's one thread is busy");
        Future<String> queued = callers.submit(() -> work.echo("queued"));
        awaitCondition(() -> pool.getQueue().size() == 1, "a call waits in the pool's queue");
        long queuedBytes = server.stats().queuedRequestBytes();
        assertTrue(queuedBytes > 0, "the waiting call is charged to the budget");

        // The pool is full: it drops each of these calls without running or rejecting them.
        List<Future<String>> dropped = new ArrayList<>();
        for (int i = 0; i < CALLS; i++) {
            String tag = "dropped-" + i;
            dropped.add(callers.submit(() -> work.echo(tag)));
        }
        // A dropped task is found once it is unreachable: collect until every caller has its answer.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!dropped.stream().allMatch(Future::isDone)) {
            assertTrue(System.nanoTime() < deadline, "every caller of a dropped call is answered within 30 s: "
                    + dropped.stream().filter(Future::isDone).count() + " of " + CALLS + " are");
            System.gc();
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20)); // not a sync: paces the collections
        }
        for (Future<String> f : dropped) {
            ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(1, TimeUnit.SECONDS));
            RpcException rpc = assertInstanceOf(RpcException.class, e.getCause());
            assertEquals(DubboConstants.STATUS_SERVER_THREADPOOL_EXHAUSTED, rpc.status(), rpc.getMessage());
            assertTrue(rpc.getMessage().contains("dropped the call") && rpc.getMessage().contains("not executed"),
                    rpc.getMessage());
        }
        assertEquals(CALLS, server.stats().refusedRequests());
        assertEquals(queuedBytes, server.stats().queuedRequestBytes(), "only the waiting call is charged");
        assertEquals(2, server.inFlight(), "the running and the waiting call");

        impl.release.countDown();
        assertEquals("held", held.get(30, TimeUnit.SECONDS));
        assertEquals("queued", queued.get(30, TimeUnit.SECONDS));
        assertEquals(1, impl.echoed.get(), "no dropped call ran");
        awaitCondition(() -> server.inFlight() == 0, "nothing is left in flight");
        assertEquals(0, server.stats().queuedRequestBytes(), "the budget is empty again");
        assertEquals("again", work.echo("again"), "a later call is served");
        assertClosesPromptly(server);
    }

    @Test
    void callsAPoolThrowsAnErrorForAreAnsweredAndGiveBackTheirBudgetAndInFlight() throws Exception {
        AtomicBoolean threadsFail = new AtomicBoolean(true);
        // A real pool whose threads cannot start: execute throws the OutOfMemoryError a JVM out of native threads
        // gives.
        ThreadPoolExecutor pool = new ThreadPoolExecutor(1, 1, 60, TimeUnit.SECONDS, new ArrayBlockingQueue<>(100),
                r -> {
                    if (threadsFail.get()) {
                        throw new OutOfMemoryError("unable to create native thread: possibly out of memory");
                    }
                    Thread t = new Thread(r, "lost-call-test-worker");
                    t.setDaemon(true);
                    return t;
                });
        closeables.add(pool::shutdownNow);
        WorkImpl impl = new WorkImpl();
        SluiceServer server = SluiceServer.builder().port(0).executor(pool).register(Work.class, impl).start();
        closeables.add(server);
        Work work = client(server);
        List<Future<String>> refused = new ArrayList<>();
        for (int i = 0; i < CALLS; i++) {
            String tag = "refused-" + i;
            refused.add(callers.submit(() -> work.echo(tag)));
        }
        for (Future<String> f : refused) {
            ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(30, TimeUnit.SECONDS));
            RpcException rpc = assertInstanceOf(RpcException.class, e.getCause());
            assertEquals(DubboConstants.STATUS_SERVER_THREADPOOL_EXHAUSTED, rpc.status(), rpc.getMessage());
            assertTrue(rpc.getMessage().contains("OutOfMemoryError") && rpc.getMessage().contains("not executed"),
                    rpc.getMessage());
        }
        assertEquals(CALLS, server.stats().refusedRequests());
        assertEquals(0, server.stats().queuedRequestBytes(), "the budget is empty again");
        assertEquals(0, server.inFlight(), "nothing is left in flight");
        assertEquals(0, impl.echoed.get(), "no refused call ran");

        threadsFail.set(false);
        assertEquals("again", work.echo("again"), "a later call is served once the pool can start a thread");
        assertFalse(server.stats().queuedRequestBytes() > 0);
        assertClosesPromptly(server);
    }

    /** A graceful close with nothing in flight completes long before its wait. */
    private static void assertClosesPromptly(SluiceServer server) throws Exception {
        long start = System.nanoTime();
        server.close(CLOSE_WAIT).get(CLOSE_WAIT.toSeconds() + 10, TimeUnit.SECONDS);
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertTrue(millis < CLOSE_WAIT.toMillis() / 3, "the close took " + millis + " ms of its "
                + CLOSE_WAIT.toMillis() + " ms wait");
    }

    /** Waits for a state another thread reaches (no fixed sleep): yields until it holds or 30 s pass. */
    private static void awaitCondition(BooleanSupplier condition, String what) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError(what + " within 30 s");
            }
            Thread.yield();
        }
    }
}
