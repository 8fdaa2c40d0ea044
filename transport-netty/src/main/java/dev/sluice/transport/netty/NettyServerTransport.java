package dev.sluice.transport.netty;

import dev.sluice.transport.Connection;
import dev.sluice.transport.ServerTransport;
import dev.sluice.transport.SluiceException;
import dev.sluice.transport.TransportHandler;
import dev.sluice.transport.TransportOptions;
import dev.sluice.transport.codec.Codec;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.handler.ssl.SslContext;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A listening Sluice server on Netty. Built with {@link #builder()}; binds the wildcard address by default (a
 * Dubbo consumer rewrites a loopback target to the machine's address). Thread-safe.
 */
public final class NettyServerTransport implements ServerTransport {
    private static final Logger log = LoggerFactory.getLogger(NettyServerTransport.class);

    private final EventLoops loops;
    private final Channel serverChannel;
    private final Collection<NettyConnection> connections;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final CompletableFuture<Void> closeFuture = new CompletableFuture<>();

    private NettyServerTransport(EventLoops loops, Channel serverChannel, Collection<NettyConnection> connections) {
        this.loops = loops;
        this.serverChannel = serverChannel;
        this.connections = connections;
    }

    public static Builder builder() {
        return new Builder();
    }

    @Override
    public InetSocketAddress localAddress() {
        return (InetSocketAddress) serverChannel.localAddress();
    }

    @Override
    public Collection<Connection> connections() {
        return Collections.unmodifiableCollection(new ArrayList<>(connections));
    }

    /** The event loops this server runs on. */
    public EventLoops eventLoops() {
        return loops;
    }

    @Override
    public CompletableFuture<Void> stopAccepting() {
        CompletableFuture<Void> done = new CompletableFuture<>();
        serverChannel.close().addListener(f -> done.complete(null));
        return done;
    }

    @Override
    public CompletableFuture<Void> close(Duration timeout) {
        if (!closed.compareAndSet(false, true)) {
            return closeFuture;
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        stopAccepting().thenCompose(v -> {
            List<CompletableFuture<Void>> closing = new ArrayList<>();
            // Each connection closes once its queued writes are written, or forcibly at the deadline.
            Duration flushBound = Duration.ofNanos(Math.max(1, deadline - System.nanoTime()));
            for (NettyConnection c : connections) {
                closing.add(c.close(flushBound));
            }
            CompletableFuture<Void> all = CompletableFuture.allOf(closing.toArray(new CompletableFuture[0]));
            long left = Math.max(1, deadline - System.nanoTime());
            return all.completeOnTimeout(null, left, TimeUnit.NANOSECONDS);
        }).thenCompose(v -> {
            for (NettyConnection c : connections) {
                c.closeNow(); // whatever did not close within the wait
            }
            return loops.release(Duration.ofMillis(Math.max(100, (deadline - System.nanoTime()) / 1_000_000)));
        }).whenComplete((v, t) -> closeFuture.complete(null));
        return closeFuture;
    }

    @Override
    public void close() {
        try {
            close(Duration.ofSeconds(5)).get(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            log.warn("Server {} did not close cleanly", localAddress(), e);
        }
    }

    /** Builder for a server; {@link #bind()} starts it. */
    public static final class Builder {
        private InetSocketAddress address = new InetSocketAddress(0);
        private TransportOptions options = TransportOptions.defaults();
        private Codec codec;
        private TransportHandler handler;
        private EventLoops loops;
        private SslContext ssl;

        private Builder() {
        }

        /** Binds the wildcard address on {@code port} (0 picks a free port). */
        public Builder port(int port) {
            this.address = new InetSocketAddress(port);
            return this;
        }

        public Builder bindAddress(InetSocketAddress address) {
            this.address = Objects.requireNonNull(address, "address");
            return this;
        }

        public Builder options(TransportOptions options) {
            this.options = Objects.requireNonNull(options, "options");
            return this;
        }

        public Builder codec(Codec codec) {
            this.codec = Objects.requireNonNull(codec, "codec");
            return this;
        }

        public Builder handler(TransportHandler handler) {
            this.handler = Objects.requireNonNull(handler, "handler");
            return this;
        }

        /** Runs on a group the caller owns and shuts down; by default the server creates and owns one. */
        public Builder eventLoops(EventLoops loops) {
            this.loops = loops;
            return this;
        }

        /** A server {@link SslContext} to require TLS on every connection. */
        public Builder tls(SslContext serverContext) {
            if (serverContext != null && serverContext.isClient()) {
                throw new IllegalArgumentException("a server needs a server SslContext (SslContextBuilder.forServer)");
            }
            this.ssl = serverContext;
            return this;
        }

        public NettyServerTransport bind() {
            Objects.requireNonNull(codec, "codec is required");
            Objects.requireNonNull(handler, "handler is required");
            TransportOptions opts = options;
            EventLoops el = loops != null ? loops
                    : EventLoops.create(opts.nativeTransport(), opts.ioThreads(), "sluice-server");
            Collection<NettyConnection> connections = ConcurrentHashMap.newKeySet();
            ServerBootstrap b = new ServerBootstrap()
                    .group(el.group())
                    .channel(el.serverChannelClass())
                    .option(ChannelOption.SO_REUSEADDR, true)
                    .option(ChannelOption.SO_BACKLOG, 1024)
                    .childOption(ChannelOption.TCP_NODELAY, true)
                    .childOption(ChannelOption.ALLOCATOR, EventLoops.allocator(opts.allocator()))
                    .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(
                            opts.writeBufferLowWaterMark(), opts.writeBufferHighWaterMark()))
                    .childHandler(new ChannelInitializer<Channel>() {
                        @Override
                        protected void initChannel(Channel ch) {
                            ChannelSetup.socketBuffers(ch, opts);
                            NettyConnection[] self = new NettyConnection[1];
                            self[0] = ChannelSetup.init(ch, opts, codec, handler, ssl, null, 0,
                                    () -> connections.remove(self[0]));
                            connections.add(self[0]);
                        }
                    });
            try {
                Channel server = b.bind(address).syncUninterruptibly().channel();
                log.debug("Sluice server bound to {} on {}", server.localAddress(), el.kind());
                return new NettyServerTransport(el, server, connections);
            } catch (Exception e) { // bind failures arrive as checked exceptions rethrown by Netty
                el.release(Duration.ofSeconds(1));
                throw new SluiceException("Could not bind " + address + ": " + e.getMessage(), e);
            }
        }
    }
}
