package dev.sluice.rpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.transport.ConnectionClosedException;
import dev.sluice.transport.SendState;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link PendingCalls}: the slot table (ids that share a slot, ids that match none, more calls than slots) and the
 * timeout thread (deadlines, parking while no asynchronous call waits, waking for the next one).
 */
@Timeout(60)
class PendingCallsTest {

    public interface Service {
        String sync(String s);

        CompletableFuture<String> async(String s);
    }

    private static final InetSocketAddress PEER = new InetSocketAddress("127.0.0.1", 20880);

    private static MethodMeta meta(String name, long timeoutMillis) throws NoSuchMethodException {
        return new MethodMeta(Service.class, Service.class.getMethod(name, String.class), null, null, timeoutMillis,
                false, Serialization.FASTJSON2, Map.of());
    }

    @Test
    void callsSharingASlotEachGetTheirOwnResponse() throws Exception {
        PendingCalls table = new PendingCalls(PEER, Runnable::run);
        MethodMeta sync = meta("sync", 1000);
        long first = table.nextId();
        // three calls a multiple of SLOTS apart share one slot: the first holds it, the others overflow
        PendingCall a = table.add(first, sync, null, null);
        PendingCall b = table.add(first + PendingCalls.SLOTS, sync, null, null);
        PendingCall c = table.add(first + 2L * PendingCalls.SLOTS, sync, null, null);
        assertEquals(3, table.size());
        assertSame(b, table.take(b.id), "an overflowed call is found by its id");
        assertNull(table.take(b.id), "and only once");
        assertSame(a, table.take(a.id));
        assertNull(table.take(first + 3L * PendingCalls.SLOTS), "an id that shares the slot but matches no call");
        assertTrue(table.remove(c));
        assertFalse(table.remove(c));
        assertEquals(0, table.size());
    }

    @Test
    void aResponseForAnotherIdInTheSameSlotLeavesTheWaitingCallAlone() throws Exception {
        PendingCalls table = new PendingCalls(PEER, Runnable::run);
        long id = table.nextId();
        PendingCall call = table.add(id, meta("sync", 1000), null, null);
        assertNull(table.take(id + PendingCalls.SLOTS));
        assertNull(table.take(id - PendingCalls.SLOTS));
        assertEquals(1, table.size());
        assertSame(call, table.take(id));
    }

    @Test
    void moreCallsInFlightThanSlotsAreAllAnsweredAndAllFailedOnClose() throws Exception {
        PendingCalls table = new PendingCalls(PEER, Runnable::run);
        MethodMeta sync = meta("sync", 1000);
        int n = PendingCalls.SLOTS * 2 + 17;
        List<PendingCall> calls = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            calls.add(table.add(table.nextId(), sync, null, null));
        }
        assertEquals(n, table.size());
        // answer every other call, in reverse order
        for (int i = n - 1; i >= 0; i -= 2) {
            assertSame(calls.get(i), table.take(calls.get(i).id));
        }
        assertEquals(n / 2, table.size());
        table.close(new ConnectionClosedException("test closes", true, null));
        assertEquals(0, table.size());
        for (int i = 0; i < n; i++) {
            PendingCall call = calls.get(i);
            assertEquals((n - 1 - i) % 2 != 0, call.isCompletedExceptionally(), "call " + i);
        }
    }

    @Test
    void anAsynchronousCallTimesOutAfterItsDeadlineAndASynchronousOneIsLeftToItsCaller() throws Exception {
        PendingCalls table = new PendingCalls(PEER, Runnable::run);
        CompletableFuture<Object> future = new CompletableFuture<>();
        long start = System.nanoTime();
        PendingCall async = table.add(table.nextId(), meta("async", 50), null, future);
        PendingCall sync = table.add(table.nextId(), meta("sync", 50), null, null);
        table.scheduleTimeout(async);
        ExecutionException e = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class,
                () -> future.get(10, TimeUnit.SECONDS));
        long took = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        RpcTimeoutException timeout = assertInstanceOf(RpcTimeoutException.class, e.getCause());
        assertEquals(SendState.NOT_SENT, timeout.sendState(), "never taken by a write: withdrawn, not sent");
        assertTrue(took >= 50, "timed out after " + took + " ms, before its 50 ms");
        assertNull(table.take(async.id), "a timed-out call is gone");
        assertSame(sync, table.take(sync.id), "the sweep leaves synchronous calls to their callers");
        table.close(new ConnectionClosedException("test closes", true, null));
    }

    /**
     * The timeout thread parks whenever no asynchronous call waits and must wake for the next one: calls registered
     * at random moments around its parking, one at a time (so the thread goes idle between them) and from several
     * threads at once, every one of them times out, none is lost.
     */
    @Test
    void everyAsynchronousCallTimesOutAcrossManyIdleAndBusyPeriodsOfTheTimeoutThread() throws Exception {
        PendingCalls table = new PendingCalls(PEER, Runnable::run);
        MethodMeta async = meta("async", 1);
        for (int i = 0; i < 200; i++) {
            CompletableFuture<Object> f = new CompletableFuture<>();
            PendingCall call = table.add(table.nextId(), async, null, f);
            table.scheduleTimeout(call);
            // a random pause (busy, no sleep) lands the next call before, during or after the thread parks
            long until = System.nanoTime() + ThreadLocalRandom.current().nextLong(TimeUnit.MILLISECONDS.toNanos(25));
            while (System.nanoTime() < until) {
                Thread.onSpinWait();
            }
            ExecutionException e = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class,
                    () -> f.get(10, TimeUnit.SECONDS), "call " + i + " never timed out");
            assertInstanceOf(RpcTimeoutException.class, e.getCause());
        }
        int threads = 4;
        int perThread = 500;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch done = new CountDownLatch(threads * perThread);
        AtomicInteger timedOut = new AtomicInteger();
        AtomicInteger answered = new AtomicInteger();
        try {
            for (int t = 0; t < threads; t++) {
                pool.execute(() -> {
                    for (int i = 0; i < perThread; i++) {
                        CompletableFuture<Object> f = new CompletableFuture<>();
                        f.whenComplete((v, err) -> {
                            if (err instanceof RpcTimeoutException) {
                                timedOut.incrementAndGet();
                            }
                            done.countDown();
                        });
                        PendingCall call = table.add(table.nextId(), async, null, f);
                        table.scheduleTimeout(call);
                        if (ThreadLocalRandom.current().nextBoolean()) {
                            // answered at once, racing the sweep: whoever removes it completes it, exactly once
                            PendingCall taken = table.take(call.id);
                            if (taken != null) {
                                answered.incrementAndGet();
                                f.complete("answered");
                            }
                        }
                    }
                });
            }
            assertTrue(done.await(30, TimeUnit.SECONDS), done.getCount() + " calls never completed");
            assertEquals(threads * perThread, timedOut.get() + answered.get(), "each call completed once");
            assertEquals(0, table.size());
        } finally {
            pool.shutdownNow();
            table.close(new ConnectionClosedException("test closes", true, null));
        }
    }

    /**
     * The answer of a synchronous call races its timeout: the event loop takes the call from the table at about the
     * moment the caller's wait runs out, many times, at random offsets around it. Whenever the loop took the call
     * (the answer won), the caller must get that answer, never a timeout; a timeout is right only when the loop
     * found nothing to take.
     */
    @Test
    void aSynchronousCallWhoseAnswerWasTakenAsItsTimeoutStruckGetsTheAnswerNeverATimeout() throws Exception {
        PendingCalls table = new PendingCalls(PEER, Runnable::run);
        long timeoutMillis = 2;
        MethodMeta sync = meta("sync", timeoutMillis);
        ExecutorService loop = Executors.newSingleThreadExecutor();
        int answered = 0;
        int timedOut = 0;
        try {
            for (int i = 0; i < 3000; i++) {
                long start = System.nanoTime();
                long id = table.nextId();
                PendingCall call = table.add(id, sync, null, null);
                RpcException answer = new RpcException(0, "the provider's answer to call " + i);
                // the answer arrives within 400 us either side of the deadline
                long at = start + TimeUnit.MILLISECONDS.toNanos(timeoutMillis)
                        + ThreadLocalRandom.current().nextLong(-200_000, 200_000);
                java.util.concurrent.Future<Boolean> taken = loop.submit(() -> {
                    while (System.nanoTime() < at) {
                        Thread.onSpinWait();
                    }
                    PendingCall c = table.take(id); // as ClientHandler does with a response
                    if (c == null) {
                        return false;
                    }
                    c.fail(answer);
                    return true;
                });
                Throwable outcome;
                try {
                    table.await(call);
                    outcome = null;
                } catch (Throwable t) { // NOPMD: the outcome under test
                    outcome = t;
                }
                if (taken.get(10, TimeUnit.SECONDS)) {
                    answered++;
                    assertSame(answer, outcome, "call " + i + ": the event loop took its answer, but the caller got "
                            + outcome);
                } else {
                    timedOut++;
                    assertInstanceOf(RpcTimeoutException.class, outcome, "call " + i);
                }
            }
            assertTrue(answered > 0 && timedOut > 0, "the race was not straddled: " + answered + " answered, "
                    + timedOut + " timed out");
            assertEquals(0, table.size());
        } finally {
            loop.shutdownNow();
            table.close(new ConnectionClosedException("test closes", true, null));
        }
    }
}
