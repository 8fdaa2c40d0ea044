package dev.sluice.it.conformance;

import dev.sluice.it.rpc.model.SluiceAttachments;
import dev.sluice.it.rpc.model.TypesService;
import dev.sluice.it.rpc.model.TypesServiceImpl;
import dev.sluice.rpc.SluiceServer;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.dubbo.benchmark.service.UserService;
import org.apache.dubbo.benchmark.service.UserServiceServerImpl;

/**
 * The standalone {@link SluiceServer} as the answering side, on port 0; its heartbeat server closes connections idle
 * for 1 s ({@code idleTimeout}).
 *
 * <p>Built and closed on the scenario's main thread.
 */
final class SluiceServerSide implements ServerSide {
    private static final Duration HB_SERVER_IDLE = Duration.ofSeconds(1);

    private final TypesServiceImpl types = new TypesServiceImpl(SluiceAttachments.INSTANCE,
            CompletableFuture.delayedExecutor(0, TimeUnit.MILLISECONDS));
    private final SluiceServer server;

    SluiceServerSide() {
        server = SluiceServer.builder().port(0)
                .register(TypesService.class, types)
                .register(TypesService.class, prefixed("v1:"), "1.0", null)
                .register(TypesService.class, prefixed("v2a:"), "2.0", "a")
                .register(UserService.class, new UserServiceServerImpl())
                .start();
    }

    private static TypesServiceImpl prefixed(String prefix) {
        return new TypesServiceImpl(SluiceAttachments.INSTANCE, Runnable::run) {
            @Override
            public String echo(String text) {
                return prefix + text;
            }
        };
    }

    @Override
    public int port() {
        return server.port();
    }

    @Override
    public TypesServiceImpl types() {
        return types;
    }

    @Override
    public Map<String, String> ownResponseAttachments() {
        return Map.of();
    }

    @Override
    public String eventLoopThread() {
        return "sluice-server";
    }

    @Override
    public int inFlight() {
        return server.inFlight();
    }

    @Override
    public CompletableFuture<Void> closeGracefully(Duration wait) {
        return server.close(wait);
    }

    @Override
    public Duration closeLimit() {
        return Duration.ofSeconds(10);
    }

    @Override
    public HeartbeatServer startHeartbeatServer() {
        SluiceServer hb = SluiceServer.builder().port(0).idleTimeout(HB_SERVER_IDLE)
                .register(TypesService.class, prefixed("hb:"), HeartbeatServer.VERSION, null).start();
        return new HeartbeatServer() {
            @Override
            public int port() {
                return hb.port();
            }

            @Override
            public int idle(int clientPort, long millis) throws InterruptedException {
                Checks.require(!new CountDownLatch(1).await(millis, TimeUnit.MILLISECONDS),
                        "nothing counts this down");
                return -1;
            }

            @Override
            public void close() {
                hb.close();
            }
        };
    }

    @Override
    public void close() {
        server.close();
    }
}
