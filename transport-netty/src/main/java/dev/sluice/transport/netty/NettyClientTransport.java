package dev.sluice.transport.netty;

import dev.sluice.transport.ClientTransport;
import dev.sluice.transport.ConnectFailedException;
import dev.sluice.transport.Connection;
import dev.sluice.transport.ConnectionClosedException;
import dev.sluice.transport.TransportClosedException;
import dev.sluice.transport.TransportHandler;
import dev.sluice.transport.TransportOptions;
import dev.sluice.transport.codec.Codec;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.concurrent.ScheduledFuture;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A client holding one connection to one server. When the connection is lost (or the first connect fails) it
 * reconnects with exponential backoff, jittered ({@link #jitteredDelay}), until {@link #close()}, which cancels any
 * pending attempt. Every message
 * queued on a lost connection fails at once with {@link ConnectionClosedException}.
 *
 * <p>Threads: public methods are thread-safe; connection bookkeeping runs under this object's monitor, and
 * reconnect attempts are scheduled on the event loop (nothing blocks the loop).
 */
public final class NettyClientTransport implements ClientTransport {
    private static final Logger log = LoggerFactory.getLogger(NettyClientTransport.class);

    private final InetSocketAddress remote;
    private final TransportOptions options;
    private final EventLoops loops;
    private final Bootstrap bootstrap;

    private volatile NettyConnection current;
    private CompletableFuture<Connection> pending; // guarded by this
    private ScheduledFuture<?> reconnectTask; // guarded by this
    private long backoffMillis; // guarded by this
    private volatile boolean closed;
    /** Why the last connect attempt failed (cleared on success), for the "not connected" error. */
    private volatile ConnectFailedException lastFailure;
    /** True once a connection was established: later ones are reconnects (for the observer). Guarded by this. */
    private boolean everConnected;
    private final CompletableFuture<Void> closeFuture = new CompletableFuture<>();

    private NettyClientTransport(Builder b) {
        this.remote = b.remote;
        this.options = b.options();
        this.loops = b.eventLoops() != null ? b.eventLoops()
                : EventLoops.create(options.nativeTransport(), options.ioThreads(), "sluice-client");
        this.backoffMillis = options.reconnectInitialBackoff().toMillis();
        Codec codec = b.codec();
        TransportHandler handler = b.handler();
        SslContext ssl = b.tls();
        this.bootstrap = new Bootstrap()
                .group(loops.group())
                .channel(loops.socketChannelClass())
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.SO_KEEPALIVE, true)
                .option(ChannelOption.ALLOCATOR, EventLoops.allocator(options.allocator()))
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS,
                        (int) Math.min(Integer.MAX_VALUE, options.connectTimeout().toMillis()))
                .option(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(
                        options.writeBufferLowWaterMark(), options.writeBufferHighWaterMark()))
                .handler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ChannelSetup.socketBuffers(ch, options);
                        ChannelSetup.init(ch, options, codec, handler, ssl, remote.getHostString(), remote.getPort(),
                                () -> connectionLost(ch));
                    }
                });
        loops.started(options);
    }

    public static Builder builder() {
        return new Builder();
    }

    @Override
    public InetSocketAddress remoteAddress() {
        return remote;
    }

    @Override
    public Connection connection() {
        NettyConnection c = current;
        if (c != null && c.isActive()) {
            return c;
        }
        if (closed) {
            throw new TransportClosedException("Client to " + remote + " is closed");
        }
        ConnectFailedException last = lastFailure;
        throw new ConnectionClosedException("Not sent: not connected to " + remote
                + (options.reconnect() ? " (reconnecting)" : "")
                + (last == null ? "" : "; the last attempt failed: " + last.getMessage())
                + "; retry later or on another server", false, last);
    }

    @Override
    public boolean isConnected() {
        NettyConnection c = current;
        return c != null && c.isActive();
    }

    /** The event loops this client runs on. */
    public EventLoops eventLoops() {
        return loops;
    }

    @Override
    public synchronized CompletableFuture<Connection> connect() {
        if (closed) {
            return CompletableFuture.failedFuture(new TransportClosedException("Client to " + remote + " is closed"));
        }
        NettyConnection c = current;
        if (c != null && c.isActive()) {
            return CompletableFuture.completedFuture(c);
        }
        if (pending != null) {
            return pending;
        }
        CompletableFuture<Connection> attempt = new CompletableFuture<>();
        pending = attempt;
        if (reconnectTask != null) {
            reconnectTask.cancel(false);
            reconnectTask = null;
        }
        ChannelFuture f = bootstrap.connect(remote);
        f.addListener(done -> onConnectDone(f, attempt));
        return attempt;
    }

    private void onConnectDone(ChannelFuture f, CompletableFuture<Connection> attempt) {
        if (!f.isSuccess()) {
            connectFailed(attempt, new ConnectFailedException("Could not connect to " + remote + " within "
                    + options.connectTimeout().toMillis() + " ms: " + f.cause(), f.cause()));
            return;
        }
        SslHandler tls = f.channel().pipeline().get(SslHandler.class);
        if (tls == null) {
            connected(f.channel(), attempt);
            return;
        }
        // TCP is up; the connection is usable once TLS is. A failed handshake fails this attempt with its reason
        // (untrusted certificate, wrong host name, a peer that does not speak TLS) rather than surfacing later as
        // a bare "connection closed" on whichever call was first.
        tls.handshakeFuture().addListener(h -> {
            if (h.isSuccess()) {
                connected(f.channel(), attempt);
            } else {
                f.channel().close();
                connectFailed(attempt, new ConnectFailedException("TLS handshake with " + remote + " failed: "
                        + h.cause(), h.cause()));
            }
        });
    }

    private void connected(Channel ch, CompletableFuture<Connection> attempt) {
        synchronized (this) {
            pending = null;
            NettyConnection c = NettyConnection.of(ch);
            if (closed) {
                c.closeNow();
                attempt.completeExceptionally(new TransportClosedException("Client to " + remote + " is closed"));
                return;
            }
            if (!ch.isActive()) {
                // Closed before this listener ran (a server over its connection limit accepts and closes at once):
                // its close found no current connection and scheduled nothing. A failed attempt: redial.
                ConnectFailedException failure = new ConnectFailedException("Connection to " + remote
                        + " closed as soon as it was established; the server may be refusing connections", null);
                lastFailure = failure;
                attempt.completeExceptionally(failure);
                scheduleReconnect();
                return;
            }
            current = c;
            lastFailure = null;
            backoffMillis = options.reconnectInitialBackoff().toMillis();
            if (everConnected && options.observer() != null) {
                GuardedObserver.of(options.observer()).reconnected();
            }
            everConnected = true;
            attempt.complete(c);
        }
    }

    private void connectFailed(CompletableFuture<Connection> attempt, ConnectFailedException failure) {
        synchronized (this) {
            pending = null;
            lastFailure = failure;
            attempt.completeExceptionally(failure);
            scheduleReconnect();
        }
    }

    /** Runs on the event loop when a connection of this client closes. */
    private void connectionLost(Channel ch) {
        synchronized (this) {
            NettyConnection c = current;
            if (c == null || c.channel() != ch) {
                return;
            }
            current = null;
            scheduleReconnect();
        }
    }

    private void scheduleReconnect() {
        assert Thread.holdsLock(this);
        if (closed || !options.reconnect() || reconnectTask != null || pending != null) {
            return;
        }
        long delay = jitteredDelay(backoffMillis, options.reconnectInitialBackoff().toMillis(),
                ThreadLocalRandom.current().nextDouble());
        backoffMillis = Math.min(options.reconnectMaxBackoff().toMillis(), backoffMillis * 2);
        log.debug("Reconnecting to {} in {} ms", remote, delay);
        try {
            reconnectTask = loops.group().next().schedule(() -> {
                synchronized (NettyClientTransport.this) {
                    reconnectTask = null;
                }
                connect();
            }, delay, TimeUnit.MILLISECONDS);
        } catch (RuntimeException e) {
            log.debug("Could not schedule reconnect to {}", remote, e);
        }
    }

    /**
     * The wait before the next redial: drawn uniformly ({@code random} in [0, 1)) between a floor of half the
     * initial backoff and the current ceiling (the initial backoff, doubled per failed attempt up to the maximum).
     * The spread is "full jitter" with a floor: clients that lost the same server at the same moment do not redial
     * in step (a reconnect storm), and none redials sooner than the floor.
     */
    static long jitteredDelay(long ceilingMillis, long initialMillis, double random) {
        long floor = Math.max(1, initialMillis / 2);
        long ceiling = Math.max(floor, ceilingMillis);
        return floor + (long) ((ceiling - floor) * random);
    }

    @Override
    public CompletableFuture<Connection> reconnect() {
        NettyConnection c;
        synchronized (this) {
            c = current;
            current = null;
        }
        if (c == null) {
            return connect();
        }
        // close() is bounded by the close timeout: a connection whose peer stopped reading is closed forcibly then.
        return c.close().handle((v, t) -> null).thenCompose(v -> connect());
    }

    @Override
    public CompletableFuture<Void> closeAsync() {
        NettyConnection c;
        synchronized (this) {
            if (closed) {
                return closeFuture;
            }
            closed = true;
            if (reconnectTask != null) {
                reconnectTask.cancel(false);
                reconnectTask = null;
            }
            c = current;
            current = null;
        }
        CompletableFuture<Void> connClosed = c == null ? CompletableFuture.completedFuture(null)
                : c.close().completeOnTimeout(null, options.closeTimeout().toMillis() + 1000, TimeUnit.MILLISECONDS);
        connClosed.thenCompose(v -> {
            if (c != null) {
                c.closeNow();
            }
            return loops.release(Duration.ofSeconds(2));
        }).whenComplete((v, t) -> closeFuture.complete(null));
        return closeFuture;
    }

    @Override
    public void close() {
        try {
            closeAsync().get(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            log.warn("Client to {} did not close cleanly", remote, e);
        }
    }

    /** Builder for a client; {@link #build()} creates it, {@link NettyClientTransport#connect()} connects. */
    public static final class Builder extends ChannelBuilder<Builder> {
        private InetSocketAddress remote;

        private Builder() {
            super(true);
        }

        public Builder remote(InetSocketAddress remote) {
            this.remote = Objects.requireNonNull(remote, "remote");
            return this;
        }

        public Builder remote(String host, int port) {
            return remote(new InetSocketAddress(host, port));
        }

        /** Creates the client without connecting; call {@link NettyClientTransport#connect()}. */
        public NettyClientTransport build() {
            Objects.requireNonNull(remote, "remote address is required");
            codec();
            handler();
            return new NettyClientTransport(this);
        }
    }
}
