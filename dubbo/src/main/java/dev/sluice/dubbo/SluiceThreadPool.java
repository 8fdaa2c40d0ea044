package dev.sluice.dubbo;

import dev.sluice.transport.internal.LogLimiter;
import dev.sluice.transport.internal.ServicePool;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.dubbo.common.URL;
import org.apache.dubbo.common.constants.CommonConstants;
import org.apache.dubbo.common.threadlocal.NamedInternalThreadFactory;
import org.apache.dubbo.common.threadpool.ThreadPool;
import org.apache.dubbo.common.threadpool.support.AbortPolicyWithReport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code sluice} {@link ThreadPool} extension: a provider's service methods run on Sluice's hot-worker pool
 * instead of Dubbo's {@code fixed} {@code ThreadPoolExecutor}. Select it with one line, {@code threadpool=sluice} on
 * the protocol or provider ({@code dubbo.protocol.threadpool=sluice}); it works with any {@code server}, netty4 as
 * well as sluice. Registered in {@code META-INF/dubbo/org.apache.dubbo.common.threadpool.ThreadPool}.
 *
 * <p><b>Why.</b> With Dubbo's default {@code dispatcher=all} every request is handed from the I/O thread to the pool.
 * A {@code ThreadPoolExecutor} parks an idle thread on its queue's lock, so under a steady stream of calls nearly
 * every call pays a futex wake-up of a parked thread. The hot-worker pool keeps about one worker per core looking for
 * work: an idle worker spins briefly before it parks, and a burst wakes one worker at a time, not one per call (see
 * {@link ServicePool} for the hand-off and why no wake-up is lost).
 *
 * <p><b>Dubbo's keys, Dubbo's defaults</b> (those of the {@code fixed} pool):
 * <ul>
 *   <li>{@code threads} (200): the most workers. A service method that blocks (sleeps, waits for I/O or a lock) still
 *       gets served: while queued calls make no progress and a worker waits in its method, the pool adds a worker,
 *       up to {@code threads};</li>
 *   <li>{@code queues} (0): calls that may wait beyond {@code threads} running ones. The pool takes at most
 *       {@code threads + queues} calls at once, waiting or running; a negative value lifts the bound, as Dubbo's
 *       fixed pool's unbounded queue does;</li>
 *   <li>{@code corethreads} (unset or 0: one per core, at least 2, at most {@code threads}): workers started at once
 *       when calls arrive and none is idle; beyond them the pool grows only when queued calls stall;</li>
 *   <li>{@code alive} (60000 ms): how long an idle worker waits for work before it exits;</li>
 *   <li>{@code threadname}: the pool's name (a provider's server appends its address, as for every Dubbo pool);
 *       the workers are {@code <name>-thread-<n>}, made by Dubbo's own thread factory (its {@code InternalThread}s),
 *       as in the fixed pool.</li>
 * </ul>
 * A value out of range fails the executor's creation with a message naming the key and the value.
 *
 * <p><b>Full.</b> A call over {@code threads + queues} is refused as Dubbo's {@code AbortPolicyWithReport} refuses it:
 * a {@link RejectedExecutionException} whose message starts with {@code Thread pool is EXHAUSTED!}, the listeners
 * named by {@code thread-pool-exhausted-listeners} are told, and a WARN line is logged (at most one a second, the
 * others counted); Dubbo then answers the consumer with status {@code SERVER_THREADPOOL_EXHAUSTED_ERROR} ("thread pool
 * is exhausted"). Unlike Dubbo's policy it writes no thread dump file.
 *
 * <p>Stateless and thread-safe; Dubbo's {@code ExtensionLoader} creates one instance and calls {@link #getExecutor}
 * once per provider port (Dubbo's {@code ExecutorRepository} keeps the pool and shuts it down).
 */
public final class SluiceThreadPool implements ThreadPool {
    /** The extension name. */
    public static final String NAME = "sluice";

    private static final Logger log = LoggerFactory.getLogger(SluiceThreadPool.class);
    private static final LogLimiter EXHAUSTED = new LogLimiter();

    @Override
    public Executor getExecutor(URL url) {
        String name = url.getParameter(CommonConstants.THREAD_NAME_KEY,
                (String) url.getAttribute(CommonConstants.THREAD_NAME_KEY, CommonConstants.DEFAULT_THREAD_NAME));
        int threads = url.getParameter(CommonConstants.THREADS_KEY, CommonConstants.DEFAULT_THREADS);
        int queues = url.getParameter(CommonConstants.QUEUES_KEY, CommonConstants.DEFAULT_QUEUES);
        int core = url.getParameter(CommonConstants.CORE_THREADS_KEY, 0);
        int alive = url.getParameter(CommonConstants.ALIVE_KEY, CommonConstants.DEFAULT_ALIVE);
        require(threads >= 1, CommonConstants.THREADS_KEY, threads, "at least 1");
        require(core >= 0, CommonConstants.CORE_THREADS_KEY, core, "0 (one per core) or more");
        require(alive >= 1, CommonConstants.ALIVE_KEY, alive, "at least 1 ms");
        long bound = queues < 0 ? Integer.MAX_VALUE : Math.min(Integer.MAX_VALUE, (long) threads + queues);
        AbortPolicyWithReport listeners = new AbortPolicyWithReport(name, url);
        return ServicePool.settings(name, threads)
                .core(core)
                .maxInFlight((int) bound)
                .keepAliveNanos(TimeUnit.MILLISECONDS.toNanos(alive))
                .threadFactory(new NamedInternalThreadFactory(name, true))
                .rejection((pool, reason) -> exhausted(pool, reason, url, listeners))
                .build();
    }

    /** The refusal Dubbo's {@code AbortPolicyWithReport} makes, with this pool's counts. */
    private static RejectedExecutionException exhausted(ServicePool pool, String reason, URL url,
            AbortPolicyWithReport listeners) {
        String msg = String.format("Thread pool is EXHAUSTED! Thread Name: %s, Pool Size: %d (core: %d, max: %d,"
                        + " largest: %d), Task: %d running or waiting (limit %d, waiting %d),"
                        + " Executor status:(isShutdown:%s, isTerminated:%s), in %s://%s:%d!",
                pool.name(), pool.threads(), pool.coreThreads(), pool.maxThreads(), pool.largestThreads(),
                pool.inFlight(), pool.maxInFlight(), pool.queuedTasks(), pool.isShutdown(), pool.isTerminated(),
                url.getProtocol(), url.getIp(), url.getPort());
        EXHAUSTED.warn(log, "{} ({}; raise threads or queues, or make the service faster)", msg, reason);
        listeners.dispatchThreadPoolExhaustedEvent(msg);
        return new RejectedExecutionException(msg);
    }

    private static void require(boolean ok, String key, int value, String allowed) {
        if (!ok) {
            throw new IllegalArgumentException("threadpool=" + NAME + ": " + key + "=" + value + " is out of range; "
                    + key + " must be " + allowed);
        }
    }
}
