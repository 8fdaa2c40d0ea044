package dev.sluice.rpc;

import dev.sluice.transport.internal.ServicePool;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/**
 * The default callback executor of every {@link SluiceClient} in the JVM: one shared {@link ServicePool} named
 * {@code sluice-callback}, created at first use, whose daemon threads complete asynchronous calls' futures (and parse
 * their results) and run the callbacks chained on them.
 *
 * <p>Why not the common pool: it has one thread per core less one, one thread on a 2-core machine, so every result
 * of every client was parsed on that one thread, and a callback that blocks there holds back every other completion,
 * since the common pool does not grow for a thread blocked outside a {@code ManagedBlocker}. The hot-worker pool keeps
 * about one worker per core busy without a wake-up per task and adds workers, up to {@link #MAX_THREADS}, while tasks
 * wait behind a callback that blocks. It never refuses a task (its queue is unbounded in practice), so a future is
 * always completed by it. Thread-safe; its threads exit after a minute without work.
 */
final class CallbackPool {
    /** Most threads completing futures at once; beyond it tasks wait in the queue. */
    static final int MAX_THREADS = 64;

    private static volatile ServicePool pool;

    private CallbackPool() {}

    /** The shared pool, created on the first call. */
    static Executor shared() {
        ServicePool p = pool;
        if (p == null) {
            synchronized (CallbackPool.class) {
                p = pool;
                if (p == null) {
                    p = new ServicePool("sluice-callback", MAX_THREADS, Integer.MAX_VALUE,
                            TimeUnit.SECONDS.toNanos(60), ServicePool.DEFAULT_STALL_NANOS);
                    pool = p;
                }
            }
        }
        return p;
    }
}
