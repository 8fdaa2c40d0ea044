package dev.sluice.transport.netty;

import dev.sluice.transport.TransportOptions;
import io.netty.handler.ssl.SslContext;
import java.util.Objects;

/**
 * The transport settings every Sluice endpoint builder shares, client or server, Netty transport or standalone RPC
 * endpoint: the {@link TransportOptions} (with the payload limit as a shortcut), the event loops and TLS. Each
 * builder adds what is its own (an address, a codec, timeouts, services) and returns itself from every setter, so
 * calls chain in any order ({@code B} is the concrete builder).
 *
 * <p>Threads: like every builder, not thread-safe; build on one thread.
 *
 * @param <B> the concrete builder, returned by every setter
 */
public abstract class TransportBuilder<B extends TransportBuilder<B>> {
    private final boolean client;
    private TransportOptions options = TransportOptions.defaults();
    private EventLoops loops;
    private SslContext tls;

    /** {@code client} says which kind of {@link SslContext} {@link #tls} accepts. */
    protected TransportBuilder(boolean client) {
        this.client = client;
    }

    @SuppressWarnings("unchecked")
    private B self() {
        return (B) this;
    }

    /** Transport options (default {@link TransportOptions#defaults()}); the payload limit applies both ways. */
    public B options(TransportOptions options) {
        this.options = Objects.requireNonNull(options, "options");
        return self();
    }

    /** Largest frame body accepted and sent (default 8 MiB, as Dubbo's {@code payload}). */
    public B payloadLimit(int bytes) {
        this.options = options.toBuilder().payloadLimit(bytes).build();
        return self();
    }

    /**
     * Runs on event loops the caller owns and shuts down; by default (null) the endpoint creates a group of its own
     * and releases it when it closes.
     */
    public B eventLoops(EventLoops loops) {
        this.loops = loops;
        return self();
    }

    /**
     * Uses TLS with this context; null (the default) for plain TCP. A client needs a client context (the server's
     * certificate must match the host name dialled), a server a server context (TLS is then required on every
     * connection).
     *
     * @throws IllegalArgumentException when the context is of the other side
     */
    public B tls(SslContext context) {
        if (context != null && context.isClient() != client) {
            throw new IllegalArgumentException(client
                    ? "a client needs a client SslContext (SslContextBuilder.forClient)"
                    : "a server needs a server SslContext (SslContextBuilder.forServer)");
        }
        this.tls = context;
        return self();
    }

    /** The options set so far. */
    protected final TransportOptions options() {
        return options;
    }

    /** The caller's event loops, or null for loops the endpoint owns. */
    protected final EventLoops eventLoops() {
        return loops;
    }

    /** The TLS context, or null for plain TCP. */
    protected final SslContext tls() {
        return tls;
    }
}
