package dev.sluice.dubbo;

import dev.sluice.transport.Connection;
import dev.sluice.transport.IdleState;
import dev.sluice.transport.TransportOptions;
import dev.sluice.transport.internal.LogLimiter;
import dev.sluice.transport.netty.NettyServerTransport;
import io.netty.handler.ssl.SslContext;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.dubbo.common.URL;
import org.apache.dubbo.common.config.ConfigurationUtils;
import org.apache.dubbo.common.utils.NetUtils;
import org.apache.dubbo.remoting.Channel;
import org.apache.dubbo.remoting.ChannelHandler;
import org.apache.dubbo.remoting.RemotingException;
import org.apache.dubbo.remoting.transport.AbstractServer;
import org.apache.dubbo.remoting.transport.dispatcher.ChannelHandlers;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Dubbo's {@code RemotingServer} on a Sluice {@link NettyServerTransport}.
 *
 * <p>Built on Dubbo's {@link AbstractServer}, which supplies what Dubbo users expect of a server: the bind address
 * (the wildcard when {@code anyhost=true} or the host is a loopback/invalid address), the {@code accepts} limit (which
 * the transport enforces first, as it accepts), refusing connections while closing, and the provider thread pool that
 * {@code close(timeout)} drains gracefully before the connections close. The handler is wrapped exactly as Dubbo's
 * netty4 server wraps it ({@code ChannelHandlers.wrap}: {@code MultiMessageHandler → HeartbeatHandler →
 * dispatcher}), so {@code dispatcher} and {@code threadpool} keep their meaning.
 *
 * <p>Against hostile or broken peers, as a standalone {@code SluiceServer}: a frame timeout
 * ({@code sluice.frame-timeout}) and a per-address connection limit ({@code sluice.max-connections-per-address}),
 * both enforced by the transport (see {@link DubboUrlOptions}; docs/reliability.md E25b).
 *
 * <p>TLS as Dubbo users configure it (the application's {@code SslConfig}, through Dubbo's {@code CertManager}):
 * see {@link DubboTls}.
 *
 * <p>Idle handling is the transport's ({@link #canHandleIdle()} is true): a connection with nothing read or written
 * for {@code close.timeout} (default 3 × heartbeat) is closed. Readonly/writeable events on shutdown come from
 * Dubbo's {@code HeaderExchangeServer} over {@link #getChannels()}.
 *
 * <p>Threads: public methods are thread-safe. The constructor binds (blocking) on the caller's thread. Connection
 * events reach Dubbo's handler chain on the connection's event loop; the dispatcher moves requests to the provider
 * pool. {@link #close()} blocks until the connections have closed (flushing what is queued, bounded by Dubbo's
 * server shutdown timeout); never call it on an event loop.
 */
final class SluiceDubboServer extends AbstractServer {
    private static final Logger log = LoggerFactory.getLogger(SluiceDubboServer.class);
    /** A peer can provoke these lines, one per connection it opens (docs/reliability.md A9b). */
    private static final LogLimiter IDLE_CLOSES = new LogLimiter();

    // Assigned in doOpen(), which AbstractServer's constructor calls before this class's field initialisers would
    // run: so no initialisers here.
    private NettyServerTransport transport;
    private Map<String, SluiceChannel> channels;
    private volatile boolean bound;
    private long idleCloseMillis;
    private long shutdownWaitMillis;
    /** Per-call timers ({@code sluice.metrics}), or null. */
    private CallMeters callMeters;

    SluiceDubboServer(URL url, ChannelHandler handler) throws RemotingException {
        super(url, ChannelHandlers.wrap(handler, url));
    }

    @Override
    protected void doOpen() {
        URL url = getUrl();
        TransportOptions options = DubboUrlOptions.server(url);
        channels = new ConcurrentHashMap<>();
        callMeters = DubboUrlOptions.callMeters(url, false);
        idleCloseMillis = options.allIdle().toMillis();
        // Read now: by the time the server closes, the module model may already be destroyed.
        shutdownWaitMillis = Math.max(1000, ConfigurationUtils.getServerShutdownTimeout(url.getOrDefaultModuleModel()));
        DubboFrameCodec codec = new DubboFrameCodec(getCodec(), options.payloadLimit(), this::channel,
                DubboUrlOptions.bodyLimits(url));
        SslContext tls = DubboTls.server(url);
        transport = NettyServerTransport.builder()
                .bindAddress(getBindAddress())
                .options(options)
                .codec(codec)
                .handler(new Handler())
                .tls(tls)
                .maxConnections(DubboUrlOptions.maxConnections(url), DubboUrlOptions.maxConnectionsPerAddress(url))
                .connectionLimitSettings(DubboUrlOptions.MAX_CONNECTIONS_SETTING,
                        DubboUrlOptions.MAX_CONNECTIONS_PER_ADDRESS_SETTING)
                .frameTimeout(DubboUrlOptions.frameTimeout(url))
                .bind();
        bound = true;
        log.debug("Sluice Dubbo server bound to {} ({}{})", transport.localAddress(), options,
                tls == null ? "" : ", TLS from Dubbo's SSL config");
    }

    private SluiceChannel channel(Connection connection) {
        return SluiceChannel.of(connection, getUrl(), this, null, callMeters);
    }

    @Override
    protected void doClose() {
        bound = false;
        NettyServerTransport t = transport;
        if (t == null) {
            return;
        }
        // AbstractServer.close(timeout) has already drained the provider pool, so the responses of calls in flight
        // are queued: each connection closes after writing them.
        long wait = shutdownWaitMillis;
        if (EventLoopCheck.inAny(t.eventLoops().group())) {
            t.close(Duration.ofMillis(wait)); // never block an event loop; the close completes on its own
            channels.clear();
            return;
        }
        try {
            t.close(Duration.ofMillis(wait)).get(wait + 5000, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            log.warn("Sluice Dubbo server {} did not close within {} ms", getBindAddress(), wait, e);
        }
        channels.clear();
    }

    @Override
    protected int getChannelsSize() {
        return channels.size();
    }

    @Override
    public Collection<Channel> getChannels() {
        Collection<Channel> live = new ArrayList<>(channels.size());
        for (SluiceChannel c : channels.values()) {
            if (c.isConnected()) {
                live.add(c);
            }
        }
        return live;
    }

    @Override
    public Channel getChannel(InetSocketAddress remoteAddress) {
        return channels.get(NetUtils.toAddressString(remoteAddress));
    }

    @Override
    public boolean isBound() {
        return bound;
    }

    /** True: the transport closes connections idle for {@code close.timeout}, so Dubbo starts no close timer. */
    @Override
    public boolean canHandleIdle() {
        return true;
    }

    /** Dubbo's handler chain on this server's connections, which it also tracks for {@link #getChannels()}. */
    private final class Handler extends DubboEndpointHandler {
        Handler() {
            super(SluiceDubboServer.this);
        }

        @Override
        SluiceChannel channel(Connection connection) {
            return SluiceDubboServer.this.channel(connection);
        }

        @Override
        void opened(SluiceChannel ch) {
            channels.put(NetUtils.toAddressString(ch.getRemoteAddress()), ch);
        }

        @Override
        void closed(SluiceChannel ch) {
            channels.remove(NetUtils.toAddressString(ch.getRemoteAddress()), ch);
        }

        @Override
        public void idle(Connection connection, IdleState state) {
            if (state == IdleState.ALL_IDLE) {
                SluiceChannel ch = channel(connection);
                IDLE_CLOSES.info(log, "Closing {}: nothing read or written for {} ms", ch, idleCloseMillis);
                ch.close();
            }
        }
    }
}
