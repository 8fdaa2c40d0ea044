package dev.sluice.dubbo;

import dev.sluice.transport.Connection;
import dev.sluice.transport.IdleState;
import dev.sluice.transport.TransportOptions;
import dev.sluice.transport.netty.NettyClientTransport;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.dubbo.common.URL;
import org.apache.dubbo.common.Version;
import org.apache.dubbo.common.constants.CommonConstants;
import org.apache.dubbo.remoting.Channel;
import org.apache.dubbo.remoting.ChannelHandler;
import org.apache.dubbo.remoting.RemotingException;
import org.apache.dubbo.remoting.exchange.Request;
import org.apache.dubbo.remoting.transport.AbstractClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Dubbo's {@code Client} on a Sluice {@link NettyClientTransport}: one connection to one provider address.
 *
 * <p>Built on Dubbo's {@link AbstractClient}, which supplies the connect-on-construction semantics ({@code check},
 * {@code lazy}), the consumer executor, reconnect-on-send ({@code send.reconnect}) and the close sequence. The
 * handler is wrapped as Dubbo's netty4 client wraps it ({@code ChannelHandlers.wrap}).
 *
 * <p><b>TLS.</b> As Dubbo users configure it (the application's {@code SslConfig}, through Dubbo's
 * {@code CertManager}): see {@link DubboTls}. A failed handshake (an untrusted certificate, one that does not name
 * the provider's address, a provider that does not speak TLS) fails the connect with its reason, within
 * {@code connect.timeout}, instead of leaving calls to time out.
 *
 * <p><b>Idle.</b> {@link #canHandleIdle()} is true: after {@code heartbeat} ms without reading anything the
 * transport's reader-idle timer fires and a heartbeat request goes out through the channel, as Dubbo's netty4
 * client does; so Dubbo starts no heartbeat timer.
 *
 * <p><b>Stall.</b> With {@code sluice.stall-timeout} set, the transport probes a connection that wrote and read
 * nothing for that long with a heartbeat; unanswered for that long again, the connection is stalled and its
 * {@link SluiceChannel} reports Dubbo's readonly attribute, which {@code DubboInvoker.isAvailable()} reads, so the
 * cluster routes new calls to other providers. {@code isConnected()} stays true, so Dubbo's reconnect timer does not
 * react until its own idle rule does. The first byte read clears it.
 *
 * <p><b>Reconnect.</b> Dubbo's contract by default, Sluice's faster redial on request:
 * <ul>
 *   <li>Dubbo's {@code ReconnectTimerTask} (unless {@code reconnect=false}) calls {@link #reconnect()} when the
 *       channel is down or silent for the idle timeout. It ticks every max({@code least-reconnect-duration}, idle
 *       timeout / 3), 60 s by default, and until the channel is back the cluster keeps the provider in its invalid
 *       list. This is the only redial by default, as with Dubbo's netty4 client: during a provider outage no consumer
 *       redials more often than its timer says.</li>
 *   <li>With {@code sluice.reconnect=fast}, Sluice's transport also redials by itself with jittered backoff (each
 *       wait between 50 ms and a ceiling doubling from 100 ms to 5 s) as soon as the connection is lost or a first
 *       connect fails, so a restarted provider is usable again within about a second.</li>
 * </ul>
 * There is no double reconnection: {@code NettyClientTransport.connect()} joins an attempt already under way and
 * cancels a scheduled one, and {@link #doConnect()} reuses a live transport connection instead of dialling again.
 * Each new connection gets its own Dubbo channel and {@code connected} event, as with Dubbo's netty4 client.
 *
 * <p>Threads: public methods are thread-safe. The constructor connects (blocking up to {@code connect.timeout}) on
 * the caller's thread. Transport events reach Dubbo's handler chain on the connection's event loop. Never call
 * {@link #close()} or {@link #reconnect()} on an event loop.
 */
final class SluiceDubboClient extends AbstractClient {
    private static final Logger log = LoggerFactory.getLogger(SluiceDubboClient.class);

    // Assigned in doOpen()/doConnect(), which AbstractClient's constructor calls before this class's field
    // initialisers would run: so no initialisers here.
    private NettyClientTransport transport;
    private SharedClientLoops.Lease loops;
    /** The channel of the newest connection (kept after it closes, as Dubbo's netty4 client keeps its channel). */
    private volatile SluiceChannel latest;
    /** Per-call timers ({@code sluice.metrics}), or null. */
    private CallMeters callMeters;

    SluiceDubboClient(URL url, ChannelHandler handler) throws RemotingException {
        super(url, wrapChannelHandler(url, ResponseClock.wrap(url, handler)));
    }

    @Override
    protected void doOpen() {
        URL url = getUrl();
        TransportOptions options = DubboUrlOptions.client(url);
        callMeters = DubboUrlOptions.callMeters(url, true);
        DubboFrameCodec codec = new DubboFrameCodec(getCodec(), options.payloadLimit(), this::channel,
                DubboUrlOptions.bodyLimits(url));
        loops = SharedClientLoops.acquire(options.nativeTransport(), options.ioThreads());
        transport = NettyClientTransport.builder()
                .remote(getConnectAddress())
                .options(options)
                .codec(codec)
                .handler(new Handler())
                .eventLoops(loops.eventLoops())
                .tls(DubboTls.client(url))
                .build();
        log.debug("Sluice Dubbo client to {} ({})", getConnectAddress(), options);
    }

    private SluiceChannel channel(Connection connection) {
        return SluiceChannel.of(connection, getUrl(), this, this, callMeters);
    }

    /** Called under AbstractClient's connect lock, only when {@link #isConnected()} is false. Blocks. */
    @Override
    protected void doConnect() throws RemotingException {
        if (EventLoopCheck.inAny(loops.eventLoops().group())) {
            // Waiting here would stall the loop that has to complete the connect.
            throw new RemotingException(this, "Not connecting to " + getConnectAddress()
                    + " from one of the client's event loops; the reconnect timer will try again");
        }
        NettyClientTransport t = transport;
        CompletableFuture<Connection> attempt;
        Connection live = liveConnection(t);
        if (live != null) {
            SluiceChannel current = channel(live);
            if (!current.isClosed()) {
                latest = current; // the transport reconnected by itself; its connected event may still be coming
                return;
            }
            attempt = t.reconnect(); // Dubbo closed this channel (disconnect or idle timeout): dial a fresh one
        } else {
            attempt = t.connect(); // joins the transport's own attempt when one is under way
        }
        int timeout = getConnectTimeout();
        try {
            latest = channel(attempt.get(timeout, TimeUnit.MILLISECONDS));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RemotingException(this, "Interrupted while connecting to " + getConnectAddress());
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            throw new RemotingException(this, "client(url: " + getUrl() + ") failed to connect to server "
                    + getConnectAddress() + ", error message is:" + cause.getMessage(), cause);
        } catch (TimeoutException e) {
            throw new RemotingException(this, "client(url: " + getUrl() + ") failed to connect to server "
                    + getConnectAddress() + " client-side timeout " + timeout + "ms using dubbo version "
                    + Version.getVersion());
        }
    }

    private static Connection liveConnection(NettyClientTransport t) {
        try {
            return t.isConnected() ? t.connection() : null;
        } catch (RuntimeException e) { // lost between the two calls
            return null;
        }
    }

    @Override
    protected void doDisConnect() {
        // AbstractClient.disconnect() has closed the channel; the transport notices the connection closing.
    }

    @Override
    protected void doClose() {
        NettyClientTransport t = transport;
        SharedClientLoops.Lease lease = loops;
        if (t != null && lease != null && EventLoopCheck.inAny(lease.eventLoops().group())) {
            // Never block an event loop: finish the close, and give the loops back, when it completes.
            t.closeAsync().whenComplete((v, e) -> lease.release());
            return;
        }
        try {
            if (t != null) {
                t.closeAsync().get(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            log.warn("Sluice Dubbo client to {} did not close cleanly", getConnectAddress(), e);
        } finally {
            if (loops != null) {
                loops.release();
            }
        }
    }

    @Override
    protected Channel getChannel() {
        return latest;
    }

    SluiceChannel latestChannel() {
        return latest;
    }

    /** True: the transport sends heartbeats on reader idle, so Dubbo starts no heartbeat timer. */
    @Override
    public boolean canHandleIdle() {
        return true;
    }

    /** Dubbo's handler chain on this client's connections; sends a heartbeat when nothing was read for a while. */
    private final class Handler extends DubboEndpointHandler {
        Handler() {
            super(SluiceDubboClient.this);
        }

        @Override
        SluiceChannel channel(Connection connection) {
            return SluiceDubboClient.this.channel(connection);
        }

        @Override
        void opened(SluiceChannel ch) {
            latest = ch;
        }

        @Override
        public void idle(Connection connection, IdleState state) {
            if (state == IdleState.READER_IDLE) {
                sendHeartbeat(connection);
            }
        }

        /** The stall probe is Dubbo's heartbeat: providers answer it on their I/O thread, busy pool or not. */
        @Override
        public boolean probe(Connection connection) {
            sendHeartbeat(connection);
            return true;
        }

        @Override
        public void stallChanged(Connection connection, boolean stalled) {
            // SluiceChannel reports the readonly attribute while the connection is stalled; nothing to store here.
            log.debug("{} {}", channel(connection), stalled ? "stalled: unavailable to the cluster"
                    : "available again");
        }

        private void sendHeartbeat(Connection connection) {
            SluiceChannel ch = channel(connection);
            Request heartbeat = new Request();
            heartbeat.setVersion(Version.getProtocolVersion());
            heartbeat.setTwoWay(true);
            heartbeat.setEvent(CommonConstants.HEARTBEAT_EVENT);
            try {
                ch.send(heartbeat, false);
                log.debug("Sent heartbeat to {}", ch);
            } catch (RemotingException e) {
                log.debug("Could not send heartbeat to {}: {}", ch, e.getMessage());
            }
        }
    }
}
