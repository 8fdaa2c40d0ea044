package dev.sluice.it.reliability;

import java.util.concurrent.CompletableFuture;

/** A service whose method runs as long as it is told to, for the stall tests. */
public interface WorkService {
    /** Runs for {@code millis} ms on the service pool, then answers {@code "worked:" + millis}. */
    CompletableFuture<String> work(long millis);

    /** The plain synchronous call. */
    String ping(String tag);

    /** The implementation: sleeping is the behaviour under test (a method that legitimately takes long). */
    final class Impl implements WorkService {
        final java.util.concurrent.atomic.AtomicInteger running = new java.util.concurrent.atomic.AtomicInteger();
        final java.util.concurrent.atomic.AtomicInteger maxRunning = new java.util.concurrent.atomic.AtomicInteger();

        @Override
        public CompletableFuture<String> work(long millis) {
            maxRunning.accumulateAndGet(running.incrementAndGet(), Math::max);
            try {
                Thread.sleep(millis);
                return CompletableFuture.completedFuture("worked:" + millis);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return CompletableFuture.failedFuture(e);
            } finally {
                running.decrementAndGet();
            }
        }

        @Override
        public String ping(String tag) {
            return "pong:" + tag;
        }
    }
}
