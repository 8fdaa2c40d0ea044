package dev.sluice.rpc;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where an asynchronous call's future is completed when the client's callback executor cannot do it: the executor
 * threw instead of taking the task ({@link PendingCall}). One pool shared by every client in the JVM, created at first
 * use: daemon threads named {@code sluice-callback-fallback-N}, no queue and no limit on threads, so a task is never
 * refused for want of a free thread and never waits behind callbacks that block; a thread idle for
 * {@link #KEEP_ALIVE_SECONDS} exits, so the pool costs nothing while callback executors behave.
 *
 * <p>Threads: {@link #run} runs on any thread (the event loop that read an answer, the timeout thread, a caller) and
 * never blocks. The task runs on a fallback thread, or on the common pool when no fallback thread can be started;
 * only when neither can take it does it run on the calling thread, since a future that never completes is worse.
 */
final class CallbackFallback {
    private static final Logger log = LoggerFactory.getLogger(CallbackFallback.class);
    /** How long an idle fallback thread lives. */
    static final long KEEP_ALIVE_SECONDS = 30;

    private CallbackFallback() {}

    /** The pool, created on first use. */
    private static final class Holder {
        static final ExecutorService POOL = pool();

        private static ExecutorService pool() {
            AtomicInteger ids = new AtomicInteger();
            return new ThreadPoolExecutor(0, Integer.MAX_VALUE, KEEP_ALIVE_SECONDS, TimeUnit.SECONDS,
                    new SynchronousQueue<>(), r -> {
                        Thread t = new Thread(r, "sluice-callback-fallback-" + ids.incrementAndGet());
                        t.setDaemon(true);
                        return t;
                    });
        }
    }

    /** Runs {@code task} on a fallback thread (see the class comment for when it cannot). Any thread. */
    static void run(Runnable task) {
        Throwable first;
        try {
            Holder.POOL.execute(task);
            return;
        } catch (Throwable e) { // NOPMD: an OutOfMemoryError for a thread that could not start; try elsewhere
            first = e;
        }
        try {
            ForkJoinPool.commonPool().execute(task);
            return;
        } catch (Throwable e) { // NOPMD: as above; the task must still run
            first.addSuppressed(e);
        }
        log.error("No thread could be started to complete a call's future; completing it on {}",
                Thread.currentThread().getName(), first);
        task.run();
    }
}
