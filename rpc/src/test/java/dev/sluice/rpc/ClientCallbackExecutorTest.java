package dev.sluice.rpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.EventLoop;
import io.netty.util.internal.ThreadExecutorMap;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * docs/reliability.md D24a: a {@link SluiceClient} whose callback executor throws (not only
 * {@code RejectedExecutionException}: here the {@link OutOfMemoryError} a thread pool throws when it cannot start a
 * thread) loses no call and keeps timing calls out, whether the throw happens on the timeout thread or on the event
 * loop that read the answer. D24d: timeouts complete while every thread of the callback pool is blocked.
 */
@Timeout(60)
class ClientCallbackExecutorTest {
    private static final long BOUND_MILLIS = 10_000;

    /** Throws what a {@code ThreadPoolExecutor} throws when no native thread can be started, while told to. */
    static final class ThreadStarvedExecutor implements Executor {
        final AtomicInteger failures = new AtomicInteger();
        final ExecutorService delegate = Executors.newCachedThreadPool();

        @Override
        public void execute(Runnable task) {
            if (failures.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
                throw new OutOfMemoryError("unable to create native thread: possibly out of memory or process/resource"
                        + " limits reached");
            }
            delegate.execute(task);
        }

        @Override
        public String toString() {
            return "ThreadStarvedExecutor";
        }
    }

    private final ThreadStarvedExecutor executor = new ThreadStarvedExecutor();

    @AfterEach
    void stop() {
        executor.delegate.shutdownNow();
    }

    @Test
    void anExecutorThrowingAnErrorOnTheTimeoutThreadFailsThatCallAndLaterCallsStillTimeOut() throws Exception {
        CallbackPoolTest.GatedEcho neverAnswers = new CallbackPoolTest.GatedEcho();
        try (SluiceServer server = SluiceServer.builder().port(0).register(CallbackPoolTest.Echo.class, neverAnswers)
                .start();
             SluiceClient client = SluiceClient.builder().address("127.0.0.1", server.port())
                     .timeout(Duration.ofMillis(100)).callbackExecutor(executor).failIfNotConnected(true).build()) {
            CallbackPoolTest.Echo echo = client.proxy(CallbackPoolTest.Echo.class);
            executor.failures.set(1);
            CompletableFuture<String> first = echo.echo("first");
            ExecutionException e = assertThrows(ExecutionException.class,
                    () -> first.get(BOUND_MILLIS, TimeUnit.MILLISECONDS), "the call whose completion the executor"
                            + " refused with an Error never completed");
            CallbackRejectedException rejected = assertInstanceOf(CallbackRejectedException.class, e.getCause());
            assertInstanceOf(OutOfMemoryError.class, rejected.getCause());
            assertTrue(rejected.getMessage().contains("Echo.echo") && rejected.getMessage().contains("ThreadStarved")
                    && rejected.getMessage().contains("unable to create native thread")
                    && rejected.getMessage().contains("RpcTimeoutException"), rejected.getMessage());
            assertEquals(0, executor.failures.get());
            for (int i = 0; i < 3; i++) {
                CompletableFuture<String> later = echo.echo("later-" + i);
                ExecutionException timedOut = assertThrows(ExecutionException.class,
                        () -> later.get(BOUND_MILLIS, TimeUnit.MILLISECONDS), "the timeout thread is dead: call " + i
                                + " after the Error never timed out");
                assertInstanceOf(RpcTimeoutException.class, timedOut.getCause());
            }
            assertEquals(0, client.pendingCalls());
            neverAnswers.gates.values().forEach(g -> g.complete("late")); // the server need not wait for them
        }
    }

    @Test
    void anExecutorThrowingAnErrorOnTheEventLoopFailsTheAnsweredCallOffTheLoop() throws Exception {
        CallbackPoolTest.GatedEcho impl = new CallbackPoolTest.GatedEcho();
        try (SluiceServer server = SluiceServer.builder().port(0).register(CallbackPoolTest.Echo.class, impl).start();
             SluiceClient client = SluiceClient.builder().address("127.0.0.1", server.port())
                     .timeout(Duration.ofSeconds(30)).callbackExecutor(executor).failIfNotConnected(true).build()) {
            CallbackPoolTest.Echo echo = client.proxy(CallbackPoolTest.Echo.class);
            for (int i = 0; i < 3; i++) {
                executor.failures.set(1);
                AtomicReference<Boolean> onLoop = new AtomicReference<>();
                CompletableFuture<String> f = echo.echo("answered-" + i).whenComplete((v, t) ->
                        onLoop.set(ThreadExecutorMap.currentExecutor() instanceof EventLoop));
                impl.open("answered-" + i); // now the provider answers: the answer path runs on the event loop
                ExecutionException e = assertThrows(ExecutionException.class,
                        () -> f.get(BOUND_MILLIS, TimeUnit.MILLISECONDS), "the answered call never completed");
                CallbackRejectedException rejected = assertInstanceOf(CallbackRejectedException.class, e.getCause());
                assertInstanceOf(OutOfMemoryError.class, rejected.getCause());
                assertTrue(rejected.getMessage().contains("provider answered")
                        && rejected.getMessage().contains("ThreadStarvedExecutor"), rejected.getMessage());
                assertFalse(onLoop.get(), "the future completed on the event loop");
            }
            impl.open("works");
            assertEquals("works", echo.echo("works").get(BOUND_MILLIS, TimeUnit.MILLISECONDS),
                    "the client keeps working");
            assertEquals(0, client.pendingCalls());
        }
    }

    /**
     * Every thread of the default callback pool ({@link CallbackPool#MAX_THREADS}) is blocked, as by callbacks waiting
     * for other calls: asynchronous calls to a provider that never answers still fail with their timeout, promptly,
     * and not on an event loop.
     */
    @Test
    void timeoutsCompleteWhileEveryCallbackThreadIsBlocked() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch blocked = new CountDownLatch(CallbackPool.MAX_THREADS);
        Executor pool = CallbackPool.shared();
        CallbackPoolTest.GatedEcho neverAnswers = new CallbackPoolTest.GatedEcho();
        try (SluiceServer server = SluiceServer.builder().port(0).register(CallbackPoolTest.Echo.class, neverAnswers)
                .start();
             SluiceClient client = SluiceClient.builder().address("127.0.0.1", server.port())
                     .timeout(Duration.ofMillis(200)).failIfNotConnected(true).build()) {
            try {
                for (int i = 0; i < CallbackPool.MAX_THREADS; i++) {
                    pool.execute(() -> {
                        blocked.countDown();
                        try {
                            release.await(60, TimeUnit.SECONDS);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    });
                }
                assertTrue(blocked.await(20, TimeUnit.SECONDS), blocked.getCount() + " of "
                        + CallbackPool.MAX_THREADS + " callback threads never started");
                CallbackPoolTest.Echo echo = client.proxy(CallbackPoolTest.Echo.class);
                List<CompletableFuture<String>> calls = new ArrayList<>();
                List<AtomicReference<String>> threads = new ArrayList<>();
                long start = System.nanoTime();
                for (int i = 0; i < 10; i++) {
                    AtomicReference<String> thread = new AtomicReference<>();
                    threads.add(thread);
                    calls.add(echo.echo("never-" + i).whenComplete((v, t) -> thread.set(Thread.currentThread().getName()
                            + (ThreadExecutorMap.currentExecutor() instanceof EventLoop ? " (event loop)" : ""))));
                }
                for (int i = 0; i < calls.size(); i++) {
                    int n = i;
                    ExecutionException e = assertThrows(ExecutionException.class,
                            () -> calls.get(n).get(BOUND_MILLIS, TimeUnit.MILLISECONDS), "call " + n
                                    + " never timed out while the callback pool was blocked");
                    assertInstanceOf(RpcTimeoutException.class, e.getCause());
                    String thread = threads.get(i).get();
                    assertTrue(thread.startsWith("sluice-callback-fallback-"), "completed on " + thread);
                }
                long took = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                assertTrue(took < 3_000, "200 ms timeouts took " + took + " ms");
            } finally {
                release.countDown();
            }
            neverAnswers.gates.values().forEach(g -> g.complete("late")); // the server need not wait for them
            neverAnswers.open("after");
            assertEquals("after", client.proxy(CallbackPoolTest.Echo.class).echo("after")
                    .get(BOUND_MILLIS, TimeUnit.MILLISECONDS), "answers complete on the released pool");
        }
    }
}
