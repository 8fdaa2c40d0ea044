package dev.sluice.transport;

import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;

/**
 * A client that keeps one connection to one server and, unless disabled, reconnects with backoff when it is
 * lost. Thread-safe.
 */
public interface ClientTransport extends AutoCloseable {
    InetSocketAddress remoteAddress();

    /**
     * The current connection.
     *
     * @throws ConnectionClosedException when not connected right now (a reconnect may be under way)
     * @throws TransportClosedException after {@link #close()}
     */
    Connection connection();

    /** True when a connection is open right now. */
    boolean isConnected();

    /** Completes with the connection once connected (at once when already connected). */
    CompletableFuture<Connection> connect();

    /**
     * Drops the current connection and connects again. The old connection closes after its queued writes, or
     * forcibly after {@link TransportOptions#closeTimeout()} when its peer does not read them.
     */
    CompletableFuture<Connection> reconnect();

    /** Closes the connection after its queued writes, cancels reconnecting, releases owned loops. */
    CompletableFuture<Void> closeAsync();

    @Override
    void close();
}
