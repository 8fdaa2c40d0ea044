package dev.sluice.transport;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Collection;
import java.util.concurrent.CompletableFuture;

/** A bound, listening server. Thread-safe. */
public interface ServerTransport extends AutoCloseable {
    /** The bound address (port resolved when bound to port 0). */
    InetSocketAddress localAddress();

    default int port() {
        return localAddress().getPort();
    }

    /** The connections open right now. */
    Collection<Connection> connections();

    /** Stops accepting new connections; open connections keep working. Idempotent. */
    CompletableFuture<Void> stopAccepting();

    /**
     * Stops accepting, closes every connection once its queued writes are flushed, waits at most {@code timeout}
     * for them to close, then releases the event loops the transport owns. Idempotent.
     */
    CompletableFuture<Void> close(Duration timeout);

    /** {@link #close(Duration)} with a short default wait, blocking until done. */
    @Override
    void close();
}
