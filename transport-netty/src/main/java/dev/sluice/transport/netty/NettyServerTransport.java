package dev.sluice.transport.netty;

import dev.sluice.transport.Connection;
import dev.sluice.transport.ServerTransport;
import dev.sluice.transport.SluiceException;
import dev.sluice.transport.TransportHandler;
import dev.sluice.transport.TransportOptions;
import dev.sluice.transport.codec.Codec;
import dev.sluice.transport.internal.LogLimiter;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.handler.ssl.SslContext;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
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
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A listening Sluice server on Netty. Built with {@link #builder()}; binds the wildcard address by default (a
 * Dubbo consumer rewrites a loopback target to the machine's address). Thread-safe.
 *
 * <p><b>Limits</b> (all off unless set on the builder): a most number of open connections, in total and per remote
 * IP address (an IPv6 peer per /64, see {@link #addressKey}), enforced as each connection is accepted: one over a
 * limit is closed at once, before any byte is read, and the refusal is counted ({@link #refusedConnections()}) and
 * logged at WARN (at most once a second, with the number refused since). A frame timeout closes a connection whose
 * frame has begun to arrive and is not complete in time ({@link #frameTimeouts()}; see {@link FrameDecoderAdapter}).
 */
public final class NettyServerTransport implements ServerTransport {
    private static final Logger log = LoggerFactory.getLogger(NettyServerTransport.class);

    private final EventLoops loops;
    private final Channel serverChannel;
    private final Collection<NettyConnection> connections;
    private final ConnectionLimits limits;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final CompletableFuture<Void> closeFuture = new CompletableFuture<>();

    private NettyServerTransport(EventLoops loops, Channel serverChannel, Collection<NettyConnection> connections,
                                 ConnectionLimits limits) {
        this.loops = loops;
        this.serverChannel = serverChannel;
        this.connections = connections;
        this.limits = limits;
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

    /** Connections closed on accept because a connection limit was reached, since the server started. */
    public long refusedConnections() {
        return limits.refused.get();
    }

    /** Connections closed because a frame did not arrive whole within the frame timeout, since the server started. */
    public long frameTimeouts() {
        return limits.frameTimeouts.get();
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
    public static final class Builder extends ChannelBuilder<Builder> {
        private InetSocketAddress address = new InetSocketAddress(0);
        private int maxConnections;
        private int maxConnectionsPerAddress;
        private String totalSetting = ConnectionLimits.STANDALONE_SETTING;
        private String perAddressSetting = ConnectionLimits.STANDALONE_SETTING;
        private Duration frameTimeout = Duration.ZERO;

        private Builder() {
            super(false);
        }

        /**
         * Most connections open at once, in total and from one remote IP address (an IPv6 peer: from one /64); a
         * connection over either is closed as it is accepted, with a logged reason. 0 means no limit (the default for
         * both).
         */
        public Builder maxConnections(int total, int perAddress) {
            if (total < 0 || perAddress < 0) {
                throw new IllegalArgumentException("connection limits must be >= 0 (0 = no limit), got total " + total
                        + ", per address " + perAddress);
            }
            this.maxConnections = total;
            this.maxConnectionsPerAddress = perAddress;
            return this;
        }

        /**
         * What the log line about a refused connection tells its reader to raise, for the total and the per-address
         * limit: the setting the user has where this server is configured. Default {@code maxConnections}, the
         * {@code SluiceServer} builder's; the Dubbo Transporter adapter names its URL keys.
         */
        public Builder connectionLimitSettings(String total, String perAddress) {
            this.totalSetting = Objects.requireNonNull(total, "total");
            this.perAddressSetting = Objects.requireNonNull(perAddress, "perAddress");
            return this;
        }

        /**
         * Most time a frame may take to arrive once its first byte is buffered; a connection whose frame is still
         * incomplete then is closed with a logged {@link dev.sluice.transport.FrameTimeoutException}. Zero (the
         * default) disables it.
         */
        public Builder frameTimeout(Duration timeout) {
            Objects.requireNonNull(timeout, "timeout");
            if (timeout.isNegative()) {
                throw new IllegalArgumentException("frameTimeout must be >= 0 (0 disables), got " + timeout);
            }
            this.frameTimeout = timeout;
            return this;
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

        public NettyServerTransport bind() {
            Codec codec = codec();
            TransportHandler handler = handler();
            SslContext ssl = tls();
            TransportOptions opts = options();
            EventLoops el = eventLoops() != null ? eventLoops()
                    : EventLoops.create(opts.nativeTransport(), opts.ioThreads(), "sluice-server",
                            opts.answerSpin());
            Collection<NettyConnection> connections = ConcurrentHashMap.newKeySet();
            ConnectionLimits limits = new ConnectionLimits(maxConnections, maxConnectionsPerAddress, totalSetting,
                    perAddressSetting);
            long frameTimeoutNanos = frameTimeout.toNanos();
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
                            if (!limits.admit(ch)) {
                                return;
                            }
                            ChannelSetup.socketBuffers(ch, opts);
                            NettyConnection[] self = new NettyConnection[1];
                            self[0] = ChannelSetup.init(ch, opts, codec, handler, ssl, null, 0,
                                    () -> connections.remove(self[0]), frameTimeoutNanos,
                                    limits.frameTimeouts::incrementAndGet);
                            connections.add(self[0]);
                        }
                    });
            try {
                Channel server = b.bind(address).syncUninterruptibly().channel();
                log.debug("Sluice server bound to {} on {}", server.localAddress(), el.kind());
                el.started(opts);
                return new NettyServerTransport(el, server, connections, limits);
            } catch (Exception e) { // bind failures arrive as checked exceptions rethrown by Netty
                el.release(Duration.ofSeconds(1));
                throw new SluiceException("Could not bind " + address + ": " + e.getMessage(), e);
            }
        }
    }

    /**
     * The key a remote address is counted under for the per-address limit: an IPv4 address itself (an IPv4-mapped
     * IPv6 address as that IPv4 address), a global IPv6 address by its /64, the host bits zeroed. One IPv6 host is
     * usually given a whole /64, so counting per /128 would let it open the limit once per address it picks from it
     * (docs/reliability.md E25d). Loopback and link-local IPv6 addresses count per address: every host on a link shares
     * the link-local prefix fe80::/64. Any thread.
     */
    static InetAddress addressKey(InetAddress address) {
        if (!(address instanceof Inet6Address)) {
            return address;
        }
        byte[] b = address.getAddress();
        boolean mapped = true;
        for (int i = 0; i < 10; i++) {
            mapped &= b[i] == 0;
        }
        mapped &= b[10] == (byte) 0xff && b[11] == (byte) 0xff;
        try {
            if (mapped) {
                return InetAddress.getByAddress(Arrays.copyOfRange(b, 12, 16));
            }
            if (address.isLoopbackAddress() || address.isLinkLocalAddress()) {
                return address;
            }
            Arrays.fill(b, 8, 16, (byte) 0);
            return InetAddress.getByAddress(b);
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e); // 4 or 16 bytes are always an address
        }
    }

    /** How a per-address key reads in a log line: the address, or the /64 it stands for. */
    private static String describeKey(InetAddress key, InetAddress address) {
        return key.equals(address) ? key.getHostAddress() : key.getHostAddress() + "/64";
    }

    /**
     * Counts open connections, in total and per remote IP address ({@link #addressKey}), and refuses those over a
     * limit. {@link #admit} runs on the accepted channel's event loop (several loops at once); the counts are released
     * by the channel's close.
     */
    static final class ConnectionLimits {
        /** The setting a standalone server's limits are raised with: {@code SluiceServer.Builder.maxConnections}. */
        static final String STANDALONE_SETTING = "maxConnections";
        private final int maxTotal;
        private final int maxPerAddress;
        private final String totalSetting;
        private final String perAddressSetting;
        private final AtomicInteger total = new AtomicInteger();
        private final ConcurrentHashMap<InetAddress, Integer> perAddress = new ConcurrentHashMap<>();
        final AtomicLong refused = new AtomicLong();
        final AtomicLong frameTimeouts = new AtomicLong();
        private final LogLimiter refusals = new LogLimiter();

        /** {@code totalSetting} and {@code perAddressSetting}: what a refusal's log line says to raise. */
        ConnectionLimits(int maxTotal, int maxPerAddress, String totalSetting, String perAddressSetting) {
            this.maxTotal = maxTotal;
            this.maxPerAddress = maxPerAddress;
            this.totalSetting = totalSetting;
            this.perAddressSetting = perAddressSetting;
        }

        /** Counts {@code ch} in, or closes it with a logged reason and returns false. */
        boolean admit(Channel ch) {
            if (maxTotal <= 0 && maxPerAddress <= 0) {
                return true;
            }
            InetAddress remote = ch.remoteAddress() instanceof InetSocketAddress
                    ? ((InetSocketAddress) ch.remoteAddress()).getAddress() : null;
            InetAddress address = remote == null ? null : addressKey(remote);
            for (;;) { // reserve a place without ever counting above the limit, so no refusal is spurious
                int open = total.get();
                if (maxTotal > 0 && open >= maxTotal) {
                    refuse(ch, "the server has " + maxTotal + " connections open, its limit", totalSetting);
                    return false;
                }
                if (total.compareAndSet(open, open + 1)) {
                    break;
                }
            }
            if (maxPerAddress > 0 && address != null) {
                boolean[] admitted = {false};
                perAddress.compute(address, (k, n) -> {
                    int count = n == null ? 0 : n;
                    if (count >= maxPerAddress) {
                        return n;
                    }
                    admitted[0] = true;
                    return count + 1;
                });
                if (!admitted[0]) {
                    total.decrementAndGet();
                    refuse(ch, describeKey(address, remote) + " has " + maxPerAddress
                            + " connections open, the limit per address", perAddressSetting);
                    return false;
                }
            }
            ch.closeFuture().addListener(f -> release(address));
            return true;
        }

        private void release(InetAddress address) {
            total.decrementAndGet();
            if (maxPerAddress > 0 && address != null) {
                perAddress.computeIfPresent(address, (k, n) -> n <= 1 ? null : n - 1);
            }
        }

        private void refuse(Channel ch, String why, String setting) {
            refused.incrementAndGet();
            long since = refusals.admit();
            if (since > 0) {
                log.warn("Refused connection from {}: {} ({} connection(s) refused since the last report, {} in"
                        + " total). Raise {} if this load is expected.", ch.remoteAddress(), why, since,
                        refused.get(), setting);
            } else {
                log.debug("Refused connection from {}: {}", ch.remoteAddress(), why);
            }
            ch.close();
        }
    }
}
