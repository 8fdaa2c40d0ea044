package dev.sluice.it.conformance;

import static dev.sluice.it.conformance.Checks.require;

import dev.sluice.it.rpc.model.TypesService;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.dubbo.benchmark.service.UserService;
import org.apache.dubbo.config.MethodConfig;
import org.apache.dubbo.config.ReferenceConfig;
import org.apache.dubbo.rpc.RpcContext;
import org.apache.dubbo.rpc.RpcException;

/**
 * A real Dubbo 3.3.6 consumer as the calling side, over the Transporter named by the pairing ({@code netty4},
 * {@code sluice}, or {@code sluice} chosen by system property): attachments through {@link RpcContext}, a refused call
 * is Dubbo's {@link RpcException}. References: TypesService unversioned ({@code fire} one-way), 1.0, 2.0 in group
 * {@code a} and 3.0 (which no server has); the benchmark UserService with {@code filter=-default}, as
 * dubbo-benchmark's consumer.xml. Its peers' heartbeats run every 300 ms ({@code heartbeat=300}; Dubbo then
 * reconnects when it read nothing for 900 ms, its reconnect check made to tick every 300 ms).
 *
 * <p>Built and closed on the scenario's main thread; the proxies may be called from any thread.
 */
final class DubboConsumerSide implements ClientSide {
    private static final int HEARTBEAT_MS = 300;
    private static final int TIMEOUT_MS = 10_000;
    /** The versions and groups {@link #types(String, String)} serves: those of the servers, and 3.0. */
    private static final String[][] VERSIONS = {{"1.0", null}, {"2.0", "a"}, {"3.0", null}};

    private final String transporter;
    final ReferenceConfig<TypesService> typesRef;
    private final Map<String, ReferenceConfig<TypesService>> versioned = new HashMap<>();
    private final ReferenceConfig<UserService> usersRef;
    private final DubboNodes.Consumer node;

    DubboConsumerSide(String transporter, String host, int port) {
        this.transporter = transporter;
        typesRef = DubboNodes.reference(TypesService.class, null, null);
        MethodConfig fire = new MethodConfig();
        fire.setName("fire");
        fire.setReturn(false); // Dubbo's one-way call
        typesRef.setMethods(List.of(fire));
        List<ReferenceConfig<?>> refs = new ArrayList<>(List.of(typesRef));
        for (String[] v : VERSIONS) {
            ReferenceConfig<TypesService> ref = DubboNodes.reference(TypesService.class, v[0], v[1]);
            versioned.put(v[0] + "/" + v[1], ref);
            refs.add(ref);
        }
        usersRef = DubboNodes.reference(UserService.class, null, null);
        usersRef.setFilter("-default"); // as dubbo-benchmark's consumer.xml
        refs.add(usersRef);
        // On the sluice client, the provider-restart check exercises Sluice's opt-in fast redial; Dubbo's contract
        // (redial only from its 60 s reconnect timer) is the default, tested by ReconnectContractTest.
        Map<String, String> params = transporter.startsWith("sluice") ? Map.of("sluice.reconnect", "fast") : Map.of();
        node = DubboNodes.Consumer.start(APPLICATION, transporter, host, port, TIMEOUT_MS, params, false, refs);
    }

    @Override
    public TypesService types() {
        return typesRef.get();
    }

    @Override
    public TypesService types(String version, String group) {
        ReferenceConfig<TypesService> ref = versioned.get(version + "/" + group);
        if (ref == null) {
            throw new IllegalArgumentException("no reference of version " + version + " group " + group);
        }
        return ref.get();
    }

    @Override
    public UserService users() {
        return usersRef.get();
    }

    /** Whether Dubbo's cluster would route a TypesService call to the server now (false once it sent "readonly"). */
    @SuppressWarnings("deprecation") // ReferenceConfig.getInvoker(): the only public way to ask isAvailable()
    boolean available() {
        return typesRef.getInvoker() != null && typesRef.getInvoker().isAvailable();
    }

    @Override
    public void attach(String key, Object value) {
        RpcContext.getClientAttachment().setObjectAttachment(key, value);
    }

    @Override
    public Object responseAttachment(String key) {
        return RpcContext.getServerContext().getObjectAttachment(key);
    }

    @Override
    public void requireNothingPending() {
        // Dubbo keeps its pending futures private; the one-way check's other half (the call ran) still applies.
    }

    @Override
    public void requireTypedRefusal(RuntimeException refusal) {
        require(refusal instanceof RpcException, "not Dubbo's RpcException: " + refusal);
    }

    @Override
    public String eventLoopThread() {
        return transporter.startsWith("sluice") ? "sluice-dubbo-client" : "NettyClientWorker";
    }

    @Override
    @SuppressWarnings("deprecation") // ReferenceConfig.getInvoker(), as in available()
    public Peer peer(int port, String version, boolean heartbeats) {
        Map<String, String> params = new HashMap<>();
        if (heartbeats) {
            params.put("heartbeat", Integer.toString(HEARTBEAT_MS));
            params.put("dubbo.application.least-reconnect-duration", "100");
        }
        ReferenceConfig<TypesService> ref = DubboNodes.reference(TypesService.class, version, null);
        ref.setId(heartbeats ? "heartbeat" : "no-heartbeat");
        TypesService service = node.refer(ref, port, params);
        return new Peer(service, () -> require(ref.getInvoker().isAvailable(),
                "heartbeat consumer's invoker unavailable"), ref::destroy);
    }

    @Override
    public long heartbeatMillis() {
        return HEARTBEAT_MS;
    }

    @Override
    public void close() {
        node.stop();
    }
}
