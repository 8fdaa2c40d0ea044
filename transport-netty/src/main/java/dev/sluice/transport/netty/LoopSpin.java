package dev.sluice.transport.netty;

import dev.sluice.transport.Internal;
import io.netty.channel.SelectStrategy;
import io.netty.channel.SelectStrategyFactory;
import io.netty.util.IntSupplier;
import io.netty.util.concurrent.FastThreadLocal;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * An event loop's select strategy that, for a short while after its handler has handed work to another thread whose
 * answer comes back to this loop ({@link #expect()}: a server's call given to the service pool), polls the selector
 * instead of sleeping in it.
 *
 * <p>Why: at low load a loop that sleeps is woken for every answer: the worker writes the selector's wake-up, and on
 * a virtual machine the loop's idle virtual CPU is woken too, a cost paid on every call at one caller thread
 * (docs/performance/README.md). A loop still polling when the answer arrives runs it at once. I/O
 * and tasks are served as usual while it polls (each poll is a non-blocking select).
 *
 * <p>A window ends when an answer is written on the loop ({@link #answered()}, from the write queue's drain) or
 * when it runs out. Adaptive, as the service pool's worker spin: a window that runs out halves the next one (to
 * none below {@link #MIN_WINDOW_NANOS}), so a loop whose answers take longer (methods that block) soon stops
 * polling; when the loop was not polling and the answer came sooner than the full window after {@link #expect()},
 * polling would have caught it and the full window is restored.
 *
 * <p>Only an idle loop polls: one that slept at least {@link #IDLE_NANOS} before the call came (the server adds its
 * own rule: no other call in flight). A loop that had work queued, or was woken sooner, has calls coming close
 * together, and its answers find it awake anyway. While it polls the loop yields between polls, so a worker or a
 * caller that can run gets the core: the poll saves a wake-up only on a core nothing else wants. The cost is
 * bounded by the window: at most that much CPU per call.
 *
 * <p>Threads: one instance per event loop (the factory makes one per I/O handler), driven by that loop's thread;
 * its counters are volatile so that {@link Factory#stats()} may read them from any thread. Works with the NIO and
 * epoll handlers (their select strategy); io_uring has none, and {@link #expect()} is then a no-op.
 */
@Internal
public final class LoopSpin implements SelectStrategy {
    /** A window halved below this is not worth polling: the loop sleeps at once. */
    static final long MIN_WINDOW_NANOS = 1_000;
    /**
     * A loop that slept at least this long before the call came is idle enough to poll for its answer. One caller
     * waiting for each answer leaves the loop asleep for most of a round trip, which is several times this long.
     */
    static final long IDLE_NANOS = 20_000;
    private static final FastThreadLocal<LoopSpin> CURRENT = new FastThreadLocal<>();

    private final long maxNanos;
    /** The next window; halved by a miss, restored when a sleeping loop was woken within the full window. */
    private volatile long windowNanos;
    /** While polling: when to stop; 0 otherwise. */
    private long deadline;
    /** When the last {@link #expect()} not yet {@link #answered()} came; 0 when none is outstanding. */
    private long expectedAt;
    /** When the loop last chose to sleep; 0 when its last choice was to poll or to select without waiting. */
    private long sleptAt;
    private boolean registered;
    private volatile long hits;
    private volatile long misses;

    private LoopSpin(long maxNanos) {
        this.maxNanos = maxNanos;
        this.windowNanos = maxNanos;
    }

    /** A factory of strategies polling for at most {@code window} after each {@link #expect()}. */
    static Factory factory(Duration window) {
        return new Factory(window);
    }

    /**
     * On an event loop: an answer is due from another thread shortly; poll for up to the current window before the
     * loop next sleeps. A no-op on a thread whose loop runs no {@code LoopSpin}.
     */
    public static void expect() {
        LoopSpin s = CURRENT.getIfExists();
        if (s != null) {
            s.expected(System.nanoTime());
        }
    }

    /**
     * On an event loop: an answer was written (its write queue drained), which ends a window open for it. Cheap
     * when nothing is expected: every drain calls it.
     */
    public static void answered() {
        LoopSpin s = CURRENT.getIfExists();
        if (s != null && s.expectedAt != 0) {
            s.answered(System.nanoTime());
        }
    }

    void expected(long now) {
        expectedAt = now;
        // Only a loop that was idle (asleep for a while before this call came) polls: under load calls come closer
        // together, the loop rarely sleeps that long, and a poll would take CPU the callers need.
        if (windowNanos > 0 && sleptAt != 0 && now - sleptAt >= IDLE_NANOS) {
            deadline = now + windowNanos;
        }
    }

    void answered(long now) {
        if (deadline != 0) {
            hits++;
            deadline = 0;
        } else if (now - expectedAt <= maxNanos) {
            windowNanos = maxNanos; // the loop slept (or stopped polling), and a full window would have caught it
        }
        expectedAt = 0;
    }

    @Override
    public int calculateStrategy(IntSupplier selectSupplier, boolean hasTasks) throws Exception {
        if (!registered) {
            CURRENT.set(this);
            registered = true;
        }
        if (deadline != 0) {
            if (System.nanoTime() - deadline < 0) {
                sleptAt = 0;
                // Poll: handle any ready I/O and tasks, then look again. The yield gives the core to any thread
                // that can run (a worker, a caller): polling saves a wake-up only on a core nothing else wants.
                Thread.yield();
                return selectSupplier.get();
            }
            misses++;
            deadline = 0;
            long half = windowNanos / 2;
            windowNanos = half < MIN_WINDOW_NANOS ? 0 : half;
        }
        if (hasTasks) {
            sleptAt = 0;
            return selectSupplier.get();
        }
        sleptAt = System.nanoTime();
        return SelectStrategy.SELECT;
    }

    /** Makes one strategy per I/O handler and keeps them, for {@link #stats()}. Thread-safe. */
    static final class Factory implements SelectStrategyFactory {
        private final long nanos;
        private final List<LoopSpin> made = new CopyOnWriteArrayList<>();

        Factory(Duration window) {
            nanos = window.toNanos();
            if (nanos < MIN_WINDOW_NANOS) {
                throw new IllegalArgumentException("answer spin window must be at least " + MIN_WINDOW_NANOS
                        + " ns, got " + window);
            }
        }

        @Override
        public SelectStrategy newSelectStrategy() {
            LoopSpin s = new LoopSpin(nanos);
            made.add(s);
            return s;
        }

        /** The counters summed over the group's loops; the window is the widest of them. Any thread. */
        Stats stats() {
            long hits = 0;
            long misses = 0;
            long window = 0;
            for (LoopSpin s : made) {
                hits += s.hits;
                misses += s.misses;
                window = Math.max(window, s.windowNanos);
            }
            return new Stats(nanos, hits, misses, window);
        }
    }

    /**
     * What a group's loops counted: windows that a task (the answer) ended ({@code hits}), windows that ran out
     * ({@code misses}), and the widest next window in nanoseconds (0: every loop sleeps at once until an answer
     * comes within {@code maxNanos} of being expected again).
     */
    public record Stats(long maxNanos, long hits, long misses, long windowNanos) {
    }
}
