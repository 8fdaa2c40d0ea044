package dev.sluice.it.conformance;

import static dev.sluice.it.conformance.Checks.require;

import dev.sluice.it.rpc.model.TypesService;
import dev.sluice.rpc.RpcException;
import dev.sluice.rpc.Serialization;
import dev.sluice.rpc.SluiceClient;
import dev.sluice.rpc.SluiceContext;
import java.time.Duration;
import org.apache.dubbo.benchmark.service.UserService;

/**
 * The standalone {@link SluiceClient} as the calling side: attachments through {@link SluiceContext}, a refused call
 * is a typed {@link RpcException}. Its peers' heartbeats run every 100 ms, and the client itself reconnects after
 * 1 s without reads (so the server must answer them).
 *
 * <p>Built and closed on the scenario's main thread; the proxies may be called from any thread.
 */
final class SluiceClientSide implements ClientSide {
    private static final Duration HEARTBEAT = Duration.ofMillis(100);
    private static final Duration IDLE_TIMEOUT = Duration.ofSeconds(1);

    final SluiceClient client;
    private final String host;
    private final TypesService types;

    private final Serialization serialization;

    SluiceClientSide(String host, int port, Serialization serialization) {
        this.host = host;
        this.serialization = serialization;
        client = connect(host, port, false);
        types = client.reference(TypesService.class).oneWay("fire").proxy();
    }

    private SluiceClient connect(String host, int port, boolean heartbeats) {
        SluiceClient.Builder builder = SluiceClient.builder().address(host, port).timeout(Duration.ofSeconds(10))
                .serialization(serialization).failIfNotConnected(true);
        if (heartbeats) {
            builder.heartbeat(HEARTBEAT, IDLE_TIMEOUT);
        }
        return builder.build();
    }

    @Override
    public TypesService types() {
        return types;
    }

    @Override
    public TypesService types(String version, String group) {
        return client.reference(TypesService.class).version(version).group(group).proxy();
    }

    @Override
    public UserService users() {
        return client.proxy(UserService.class);
    }

    @Override
    public void attach(String key, Object value) {
        SluiceContext.current().setAttachment(key, value);
    }

    @Override
    public Object responseAttachment(String key) {
        return SluiceContext.current().responseAttachments().get(key);
    }

    @Override
    public void requireNothingPending() {
        require(client.pendingCalls() == 0, "a one-way call waits for a response");
    }

    @Override
    public void requireTypedRefusal(RuntimeException refusal) {
        require(refusal instanceof RpcException, "not an RpcException: " + refusal);
        int status = ((RpcException) refusal).status();
        require(status != 0 && status != 20, "status " + status + ": " + refusal.getMessage());
    }

    @Override
    public String eventLoopThread() {
        return "sluice-client";
    }

    @Override
    public Peer peer(int port, String version, boolean heartbeats) {
        SluiceClient peer = connect(host, port, heartbeats);
        return new Peer(peer.reference(TypesService.class).version(version).proxy(),
                () -> require(peer.isConnected(), "heartbeat client disconnected"), peer::close);
    }

    @Override
    public long heartbeatMillis() {
        return HEARTBEAT.toMillis();
    }

    @Override
    public void close() {
        client.close();
    }
}
