package dev.sluice.it.conformance;

import static dev.sluice.it.conformance.Checks.require;

import dev.sluice.it.harness.DubboPeers;
import dev.sluice.it.rpc.model.TypesService;
import dev.sluice.it.rpc.model.TypesServiceImpl;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.apache.dubbo.benchmark.service.UserService;
import org.apache.dubbo.benchmark.service.UserServiceServerImpl;
import org.apache.dubbo.config.ProtocolConfig;
import org.apache.dubbo.config.ServiceConfig;
import org.apache.dubbo.remoting.Channel;
import org.apache.dubbo.remoting.exchange.support.header.HeartbeatHandler;
import org.apache.dubbo.rpc.GracefulShutdown;

/**
 * A real Dubbo 3.3.6 provider as the answering side ({@link DubboNodes.Provider}), with {@code server=} the
 * Transporter named by the pairing. Its heartbeat server is a second port of the same provider with
 * {@code heartbeat=300}: Dubbo closes connections without traffic there for 3 x 300 ms, and counts the heartbeats it
 * reads through Dubbo's own read-timestamp attribute of the connection.
 *
 * <p>Built and closed on the scenario's main thread.
 */
final class DubboProviderSide implements ServerSide {
    private static final int HEARTBEAT_MS = 300;

    private final String transporter;
    private final int port = DubboPeers.freePort();
    private final int heartbeatPort = otherFreePort(port);
    private final AtomicInteger slowCalls = new AtomicInteger();
    private final TypesServiceImpl types = new TypesServiceImpl(ServiceContexts.DUBBO,
            CompletableFuture.delayedExecutor(0, TimeUnit.MILLISECONDS)) {
        @Override
        public String slow(int millis) {
            slowCalls.incrementAndGet();
            try {
                return super.slow(millis);
            } finally {
                slowCalls.decrementAndGet();
            }
        }
    };
    private DubboNodes.Provider provider;

    DubboProviderSide(String transporter) {
        this.transporter = transporter;
        start();
    }

    /** Exports the services on {@link #port()} (and the heartbeat server's) again, after {@link #closeGracefully}. */
    void start() {
        require(provider == null, "the provider is running");
        ProtocolConfig main = DubboNodes.protocol(transporter, port, Map.of());
        ProtocolConfig idleClosing = DubboNodes.protocol(transporter, heartbeatPort,
                Map.of("heartbeat", Integer.toString(HEARTBEAT_MS)));
        ServiceConfig<UserService> users = DubboPeers.service(UserService.class, new UserServiceServerImpl());
        users.setFilter("-default"); // as dubbo-benchmark's provider.xml
        List<ServiceConfig<?>> services = List.of(
                DubboNodes.service(TypesService.class, types, null, null),
                DubboNodes.service(TypesService.class, prefixed("v1:"), "1.0", null),
                DubboNodes.service(TypesService.class, prefixed("v2a:"), "2.0", "a"),
                users,
                DubboNodes.service(TypesService.class, prefixed("hb:"), HeartbeatServer.VERSION, null));
        for (ServiceConfig<?> service : services) {
            service.setProtocols(List.of(HeartbeatServer.VERSION.equals(service.getVersion()) ? idleClosing : main));
        }
        provider = DubboNodes.Provider.start(List.of(main, idleClosing), services);
    }

    private static int otherFreePort(int taken) {
        int free = DubboPeers.freePort();
        while (free == taken) {
            free = DubboPeers.freePort();
        }
        return free;
    }

    boolean running() {
        return provider != null;
    }

    private static TypesServiceImpl prefixed(String prefix) {
        return new TypesServiceImpl(ServiceContexts.DUBBO, Runnable::run) {
            @Override
            public String echo(String text) {
                return prefix + text;
            }
        };
    }

    /** Dubbo's own graceful-shutdown steps of this provider: readonly sends "R", writeable sends "W". */
    List<GracefulShutdown> gracefulShutdowns() {
        return GracefulShutdown.getGracefulShutdowns(provider.model);
    }

    @Override
    public int port() {
        return port;
    }

    @Override
    public TypesServiceImpl types() {
        return types;
    }

    /** Dubbo's provider puts its protocol version on every response. */
    @Override
    public Map<String, String> ownResponseAttachments() {
        return Map.of("dubbo", "2.0.2");
    }

    @Override
    public String eventLoopThread() {
        return transporter.equals("sluice") ? "sluice-server" : "NettyServerWorker";
    }

    @Override
    public int inFlight() {
        return slowCalls.get();
    }

    /** Stops the provider on a thread of its own (see {@link DubboNodes.Provider#stop}); {@code wait} is Dubbo's. */
    @Override
    public CompletableFuture<Void> closeGracefully(Duration wait) {
        DubboNodes.Provider stopping = provider;
        provider = null;
        return CompletableFuture.runAsync(stopping::stop, task -> new Thread(task, "provider-stop").start());
    }

    @Override
    public Duration closeLimit() {
        return Duration.ofSeconds(20);
    }

    /** The provider's second port, exported with the others; closed with them. */
    @Override
    public HeartbeatServer startHeartbeatServer() {
        DubboNodes.Provider hb = provider;
        return new HeartbeatServer() {
            @Override
            public int port() {
                return heartbeatPort;
            }

            /** Samples the read timestamp of the client's connection every 20 ms; each new value is one read. */
            @Override
            public int idle(int clientPort, long millis) {
                Channel channel = channelFrom(hb, clientPort);
                Set<Object> readTimestamps = new HashSet<>();
                long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
                while (System.nanoTime() < end) {
                    Object read = channel.getAttribute(HeartbeatHandler.KEY_READ_TIMESTAMP);
                    if (read != null) {
                        readTimestamps.add(read);
                    }
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
                }
                Channel after = channelFrom(hb, clientPort);
                require(channel.isConnected() && after.isConnected(), "connection from port " + clientPort
                        + " did not survive " + millis + " ms idle: now " + hb.channels());
                // The first timestamp is the last call's; each further one is a heartbeat the provider read.
                return readTimestamps.size() - 1;
            }

            @Override
            public void close() {
                // the port stays with the provider and closes with it
            }
        };
    }

    private static Channel channelFrom(DubboNodes.Provider provider, int clientPort) {
        List<Channel> channels = provider.channels();
        for (Channel channel : channels) {
            if (channel.getRemoteAddress() instanceof InetSocketAddress
                    && ((InetSocketAddress) channel.getRemoteAddress()).getPort() == clientPort) {
                return channel;
            }
        }
        throw new AssertionError("the provider holds no connection from port " + clientPort + ": " + channels);
    }

    @Override
    public void close() {
        if (provider != null) {
            provider.stop();
            provider = null;
        }
    }
}
