package dev.sluice.rpc;

import dev.sluice.transport.internal.LogLimiter;
import dev.sluice.transport.internal.ServicePool;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one timeout thread of every {@link SluiceClient} in the JVM, {@code sluice-client-timeouts}: every
 * {@link #SWEEP_MILLIS} ms it sweeps the tables ({@link PendingCalls}) that have asynchronous calls waiting and times
 * out those past their deadline, each by its own client's timeout. A table is <em>armed</em> (in the sweep) from its
 * first waiting asynchronous call until a sweep finds none; with no table armed the thread parks until one is. One
 * thread for all clients, instead of one per client, means N providers cost one thread and one sweep period, not N.
 *
 * <p>A timed-out call's future is completed on its client's callback executor, as every asynchronous outcome is. The
 * timeout thread watches that hand-off: a completion the executor has not started within
 * {@link #HANDOFF_GRACE_MILLIS} (every thread of it blocked, say, in callbacks that wait for other calls) moves to a
 * {@link CallbackFallback} thread, so a timeout never waits for a blocked pool and never runs user callbacks on an
 * event loop or on this thread.
 *
 * <p>Threads: {@link #arm} and {@link #ensureRunning} run on calling threads and never block; everything else runs on
 * the timeout thread, which is started at the first asynchronous call, never runs user code and survives anything a
 * sweep throws; should it die anyway, it is replaced (at once, or by the next asynchronous call).
 *
 * <p><b>No lost wake-ups.</b> Both sides publish before they look, as in {@link ServicePool}. A table is armed by the
 * caller that flips its flag ({@link PendingCalls#armed}) from false to true after registering its call; the sweeper
 * disarms a table it found empty by removing it, clearing the flag, then sweeping it once more (a call registered
 * before the flag was cleared is seen by that sweep, which re-arms the table; one registered after it flips the flag
 * itself). Likewise the thread, before parking, says it is idle and then looks at the armed tables once more; a caller
 * arming a table adds it, then wakes the thread if it is idle.
 */
final class TimeoutSweeper {
    private static final Logger log = LoggerFactory.getLogger(TimeoutSweeper.class);
    /** How often the timeout thread looks for asynchronous calls past their deadline. */
    static final long SWEEP_MILLIS = 10;
    static final String THREAD_NAME = "sluice-client-timeouts";
    private static final TimeoutSweeper SHARED = new TimeoutSweeper();

    /**
     * How long a timed-out call's completion may wait for its callback executor to start it before the timeout
     * thread hands it to a {@link CallbackFallback} thread.
     */
    static final long HANDOFF_GRACE_MILLIS = 50;
    private static final long HANDOFF_GRACE_NANOS = TimeUnit.MILLISECONDS.toNanos(HANDOFF_GRACE_MILLIS);
    /** At most one warning a minute about a callback executor that does not start completions. */
    private static final LogLimiter SLOW_EXECUTOR_WARNINGS = new LogLimiter(Duration.ofMinutes(1));

    /** The tables with asynchronous calls waiting; each at most once (its armed flag guards the adding). */
    private final ConcurrentLinkedQueue<PendingCalls> armed = new ConcurrentLinkedQueue<>();
    /** The timeout thread found no table armed and parks until {@link #arm} wakes it. */
    private final AtomicBoolean idle = new AtomicBoolean();
    /** The timeout thread; null before the first asynchronous call, or after it died and could not be replaced. */
    private volatile Thread thread;
    /** Completions of timed-out calls handed to their callback executors and not yet seen started; timeout thread. */
    private final ArrayDeque<Handoff> handoffs = new ArrayDeque<>();

    /**
     * The task completing a timed-out call's future, which runs once: on the callback executor, or, when that has not
     * started it within {@link #HANDOFF_GRACE_MILLIS}, on a {@link CallbackFallback} thread.
     */
    static final class Handoff extends AtomicBoolean implements Runnable {
        private static final long serialVersionUID = 1L;
        private final transient Runnable task;
        private final long handedNanos = System.nanoTime();

        Handoff(Runnable task) {
            this.task = task;
        }

        @Override
        public void run() {
            if (compareAndSet(false, true)) {
                task.run();
            }
        }
    }

    private TimeoutSweeper() {}

    /** The JVM's timeout thread. */
    static TimeoutSweeper shared() {
        return SHARED;
    }

    /** Puts {@code table}, whose armed flag the caller just set, into the sweep. Calling thread. */
    void arm(PendingCalls table) {
        armed.offer(table);
        if (idle.get() && idle.compareAndSet(true, false)) {
            LockSupport.unpark(thread);
        } else {
            ensureRunning();
        }
    }

    /** Starts the timeout thread if there is none (the first asynchronous call, or one that died). Any thread. */
    void ensureRunning() {
        if (thread == null) {
            start();
        }
    }

    private synchronized void start() {
        if (thread != null) {
            return;
        }
        Thread t = new Thread(this::loop, THREAD_NAME);
        t.setDaemon(true);
        idle.set(false);
        thread = t;
        try {
            t.start();
        } catch (Throwable e) { // NOPMD: no thread (an OutOfMemoryError); the next asynchronous call tries again
            thread = null;
            log.error("Could not start the client timeout thread; the next asynchronous call tries again", e);
        }
    }

    /**
     * The timeout thread: sweeps the armed tables every {@link #SWEEP_MILLIS} ms; with none armed it registers as
     * idle, looks once more, then parks until a table is armed.
     */
    private void loop() {
        try {
            while (thread == Thread.currentThread()) {
                try {
                    sweepArmed();
                    rescueHandoffs();
                    if (armed.isEmpty() && handoffs.isEmpty()) {
                        idle.set(true);
                        if (armed.isEmpty()) {
                            while (idle.get()) {
                                LockSupport.park(this);
                            }
                        } else {
                            idle.set(false);
                        }
                    }
                } catch (Throwable t) { // NOPMD: nothing a call's completion throws may stop every later timeout
                    idle.set(false);
                    log.error("The client timeout thread caught an error and keeps sweeping", t);
                }
                LockSupport.parkNanos(this, TimeUnit.MILLISECONDS.toNanos(SWEEP_MILLIS));
            }
        } finally {
            replace(); // the guard itself threw (an Error while logging, say): a new thread takes over
        }
    }

    private void replace() {
        synchronized (this) {
            if (thread != Thread.currentThread()) {
                return;
            }
            thread = null;
        }
        if (!armed.isEmpty()) {
            start();
        }
    }

    /**
     * Watches {@code handoff}, just given to a callback executor, until it starts; the timeout thread (a timed-out
     * call is completed by the thread that times it out: {@link PendingCall#timedOut}).
     */
    void watch(Handoff handoff) {
        handoffs.add(handoff);
    }

    /**
     * Moves completions that their callback executor has not started within {@link #HANDOFF_GRACE_MILLIS} to a
     * {@link CallbackFallback} thread: when every thread of the executor is blocked (callbacks waiting for other
     * calls, say), a timeout still completes its future, and never on an event loop or this thread.
     */
    private void rescueHandoffs() {
        if (handoffs.isEmpty()) {
            return;
        }
        long now = System.nanoTime();
        int rescued = 0;
        for (Iterator<Handoff> it = handoffs.iterator(); it.hasNext(); ) {
            Handoff h = it.next();
            if (h.get()) {
                it.remove(); // started by its executor
            } else if (now - h.handedNanos >= HANDOFF_GRACE_NANOS) {
                it.remove();
                if (h.compareAndSet(false, true)) {
                    rescued++;
                    CallbackFallback.run(h.task);
                }
            }
        }
        if (rescued > 0) {
            SLOW_EXECUTOR_WARNINGS.warn(log, "A client's callback executor did not start completing {} timed-out"
                    + " call(s) within {} ms (are its threads blocked?); they were completed on fallback threads"
                    + " (logged at most once a minute)", rescued, HANDOFF_GRACE_MILLIS);
        }
    }

    /** Sweeps every armed table once; disarms those with no asynchronous call left. The timeout thread. */
    private void sweepArmed() {
        for (Iterator<PendingCalls> it = armed.iterator(); it.hasNext(); ) {
            PendingCalls table = it.next();
            if (sweep(table) == 0) {
                it.remove();
                table.armed.set(false);
                if (sweep(table) > 0 && table.armed.compareAndSet(false, true)) {
                    armed.offer(table); // a call registered while it was being disarmed
                }
            }
        }
    }

    /** One table's sweep; a table whose sweep throws stays armed and is swept again next period. */
    private static int sweep(PendingCalls table) {
        try {
            return table.sweep();
        } catch (Throwable t) { // NOPMD: one client's failure must not stop the others' timeouts
            log.error("Sweeping the timeouts of the client to {} failed; it is swept again", table.remote(), t);
            return 1;
        }
    }
}
