package dev.sluice.transport.internal;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;

/**
 * A budget for one kind of log line that a peer can provoke (a refused connection, undecodable input, a frame refused
 * from its header, a frame timeout, an idle close): at most one line per period, the occurrences in between counted
 * and reported by the next line. So a peer that sends a bad 16-byte header ten thousand times, or opens ten thousand
 * connections, buys one line a second, not ten thousand (docs/reliability.md A9b).
 *
 * <p>Use one instance per kind of line, usually a {@code static} field shared by every connection of the process, so
 * that many connections buy no more lines than one: {@code UNDECODABLE.warn(log, "Closing {}: {}", connection, why)}
 * logs at WARN when a line is due (saying how many more there were since the last one) and at DEBUG otherwise; or
 * {@link #admit} for a line of one's own.
 *
 * <p>Thread-safe and lock-free: any thread, event loops included.
 */
public final class LogLimiter {
    /** The period of {@link #LogLimiter()}: one line a second. */
    public static final Duration DEFAULT_PERIOD = Duration.ofSeconds(1);

    private final long periodNanos;
    private final AtomicLong lastLine;
    private final AtomicLong sinceLine = new AtomicLong();

    /** At most one line a second. */
    public LogLimiter() {
        this(DEFAULT_PERIOD);
    }

    /** At most one line per {@code period}. */
    public LogLimiter(Duration period) {
        if (period.isNegative() || period.isZero()) {
            throw new IllegalArgumentException("the period must be > 0, got " + period);
        }
        this.periodNanos = period.toNanos();
        this.lastLine = new AtomicLong(System.nanoTime() - periodNanos);
    }

    /**
     * Counts one occurrence. When a line is due, returns how many occurrences it reports (this one and those since the
     * last line; at least 1); otherwise returns 0, and the caller logs nothing above DEBUG.
     */
    public long admit() {
        long since = sinceLine.incrementAndGet();
        long now = System.nanoTime();
        long last = lastLine.get();
        if (now - last >= periodNanos && lastLine.compareAndSet(last, now)) {
            sinceLine.addAndGet(-since);
            return since;
        }
        return 0;
    }

    /** Logs at WARN when a line is due, else at DEBUG; see {@link #log}. */
    public void warn(Logger log, String format, Object... args) {
        log(log, true, format, args);
    }

    /** Logs at INFO when a line is due, else at DEBUG; see {@link #log}. */
    public void info(Logger log, String format, Object... args) {
        log(log, false, format, args);
    }

    /**
     * Counts one occurrence and logs it at WARN ({@code warn}) or INFO when a line is due, with how many more there
     * were since the last line appended, else at DEBUG. {@code format} and {@code args} as slf4j takes them: one
     * {@code {}} per argument, and a {@link Throwable} as the last argument is logged with its stack trace.
     */
    private void log(Logger log, boolean warn, String format, Object... args) {
        long n = admit();
        if (n == 0) {
            log.debug(format, args);
            return;
        }
        int count = args.length;
        boolean thrown = count > 0 && args[count - 1] instanceof Throwable;
        int at = thrown ? count - 1 : count;
        Object[] withTail = new Object[count + 1];
        System.arraycopy(args, 0, withTail, 0, at);
        withTail[at] = alsoSince(n);
        if (thrown) {
            withTail[count] = args[count - 1];
        }
        if (warn) {
            log.warn(format + "{}", withTail);
        } else {
            log.info(format + "{}", withTail);
        }
    }

    /**
     * The tail of a line reporting {@code admitted} occurrences (what {@link #admit} returned): empty for one, else
     * how many more there were since the last line.
     */
    public static String alsoSince(long admitted) {
        return admitted <= 1 ? "" : " (and " + (admitted - 1) + " more like it since the last report)";
    }
}
