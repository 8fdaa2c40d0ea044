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

    /** Bytes accepted by {@link #send} and not yet handed to the socket. */
    long pendingBytes();

    InetSocketAddress remoteAddress();

    InetSocketAddress localAddress();

    /** Per-connection attributes for the protocol layer; thread-safe. */
    Object attribute(String key);

    Object attribute(String key, Object value);

    /**
     * Closes the connection after every message queued before this call has been written. Messages queued after
     * it fail with {@link ConnectionClosedException}. Idempotent.
     */
    CompletableFuture<Void> close();

    /** Completes when the connection has closed, for whatever reason. */
    CompletableFuture<Void> closeFuture();

    /**
     * True when the calling thread is this connection's event loop: the thread its {@link TransportHandler} events run
     * on, which must never block (a blocking call made there refuses to wait).
     */
    boolean inEventLoop();

    /** The connection's event loop as an executor, to run short work in order with its events. Never block in it. */
    java.util.concurrent.Executor executor();
}
