package dev.sluice.it.reliability;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/** Methods that block, and one that does not, for the {@code pool} case of {@link DubboAdapterScenario}. */
public interface PoolService {
    /** The name of the thread the call runs on. */
    String threadName();

    /** Waits until the scenario opens the gate (at most 30 s), then answers the name of its thread. */
    String hold();

    /** Sleeps {@code millis} ms: a service method that blocks. */
    String nap(int millis);

    /** The implementation; counts the calls waiting in {@link #hold} and sleeping in {@link #nap}. */
    final class Impl implements PoolService {
        final AtomicInteger held = new AtomicInteger();
        final AtomicInteger napping = new AtomicInteger();
        final AtomicInteger mostNapping = new AtomicInteger();
        final CountDownLatch gate = new CountDownLatch(1);

        @Override
        public String threadName() {
            return Thread.currentThread().getName();
        }

        @Override
        public String hold() {
            held.incrementAndGet();
            try {
                gate.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return Thread.currentThread().getName();
        }

        @Override
        public String nap(int millis) {
            mostNapping.accumulateAndGet(napping.incrementAndGet(), Math::max);
            try {
                Thread.sleep(millis); // the behaviour under test: a method that blocks its thread
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                napping.decrementAndGet();
            }
            return "napped:" + millis;
        }
    }
}
