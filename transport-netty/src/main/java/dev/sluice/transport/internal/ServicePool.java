package dev.sluice.transport.internal;

import dev.sluice.transport.Internal;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sluice's hot-worker pool: a few hot workers that take a burst of calls without a wake-up per call, growing towards
 * a maximum only when queued calls stop making progress, so methods that block are still served. It is the default
 * service pool of {@code sluice-rpc}'s {@code SluiceServer} and its clients' callback pool, and the executor of the
 * {@code sluice} Dubbo {@code ThreadPool} in {@code sluice-dubbo} ({@code threadpool=sluice}); it lives here so both
 * modules share one implementation. Not API ({@link Internal}).
 *
 * <p><b>Thread model.</b> {@link #execute} runs on any thread (in the server, the event loop that decoded the call);
 * it never blocks and never parks. Tasks run on the pool's worker threads ({@code sluice-service-N}, or what
 * the pool's thread factory makes); one more thread, {@code sluice-service-monitor}, samples progress while the
 * pool is open. Thread-safe.
 *
 * <p><b>Hand-off.</b> Tasks go to one lock-free FIFO, bounded by count ({@code queueCapacity}; beyond it
 * {@code execute} throws {@link RejectedExecutionException}, made by the pool's {@link Rejection}). A pool may also
 * bound the tasks it holds in all, waiting or running ({@link Settings#maxInFlight(int)}: Dubbo's {@code threads} +
 * {@code queues}); a task counts from {@code execute} until it returns. A worker that finishes a task takes the next
 * one directly. A worker that finds the queue empty becomes <em>searching</em>; if it is the only searcher it spins for
 * up to {@link #SPIN_NANOS} (with {@link Thread#onSpinWait()}) before it parks, so a call arriving within that time
 * costs no wake-up. The spin adapts: a spin that finds nothing halves the next one (down to none below
 * {@link #MIN_SPIN_NANOS}), and a parked worker handed a task sooner than the full spin after it parked restores it,
 * since spinning would have caught that task. So calls that come faster than a spin keep it, while calls that come
 * further apart (one caller waiting for each answer) stop burning a core the caller's own threads need.
 * {@code execute} wakes a parked worker (or starts one, up to the <em>core</em> count) only when no worker is
 * searching, and the woken worker counts as searching from the moment it is chosen, so a burst of N calls wakes one
 * worker, not N. A searcher that takes a task and leaves no other searcher behind wakes the next worker if work is
 * still queued, so a burst fans out across workers one wake-up at a time.
 *
 * <p><b>No lost wake-ups.</b> Both sides publish before they look: {@code execute} enqueues, then reads the searching
 * count; a worker about to park first registers itself as parked, then stops counting itself as searching, then
 * looks at the queue once more (and at the pool state). With sequentially consistent atomics one of the two always
 * sees the other: either the submitter sees a searcher or a parked worker to wake, or the worker sees the task.
 * A worker that exits on keep-alive checks the queue after it has left the thread count, and a thread that claimed
 * the wake-up but found no worker to wake checks the queue, the parked set and the thread count after giving the
 * claim back (while the claim was held a worker may have parked, or left, and a submitter or the leaving worker
 * skipped its wake-up), for the same reason.
 *
 * <p><b>Growth.</b> {@code core} workers (by default min(maximum, max(2, available processors))) are started on demand.
 * Beyond that, the monitor (sampling every {@link #DEFAULT_STALL_NANOS} while work is queued, backing off to every
 * 10 ms while the queue is empty) adds one worker, up to the maximum, when work has been queued with no worker
 * searching and no task started for {@link #DEFAULT_STALL_NANOS} while some worker waits in its task (sleeping, or
 * waiting for a future, a latch, a pooled connection), or for {@link #RUNNABLE_STALL_FACTOR} times that otherwise
 * (workers computing, descheduled by a busy machine, contending for a monitor, or in socket I/O, which Java reports as
 * runnable). So workers blocked in a service method cannot starve the queue: it grows by one worker per stalled
 * interval until calls move again or the maximum is reached, while a machine that is merely overloaded does not make it
 * grow on every scheduling hiccup. Workers idle for the keep-alive exit; parked workers are reused last-in first-out so
 * that surplus ones are the ones that expire.
 *
 * <p><b>Shutdown.</b> {@link #shutdown()} rejects new tasks and lets queued ones run; workers exit once the queue is
 * empty. {@link #shutdownNow()} rejects new tasks, removes queued ones (returned, not run) and interrupts running ones;
 * each worker exits when its current task returns. {@link #awaitTermination} waits for every worker and the monitor.
 *
 * <p><b>One proof.</b> The hand-off, growth and shutdown read and write the same counters (searching, parked,
 * threads, started tasks, state); the no-lost-wake-up argument above holds only over all of them at once.
 */
@Internal
public final class ServicePool extends AbstractExecutorService {

    /** How long the only searching worker spins for work before it parks. */
    public static final long SPIN_NANOS = TimeUnit.MICROSECONDS.toNanos(20);
    /** A spin budget halved below this is not worth spinning: the next worker parks at once. */
    public static final long MIN_SPIN_NANOS = TimeUnit.MICROSECONDS.toNanos(1);
    /** No task started for this long while work is queued and no worker searches: the monitor adds a worker. */
    public static final long DEFAULT_STALL_NANOS = TimeUnit.MICROSECONDS.toNanos(500);
    /** With every worker runnable, a stall must last this many times {@code stallNanos} before the pool grows. */
    public static final int RUNNABLE_STALL_FACTOR = 10;
    private static final long IDLE_SAMPLE_MAX_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

    private static final int RUNNING = 0;
    private static final int SHUTDOWN = 1;
    private static final int STOP = 2;

    private static final AtomicInteger IDS = new AtomicInteger();
    private static final Logger log = LoggerFactory.getLogger(ServicePool.class);

    private final String name;
    private final int core;
    private final int max;
    private final int queueCapacity;
    /** Most tasks waiting or running; {@link Integer#MAX_VALUE}: not counted. */
    private final int maxInFlight;
    private final ThreadFactory threadFactory;
    private final Rejection rejection;
    private final long keepAliveNanos;
    private final long stallNanos;
    private final long maxSpinNanos;
    /**
     * The next spin's length, adapted (see the class doc). Written without coordination by any worker: it is a hint,
     * and a lost update only makes one spin longer or shorter.
     */
    private volatile long spinNanos;

    private final ConcurrentLinkedQueue<Runnable> queue = new ConcurrentLinkedQueue<>();
    /** Tasks in {@link #queue}; reserved before the offer so the capacity is never exceeded. */
    private final AtomicInteger queued = new AtomicInteger();
    /** Live workers, counted from the moment one is reserved until it has exited. */
    private final AtomicInteger threads = new AtomicInteger();
    /** The most workers live at once. */
    private final AtomicInteger largest = new AtomicInteger();
    /** Tasks taken and not yet returned (waiting or running); counted only when {@link #maxInFlight} bounds them. */
    private final AtomicInteger inFlight = new AtomicInteger();
    /** Workers looking for work (spinning, or chosen to be woken), not running a task and not parked. */
    private final AtomicInteger searching = new AtomicInteger();
    /** Parked workers, most recently parked first. */
    private final ConcurrentLinkedDeque<Worker> parked = new ConcurrentLinkedDeque<>();
    private final Set<Worker> workers = ConcurrentHashMap.newKeySet();
    private final CountDownLatch terminated = new CountDownLatch(1);
    private final Thread monitor;
    private volatile int state = RUNNING;

    /**
     * What a pool does with a task it cannot take because it is full: returns the exception {@code execute} throws
     * (or throws its own). Runs on the thread that called {@code execute}; must not block.
     */
    @FunctionalInterface
    public interface Rejection {
        /** The exception for a task refused because {@code reason} (what is full, with the counts and the limit). */
        RejectedExecutionException rejected(ServicePool pool, String reason);
    }

    /** Every bound of a pool; start from {@link ServicePool#settings(String, int)}. Not thread-safe. */
    public static final class Settings {
        private final String name;
        private final int max;
        private int core;
        private int queueCapacity = Integer.MAX_VALUE;
        private int maxInFlight = Integer.MAX_VALUE;
        private long keepAliveNanos = TimeUnit.SECONDS.toNanos(60);
        private long stallNanos = DEFAULT_STALL_NANOS;
        private long maxSpinNanos = SPIN_NANOS;
        private ThreadFactory threadFactory;
        private Rejection rejection = (pool, reason) -> new RejectedExecutionException(reason);

        private Settings(String name, int max) {
            this.name = Objects.requireNonNull(name, "name");
            this.max = max;
        }

        /**
         * Workers started at once on demand, at most {@code max}; 0 (the default):
         * {@link ServicePool#coreThreads(int)}.
         */
        public Settings core(int value) {
            this.core = value;
            return this;
        }

        /** Most tasks waiting for a worker (default: no bound but {@link #maxInFlight}). */
        public Settings queueCapacity(int value) {
            this.queueCapacity = value;
            return this;
        }

        /** Most tasks waiting or running at once (default: not counted). */
        public Settings maxInFlight(int value) {
            this.maxInFlight = value;
            return this;
        }

        /** How long a parked worker waits for work before it exits (default 60 s). */
        public Settings keepAliveNanos(long value) {
            this.keepAliveNanos = value;
            return this;
        }

        /**
         * See {@link ServicePool#DEFAULT_STALL_NANOS}; {@code 0} disables the monitor (tests only: then the pool never
         * grows beyond its core and a lost wake-up would show as a task that never runs).
         */
        public Settings stallNanos(long value) {
            this.stallNanos = value;
            return this;
        }

        /** The longest spin, instead of {@link ServicePool#SPIN_NANOS}. */
        public Settings maxSpinNanos(long value) {
            this.maxSpinNanos = value;
            return this;
        }

        /** Makes the workers' threads (default: daemon threads named {@code <name>-<n>}). */
        public Settings threadFactory(ThreadFactory value) {
            this.threadFactory = Objects.requireNonNull(value, "threadFactory");
            return this;
        }

        /** What {@code execute} throws when the pool is full (default: a plain {@link RejectedExecutionException}). */
        public Settings rejection(Rejection value) {
            this.rejection = Objects.requireNonNull(value, "rejection");
            return this;
        }

        /** Starts the pool's monitor (when {@code stallNanos} > 0); workers start on demand. */
        public ServicePool build() {
            return new ServicePool(this);
        }
    }

    /** Settings for a pool named {@code name} of at most {@code max} workers. */
    public static Settings settings(String name, int max) {
        return new Settings(name, max);
    }

    /**
     * @param max most workers (the {@code threads} of {@code SluiceServer.Builder#threads})
     * @param queueCapacity most tasks waiting for a worker
     * @param keepAliveNanos how long a parked worker waits for work before it exits
     * @param stallNanos see {@link Settings#stallNanos(long)}
     */
    public ServicePool(String name, int max, int queueCapacity, long keepAliveNanos, long stallNanos) {
        this(name, max, queueCapacity, keepAliveNanos, stallNanos, SPIN_NANOS);
    }

    /** As above, with the longest spin {@code maxSpinNanos} instead of {@link #SPIN_NANOS} (tests). */
    public ServicePool(String name, int max, int queueCapacity, long keepAliveNanos, long stallNanos,
            long maxSpinNanos) {
        this(settings(name, max).queueCapacity(queueCapacity).keepAliveNanos(keepAliveNanos).stallNanos(stallNanos)
                .maxSpinNanos(maxSpinNanos));
    }

    /** {@code SluiceServer}'s default pool: {@code sluice-service}, a minute's keep-alive, growth on stalls. */
    public ServicePool(int max, int queueCapacity) {
        this("sluice-service", max, queueCapacity, TimeUnit.SECONDS.toNanos(60), DEFAULT_STALL_NANOS);
    }

    private ServicePool(Settings s) {
        if (s.max < 1 || s.queueCapacity < 1 || s.maxInFlight < 1 || s.core < 0 || s.keepAliveNanos <= 0
                || s.stallNanos < 0 || s.maxSpinNanos < 0) {
            throw new IllegalArgumentException("max threads " + s.max + ", queue capacity " + s.queueCapacity
                    + " and tasks in flight " + s.maxInFlight + " must be >= 1, core threads " + s.core
                    + " >= 0, keep-alive " + s.keepAliveNanos + " ns > 0, stall " + s.stallNanos + " ns and spin "
                    + s.maxSpinNanos + " ns >= 0");
        }
        this.maxSpinNanos = s.maxSpinNanos;
        this.spinNanos = s.maxSpinNanos;
        this.name = s.name;
        this.max = s.max;
        this.core = s.core == 0 ? coreThreads(s.max) : Math.min(s.core, s.max);
        this.queueCapacity = s.queueCapacity;
        this.maxInFlight = s.maxInFlight;
        this.threadFactory = s.threadFactory != null ? s.threadFactory : this::defaultThread;
        this.rejection = s.rejection;
        this.keepAliveNanos = s.keepAliveNanos;
        this.stallNanos = s.stallNanos;
        if (stallNanos > 0) {
            monitor = new Thread(this::monitorLoop, name + "-monitor");
            monitor.setDaemon(true);
            monitor.start();
        } else {
            monitor = null;
        }
    }

    private Thread defaultThread(Runnable worker) {
        Thread t = new Thread(worker, name + "-" + IDS.incrementAndGet());
        t.setDaemon(true);
        return t;
    }

    /** The pool's name (its monitor thread's, and its default threads' prefix). */
    public String name() {
        return name;
    }

    /** Most workers. */
    public int maxThreads() {
        return max;
    }

    /** How long a parked worker waits for work before it exits. */
    public long keepAliveNanos() {
        return keepAliveNanos;
    }

    /** The most workers that were live at once. */
    public int largestThreads() {
        return largest.get();
    }

    /** Tasks waiting or running, when the pool counts them ({@link Settings#maxInFlight(int)}); else 0. */
    public int inFlight() {
        return inFlight.get();
    }

    /** The most tasks waiting or running at once; {@link Integer#MAX_VALUE} when not bounded. */
    public int maxInFlight() {
        return maxInFlight;
    }

    /** Workers started on demand without waiting for a stall. */
    public int coreThreads() {
        return core;
    }

    /** The core of a pool of at most {@code max} threads: one per available processor, at least 2, at most max. */
    public static int coreThreads(int max) {
        return Math.min(max, Math.max(2, Runtime.getRuntime().availableProcessors()));
    }

    /** Live workers. */
    public int threads() {
        return threads.get();
    }

    /** Tasks waiting for a worker. */
    public int queuedTasks() {
        return queued.get();
    }

    /** Workers parked for want of work. */
    public int parkedWorkers() {
        return parked.size();
    }

    /** How long the next searching worker will spin before it parks. */
    public long spinNanos() {
        return spinNanos;
    }

    @Override
    public void execute(Runnable task) {
        Objects.requireNonNull(task, "task");
        if (state != RUNNING) {
            throw new RejectedExecutionException(name + " is shut down");
        }
        boolean counted = maxInFlight != Integer.MAX_VALUE;
        while (counted) {
            int n = inFlight.get();
            if (n >= maxInFlight) {
                throw rejection.rejected(this, name + " is exhausted: " + n + " tasks are running or waiting (limit "
                        + maxInFlight + "), " + threads.get() + " of at most " + max + " threads live");
            }
            if (inFlight.compareAndSet(n, n + 1)) {
                break;
            }
        }
        for (;;) {
            int q = queued.get();
            if (q >= queueCapacity) {
                if (counted) {
                    inFlight.decrementAndGet();
                }
                throw rejection.rejected(this, name + " is exhausted: " + q + " tasks wait (capacity "
                        + queueCapacity + ") and " + threads.get() + " of at most " + max + " threads are busy");
            }
            if (queued.compareAndSet(q, q + 1)) {
                break;
            }
        }
        queue.offer(task);
        if (state != RUNNING && queue.remove(task)) {
            queued.decrementAndGet();
            if (counted) {
                inFlight.decrementAndGet();
            }
            throw new RejectedExecutionException(name + " is shut down");
        }
        if (searching.get() == 0) {
            signalWork(core);
        }
    }

    /**
     * Makes sure some worker will look at the queue: claims the single wake-up right (searching 0 to 1) and passes it
     * to a parked worker, or to a new one if fewer than {@code limit} live. Returns whether a worker was chosen.
     */
    private boolean signalWork(int limit) {
        if (!searching.compareAndSet(0, 1)) {
            return false; // someone searches; it will find the work
        }
        return handOverSearch(limit);
    }

    /**
     * The caller holds one count of {@link #searching} on behalf of the worker it wakes or starts; if it finds none,
     * it gives the count back. While it held the count, a submitter may have skipped its own wake-up, and a worker
     * may have parked without seeing that submitter's task, or left the pool and skipped its own look at the queue,
     * so after giving the count back it looks at the queue, the parked set and the thread count once more.
     */
    private boolean handOverSearch(int limit) {
        for (;;) {
            Worker w = parked.pollFirst();
            if (w != null) {
                w.signalledAt = System.nanoTime();
                w.signalled = true;
                LockSupport.unpark(w.thread);
                return true;
            }
            boolean startFailed = false;
            if (reserveThread(limit)) {
                if (startWorker()) {
                    return true;
                }
                startFailed = true;
            }
            searching.decrementAndGet();
            // Look again at both ways a worker could have become available while we held the count: one parked, or
            // one left (threads below the limit: a worker that exits after we read the count, sees work queued and
            // finds the wake-up claimed by us, starts nobody). A failed thread start does not retry the latter.
            boolean canStart = !startFailed && threads.get() < limit;
            if (queue.isEmpty() || (parked.isEmpty() && !canStart) || !searching.compareAndSet(0, 1)) {
                return false;
            }
        }
    }

    private boolean reserveThread(int limit) {
        for (;;) {
            int n = threads.get();
            if (n >= limit) {
                return false;
            }
            if (threads.compareAndSet(n, n + 1)) {
                largest.accumulateAndGet(n + 1, Math::max);
                return true;
            }
        }
    }

    /** Starts a worker for a reserved thread count; it begins searching. On failure undoes the reservation. */
    private boolean startWorker() {
        Worker w = new Worker();
        Thread t;
        try {
            t = threadFactory.newThread(w);
            if (t == null) {
                throw new IllegalStateException(name + ": the thread factory made no thread");
            }
            w.thread = t;
            workers.add(w);
            t.start();
            return true;
        } catch (Throwable e) { // OutOfMemoryError: unable to create native thread, and the like
            workers.remove(w);
            threads.decrementAndGet();
            tryTerminate();
            return false;
        }
    }

    private final class Worker implements Runnable {
        volatile Thread thread;
        /** Set by the thread that removed this worker from {@link #parked}; it then holds a search count for us. */
        volatile boolean signalled;
        /** When a submitter chose this parked worker (0 if shutdown woke it); published by {@link #signalled}. */
        long signalledAt;
        /** Tasks this worker has started; written by the worker only, read by the monitor. */
        volatile long started;

        @Override
        public void run() {
            try {
                work();
            } finally {
                workers.remove(this);
                threads.decrementAndGet();
                // A submitter may have seen this thread as live and started none: look once more (see class doc).
                if (!queue.isEmpty() && state != STOP) {
                    signalWork(core);
                }
                tryTerminate();
            }
        }

        /** Starts as a searcher (the starter counted us). */
        private void work() {
            boolean searcher = true;
            for (;;) {
                Runnable task = queue.poll();
                if (task == null) {
                    if (!searcher) {
                        searching.incrementAndGet();
                        searcher = true;
                        continue; // look again now that submitters can see us
                    }
                    if (state == STOP || (state == SHUTDOWN && queue.isEmpty())) {
                        searching.decrementAndGet();
                        return;
                    }
                    task = spin();
                    if (task == null) {
                        int outcome = park(); // returns without a search count unless woken
                        if (outcome == EXIT) {
                            return;
                        }
                        searcher = outcome == WOKEN;
                        continue;
                    }
                }
                queued.decrementAndGet();
                if (searcher) {
                    searcher = false;
                    if (searching.decrementAndGet() == 0 && !queue.isEmpty()) {
                        signalWork(core); // the burst may need more hands; pass the search on
                    }
                }
                started++;
                runTask(task);
            }
        }

        /** Spins for work if this is the only searcher, for the current adaptive budget; a fruitless spin halves it. */
        private Runnable spin() {
            long budget = spinNanos;
            if (budget == 0 || searching.get() > 1) {
                return null;
            }
            long deadline = System.nanoTime() + budget;
            do {
                Thread.onSpinWait();
                Runnable task = queue.poll();
                if (task != null) {
                    return task;
                }
            } while (System.nanoTime() - deadline < 0 && state == RUNNING);
            long half = budget / 2;
            spinNanos = half < MIN_SPIN_NANOS ? 0 : half;
            return null;
        }

        private void runTask(Runnable task) {
            if (state != STOP) {
                Thread.interrupted(); // an interrupt meant for the previous task must not hit this one
            }
            try {
                task.run();
            } catch (Throwable e) {
                Thread t = Thread.currentThread();
                t.getUncaughtExceptionHandler().uncaughtException(t, e);
            } finally {
                if (maxInFlight != Integer.MAX_VALUE) {
                    inFlight.decrementAndGet();
                }
            }
        }

        /**
         * Called holding a search count. Parks until woken, the keep-alive expires or the pool shuts down.
         * Returns {@link #WOKEN} holding a search count, {@link #RETRY} without one, or {@link #EXIT} without one.
         */
        private int park() {
            signalled = false;
            signalledAt = 0;
            long parkedAt = System.nanoTime();
            parked.addFirst(this);
            searching.decrementAndGet();
            // Publish-then-look: a submitter that enqueued before we registered saw no parked worker.
            if (!queue.isEmpty() || state != RUNNING) {
                return unpark(parked.remove(this) ? RETRY : waitSignal());
            }
            long deadline = System.nanoTime() + keepAliveNanos;
            while (!signalled) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    if (parked.remove(this)) {
                        return EXIT; // nobody chose us; run() looks at the queue once more as it leaves
                    }
                    return unpark(waitSignal());
                }
                LockSupport.parkNanos(ServicePool.this, left);
            }
            long at = signalledAt;
            if (at != 0 && at - parkedAt < maxSpinNanos) {
                spinNanos = maxSpinNanos; // a full spin would have caught this task without the wake-up
            }
            return unpark(WOKEN);
        }

        /** Someone removed us from {@link #parked} and is about to set {@link #signalled}. */
        private int waitSignal() {
            while (!signalled) {
                Thread.onSpinWait();
            }
            return WOKEN;
        }

        private int unpark(int outcome) {
            if (outcome == RETRY) {
                searching.incrementAndGet();
                return WOKEN;
            }
            return outcome;
        }
    }

    private static final int WOKEN = 0;
    private static final int RETRY = 1;
    private static final int EXIT = 2;

    /**
     * Adds a worker when queued work made no progress and nobody searches: after {@code stallNanos} if some worker
     * waits in its task ({@link #blockedWorker}), after {@link #RUNNABLE_STALL_FACTOR} times that otherwise. A runnable
     * worker may be computing, or descheduled by a busy machine, and another thread would not help; or it may be
     * blocked in socket I/O, which Java reports as runnable, so it is not ignored forever.
     */
    private void monitorLoop() {
        long sleep = stallNanos;
        long last = startedTotal();
        long stalledSince = System.nanoTime();
        boolean wasQueued = false;
        while (state != STOP && terminated.getCount() > 0) {
            LockSupport.parkNanos(this, sleep);
            long started = startedTotal();
            long now = System.nanoTime();
            boolean isQueued = queued.get() > 0;
            if (!isQueued || !wasQueued || started != last) {
                stalledSince = now; // nothing waits, or it only started waiting, or calls moved
                sleep = isQueued ? stallNanos : Math.min(sleep * 2, IDLE_SAMPLE_MAX_NANOS);
            } else if (searching.get() == 0 && state != STOP) {
                long stalled = now - stalledSince;
                Thread blocked = stalled >= stallNanos ? blockedWorker() : null;
                if (stalled >= stallNanos * RUNNABLE_STALL_FACTOR || blocked != null) {
                    int before = threads.get();
                    searching.incrementAndGet();
                    if (handOverSearch(max)) {
                        stalledSince = now;
                        if (log.isDebugEnabled()) {
                            log.debug("{}: {} queued tasks made no progress for {} us ({}); added a worker ({} live"
                                    + " before, max {})", name, queued.get(), TimeUnit.NANOSECONDS.toMicros(stalled),
                                    blocked == null ? "every worker runnable" : blocked.getName() + " "
                                            + blocked.getState() + " on " + LockSupport.getBlocker(blocked),
                                    before, max);
                        }
                    }
                }
            }
            wasQueued = isQueued;
            last = started;
        }
    }

    /**
     * A worker that waits in its task (sleeping, or waiting for a future, a latch, a connection from a pool), or
     * null. A worker parked by this pool for want of work is not one. Nor is a worker {@code BLOCKED} entering a
     * monitor: the thread holding it is running or waiting itself, and more threads would only queue on the same
     * monitor (a cold JVM's class loading or a serializer's one-time code generation can hold many workers on one
     * lock). Such workers count as runnable.
     */
    private Thread blockedWorker() {
        for (Worker w : workers) {
            Thread t = w.thread;
            if (t == null) {
                continue;
            }
            Thread.State st = t.getState();
            if ((st == Thread.State.WAITING || st == Thread.State.TIMED_WAITING) && LockSupport.getBlocker(t) != this) {
                return t;
            }
        }
        return null;
    }

    private long startedTotal() {
        long sum = 0;
        for (Worker w : workers) {
            sum += w.started;
        }
        return sum;
    }

    private void tryTerminate() {
        if (state != RUNNING && threads.get() == 0 && (state == STOP || queue.isEmpty())) {
            terminated.countDown();
            if (monitor != null) {
                LockSupport.unpark(monitor);
            }
        }
    }

    private synchronized void advance(int to) {
        if (state < to) {
            state = to;
        }
    }

    /** Wakes every parked worker so that it sees the new state; they leave holding no search count. */
    private void wakeAll() {
        Worker w;
        while ((w = parked.pollFirst()) != null) {
            searching.incrementAndGet();
            w.signalledAt = 0;
            w.signalled = true;
            LockSupport.unpark(w.thread);
        }
        if (monitor != null) {
            LockSupport.unpark(monitor);
        }
    }

    @Override
    public void shutdown() {
        advance(SHUTDOWN);
        wakeAll();
        if (!queue.isEmpty()) {
            signalWork(core); // queued tasks still run; make sure someone is there to run them
        }
        tryTerminate();
    }

    @Override
    public List<Runnable> shutdownNow() {
        advance(STOP);
        List<Runnable> left = new ArrayList<>();
        Runnable task;
        while ((task = queue.poll()) != null) {
            queued.decrementAndGet();
            if (maxInFlight != Integer.MAX_VALUE) {
                inFlight.decrementAndGet();
            }
            left.add(task);
        }
        for (Worker w : workers) {
            Thread t = w.thread;
            if (t != null) {
                t.interrupt();
            }
        }
        wakeAll();
        tryTerminate();
        return left;
    }

    @Override
    public boolean isShutdown() {
        return state != RUNNING;
    }

    @Override
    public boolean isTerminated() {
        return terminated.getCount() == 0 && (monitor == null || !monitor.isAlive());
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        if (!terminated.await(timeout, unit)) {
            return false;
        }
        if (monitor != null) {
            long left = deadline - System.nanoTime();
            if (left > 0) {
                TimeUnit.NANOSECONDS.timedJoin(monitor, left);
            }
            return !monitor.isAlive();
        }
        return true;
    }

    @Override
    public String toString() {
        return name + "[threads=" + threads.get() + " (core " + core + ", max " + max + ", largest " + largest.get()
                + "), queued=" + queued.get() + "/" + queueCapacity + (maxInFlight == Integer.MAX_VALUE ? ""
                : ", in flight=" + inFlight.get() + "/" + maxInFlight) + ", searching=" + searching.get()
                + ", state=" + state + "]";
    }
}
