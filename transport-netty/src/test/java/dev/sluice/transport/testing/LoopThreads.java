package dev.sluice.transport.testing;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Tells when an event loop's thread is asleep, by its CPU time: for the tests of loops that poll before they sleep
 * ({@code LoopSpin}), which must start a call on a loop that has gone to sleep. Runs on the test's thread.
 */
public final class LoopThreads {
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private LoopThreads() {}

    /**
     * Waits until thread {@code tid} uses no CPU for 2 ms (an event loop blocked in its selector); fails with
     * {@code what} after 20 s.
     */
    public static void awaitAsleep(long tid, String what) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        for (;;) {
            long cpu = THREADS.getThreadCpuTime(tid);
            long since = System.nanoTime();
            while (System.nanoTime() - since < TimeUnit.MILLISECONDS.toNanos(2)) {
                LockSupport.parkNanos(200_000); // a measuring interval, not synchronisation
            }
            if (THREADS.getThreadCpuTime(tid) == cpu) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError(what + " still busy after 20 s");
            }
        }
    }
}
