package dev.sluice.transport;

import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;

/**
 * One live connection to a peer. Thread-safe: any thread may {@link #send} at any time. The message is encoded
 * on the calling thread by the protocol's codec into a pooled buffer and handed to the connection's write queue,
 * which writes batches on the connection's event loop.
 */
public interface Connection {
    /**
     * Encodes {@code message} on the calling thread and queues it.
     *
     * @throws FrameTooLargeException when the encoded frame exceeds the payload limit (nothing queued)
     * @throws PendingBytesExceededException when the peer is not draining fast enough (nothing queued)
     * @throws ConnectionClosedException when the connection is closed (nothing queued)
     * @throws RuntimeException whatever the codec threw while encoding (nothing queued, buffer released)
     */
    void send(Object message, WriteListener listener);

    /** As {@link #send(Object, WriteListener)}, with a future completed when the message has been written. */
    default CompletableFuture<Void> send(Object message) {
        CompletableFuture<Void> written = new CompletableFuture<>();
        send(message, new WriteListener() {
            @Override
            public void onWritten() {
                written.complete(null);
            }

            @Override
            public void onWriteFailed(Throwable cause) {
                written.completeExceptionally(cause);
            }
        });
        return written;
    }

    /** True while the connection is open. */
    boolean isActive();

    /**
     * Bytes accepted by {@link #send} and not yet written to the socket (still queued, or in the channel's outbound
     * buffer), each frame counted as what it holds (its buffer's capacity plus a fixed per-frame overhead). This is
     * what the pending-bytes cap bounds.
     */
    long pendingBytes();

    InetSocketAddress remoteAddress();

    InetSocketAddress localAddress();

    /** Per-connection attributes for the protocol layer; thread-safe. */
    Object attribute(String key);

    Object attribute(String key, Object value);

    /**
     * Closes the connection after every message queued before this call has been written to the peer, waiting at
     * most {@link TransportOptions#closeTimeout()} for that. Messages queued after it fail with
     * {@link ConnectionClosedException}. Idempotent.
     */
    CompletableFuture<Void> close();

    /**
     * As {@link #close()}, with its own bound: when what was queued before this call has not been written within
     * {@code flushTimeout} (a peer that stopped reading), the connection closes forcibly and what is left fails
     * ({@link SendState#NOT_SENT} for what was still queued). The returned future completes once it has closed.
     * The default is {@link #close()}, for connections that queue nothing.
     */
    default CompletableFuture<Void> close(java.time.Duration flushTimeout) {
        return close();
    }

    /** Completes when the connection has closed, for whatever reason. */
    CompletableFuture<Void> closeFuture();

    /**
     * True when the calling thread is this connection's event loop: the thread its {@link TransportHandler} events run
     * on, which must never block (a blocking call made there refuses to wait).
     */
    boolean inEventLoop();

    /** The connection's event loop as an executor, to run short work in order with its events. Never block in it. */
    java.util.concurrent.Executor executor();

    /**
     * Says, on this connection's event loop, that another thread will send on it shortly: a call handed to a
     * service pool with nothing else in flight, its answer due in microseconds. A server transport whose loops
     * poll for answers ({@link TransportOptions#answerSpin()}) keeps this loop polling instead of sleeping for that
     * long, so the answer does not have to wake it. A hint: it changes no ordering and no outcome. The default does
     * nothing.
     */
    default void answerDue() {
    }

    /**
     * True while the connection is stalled: it wrote, read nothing since, and its liveness probe went unanswered for
     * the stall timeout ({@link TransportOptions#stallTimeout()}). The first byte read clears it. A stalled connection
     * stays open and still sends; the protocol layer decides what to do with new calls. Always false when stall
     * detection is off.
     */
    default boolean isStalled() {
        return false;
    }
}
