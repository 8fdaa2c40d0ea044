package dev.sluice.transport;

import java.util.concurrent.Executor;
import java.util.function.LongSupplier;

/**
 * Receives the transport's counts as they happen: the hook metrics libraries bind to (Sluice's Micrometer binding
 * is {@code dev.sluice.transport.micrometer.MicrometerTransportObserver}). Set with
 * {@link TransportOptions.Builder#observer}; none by default, and then the transport makes no call at all.
 *
 * <p><b>Threads.</b> Every method may be called concurrently from many threads: the event loops of every
 * connection (most of them), and callers' threads ({@link #pendingBytesExceeded}). Implementations must be
 * thread-safe, must not block, and must not throw; they run on the write path and should cost tens of nanoseconds.
 */
public interface TransportObserver {
    /**
     * The transport started on {@code eventLoops} (its own, or a group it was lent; a group shared by many
     * transports is reported by each of them) and allocates its buffers from the {@code allocator} kind. Called once
     * per transport, on the thread that builds it, never on one of those loops; an observer may read the loops'
     * queued tasks (Sluice's Micrometer binding does).
     */
    default void transportStarted(Iterable<? extends Executor> eventLoops, AllocatorKind allocator) {
    }

    /** A connection became active; {@code pendingBytes} reads its bytes not yet taken by the socket until closed. */
    default void connectionOpened(LongSupplier pendingBytes) {
    }

    /** The connection opened with {@code pendingBytes} closed. */
    default void connectionClosed(LongSupplier pendingBytes) {
    }

    /**
     * A connection was marked stalled ({@code stalled} true: it was written to and its peer did not answer the
     * liveness probe within the stall timeout), or a stalled connection was read from again or closed ({@code stalled}
     * false). Called on the connection's event loop; every true is followed by exactly one false.
     */
    default void stallChanged(boolean stalled) {
    }

    /** Bytes read from a socket (after TLS). */
    default void bytesRead(int bytes) {
    }

    /** One inbound message decoded and handed to the transport's handler. */
    default void frameRead() {
    }

    /**
     * One batch handed to a channel and flushed: {@code messages} frames, {@code bytes} bytes. {@code chunkBoundHit}
     * when the drain stopped at its message or byte bound with more queued (a direct write on the loop: false).
     */
    default void batchWritten(int messages, long bytes, boolean chunkBoundHit) {
    }

    /** One frame's time from enqueue to being handed to the channel (frames that went through the queue). */
    default void queueWait(long nanos) {
    }

    /** A channel was unwritable for {@code nanos}. */
    default void unwritable(long nanos) {
    }

    /** A frame was refused at enqueue: over the connection's pending-bytes cap. */
    default void pendingBytesExceeded() {
    }

    /**
     * A connection stopped reading because its outbound side is over the pending-bytes cap (its peer does not read
     * what it asked for); called on its event loop once reading is off, so nothing more is read from it until
     * {@link #readingResumed()}.
     */
    default void readingPaused() {
    }

    /** A connection whose reading was paused ({@link #readingPaused()}) reads again: its outbound side drained. */
    default void readingResumed() {
    }

    /** Undecodable input closed a connection. */
    default void decodeError() {
    }

    /** A client transport connected again after losing its connection. */
    default void reconnected() {
    }
}
