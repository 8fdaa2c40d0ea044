package dev.sluice.transport.netty;

import dev.sluice.transport.AllocatorKind;
import dev.sluice.transport.TransportObserver;
import dev.sluice.transport.internal.LogLimiter;
import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link TransportObserver} that never throws: every call to the observer it wraps is guarded, and what that throws
 * is logged and otherwise ignored. The observer is called in the middle of the write path (after frames were taken
 * from the write queue, before the flush of frames written directly) and of the close path (before the handler hears
 * of the close): a throw there would strand frames, their listeners and their share of the cap, or leave the calls
 * waiting on a closed connection to their timeouts. Its contract says it must not throw; this makes sure.
 *
 * <p>The log is rate-limited for the whole process ({@link LogLimiter}): the first throw, then at most one line a
 * minute, which counts the throws not logged since. A broken observer is called for every frame, and one line per
 * frame would flood the log.
 *
 * <p>Threads: any, like the observer it wraps; the rate limit is lock-free.
 */
final class GuardedObserver implements TransportObserver {
    private static final Logger log = LoggerFactory.getLogger(GuardedObserver.class);
    /** One line a minute for the whole process: a broken observer is called for every frame. */
    private static final LogLimiter THROWS = new LogLimiter(Duration.ofMinutes(1));

    private final TransportObserver observer;

    private GuardedObserver(TransportObserver observer) {
        this.observer = observer;
    }

    /** {@code observer} guarded; null stays null (no observer, no calls at all). */
    static TransportObserver of(TransportObserver observer) {
        return observer == null || observer instanceof GuardedObserver ? observer : new GuardedObserver(observer);
    }

    @Override
    public void transportStarted(Iterable<? extends Executor> eventLoops, AllocatorKind allocator) {
        try {
            observer.transportStarted(eventLoops, allocator);
        } catch (Throwable t) {
            threw("transportStarted", t);
        }
    }

    @Override
    public void stallChanged(boolean stalled) {
        try {
            observer.stallChanged(stalled);
        } catch (Throwable t) {
            threw("stallChanged", t);
        }
    }

    @Override
    public void connectionOpened(LongSupplier pendingBytes) {
        try {
            observer.connectionOpened(pendingBytes);
        } catch (Throwable t) {
            threw("connectionOpened", t);
        }
    }

    @Override
    public void connectionClosed(LongSupplier pendingBytes) {
        try {
            observer.connectionClosed(pendingBytes);
        } catch (Throwable t) {
            threw("connectionClosed", t);
        }
    }

    @Override
    public void bytesRead(int bytes) {
        try {
            observer.bytesRead(bytes);
        } catch (Throwable t) {
            threw("bytesRead", t);
        }
    }

    @Override
    public void frameRead() {
        try {
            observer.frameRead();
        } catch (Throwable t) {
            threw("frameRead", t);
        }
    }

    @Override
    public void batchWritten(int messages, long bytes, boolean chunkBoundHit) {
        try {
            observer.batchWritten(messages, bytes, chunkBoundHit);
        } catch (Throwable t) {
            threw("batchWritten", t);
        }
    }

    @Override
    public void queueWait(long nanos) {
        try {
            observer.queueWait(nanos);
        } catch (Throwable t) {
            threw("queueWait", t);
        }
    }

    @Override
    public void unwritable(long nanos) {
        try {
            observer.unwritable(nanos);
        } catch (Throwable t) {
            threw("unwritable", t);
        }
    }

    @Override
    public void pendingBytesExceeded() {
        try {
            observer.pendingBytesExceeded();
        } catch (Throwable t) {
            threw("pendingBytesExceeded", t);
        }
    }

    @Override
    public void decodeError() {
        try {
            observer.decodeError();
        } catch (Throwable t) {
            threw("decodeError", t);
        }
    }

    @Override
    public void reconnected() {
        try {
            observer.reconnected();
        } catch (Throwable t) {
            threw("reconnected", t);
        }
    }

    @Override
    public void readingPaused() {
        try {
            observer.readingPaused();
        } catch (Throwable t) {
            threw("readingPaused", t);
        }
    }

    @Override
    public void readingResumed() {
        try {
            observer.readingResumed();
        } catch (Throwable t) {
            threw("readingResumed", t);
        }
    }

    private void threw(String method, Throwable t) {
        THROWS.warn(log, "TransportObserver.{} of {} threw; ignored, the transport goes on (an observer must not"
                + " throw)", method, observer.getClass().getName(), t);
    }
}
