package dev.sluice.it.interop;

import static dev.sluice.it.interop.InteropChecks.asyncConcurrent;
import static dev.sluice.it.interop.InteropChecks.check;
import static dev.sluice.it.interop.InteropChecks.measure;
import static dev.sluice.it.interop.InteropChecks.require;

import dev.sluice.it.harness.DubboPeers;
import dev.sluice.it.harness.Scenario;
import dev.sluice.it.rpc.model.Item;
import dev.sluice.it.rpc.model.TypesService;
import dev.sluice.it.rpc.model.TypesServiceImpl;
import dev.sluice.rpc.RpcException;
import dev.sluice.rpc.SluiceClient;
import dev.sluice.rpc.SluiceContext;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.dubbo.benchmark.service.UserService;
import org.apache.dubbo.benchmark.service.UserServiceServerImpl;
import org.apache.dubbo.config.ProtocolConfig;
import org.apache.dubbo.config.ServiceConfig;
import org.apache.dubbo.config.bootstrap.DubboBootstrap;
import org.apache.dubbo.rpc.GracefulShutdown;
import org.apache.dubbo.rpc.model.FrameworkModel;

/**
 * Child-JVM scenario of {@link SluiceClientInteropTest}: {@link SluiceClient}s calling a real Dubbo 3.3.6 provider
 * ({@code server=netty4}, {@code serialization=fastjson2}, registry N/A) in this JVM over
 * {@link Scenario#testAddress()}. The provider exports TypesService (unversioned, 1.0, and 2.0 in group {@code a})
 * and the benchmark UserService on one port, and TypesService again on a second port whose Dubbo server closes
 * connections idle for 900 ms ({@code heartbeat=300}), for the heartbeat check.
 *
 * <p>Every check is its own result line; the names are listed in {@link #CHECKS}. Arg: {@code threads
 * callsPerThread} of the UserService load.
 */
public final class SluiceClientScenario {
    static final String START = "start";
    static final String ATTACHMENTS_TO_PROVIDER = "attachments.consumer-to-provider";
    static final String ATTACHMENTS_FROM_PROVIDER = "attachments.provider-to-consumer";
    static final String ATTACHMENTS_FIXED = "attachments.reference-fixed";
    static final String ATTACHMENTS_PER_CALL = "attachments.per-call";
    static final String ATTACHMENTS_VALUES = "attachments.value-kinds";
    static final String PAYLOAD_LARGE = "payload.large-string";
    static final String PAYLOAD_MANY = "payload.many-pojos";
    static final String ASYNC_CONCURRENT = "async.concurrent";
    static final String ONE_WAY = "one-way";
    static final String VERSION_GROUP = "version-group.routing";
    static final String VERSION_UNKNOWN = "version-group.unknown";
    static final String HEARTBEAT = "heartbeat.connection-stays-up";
    static final String READONLY = "readonly.client-stops-calling";
    static final String WRITEABLE = "writeable.client-resumes";
    static final String STOP = "stop";

    /** Every result this scenario reports, in order. */
    static final List<String> CHECKS = checks();

    private static final String APPLICATION = "sluice-interop-provider";
    /** The Dubbo server of the heartbeat port closes connections with no traffic for 3 x this. */
    private static final int PROVIDER_HEARTBEAT_MS = 300;
    private static final Duration CLIENT_HEARTBEAT = Duration.ofMillis(100);
    private static final Duration CLIENT_IDLE_TIMEOUT = Duration.ofSeconds(1);
    /** Twice the provider's 900 ms idle close and the client's 1 s read-idle limit; 20 heartbeat intervals. */
    private static final long IDLE_WAIT_MS = 2_000;

    private SluiceClientScenario() {
    }

    private static List<String> checks() {
        List<String> names = new ArrayList<>(List.of(START));
        names.addAll(InteropChecks.typesNames());
        names.addAll(List.of(ATTACHMENTS_TO_PROVIDER, ATTACHMENTS_FROM_PROVIDER, ATTACHMENTS_FIXED,
                ATTACHMENTS_PER_CALL, ATTACHMENTS_VALUES, PAYLOAD_LARGE, PAYLOAD_MANY, ASYNC_CONCURRENT, ONE_WAY,
                VERSION_GROUP, VERSION_UNKNOWN));
        names.addAll(UserServiceChecks.NAMES);
        names.addAll(List.of(HEARTBEAT, READONLY, WRITEABLE, STOP));
        return Collections.unmodifiableList(names);
    }

    public static void main(String[] args) {
        Scenario.run(() -> {
            int threads = Integer.parseInt(args[0]);
            int callsPerThread = Integer.parseInt(args[1]);
            DubboPeers.quietDefaults();
            String host = Scenario.testAddress();

            long t0 = System.nanoTime();
            int port = DubboPeers.freePort();
            int heartbeatPort = otherFreePort(port);
            ProtocolConfig main = DubboPeers.dubboProtocol(port);
            main.setId("dubbo-main");
            ProtocolConfig idleClosing = DubboPeers.dubboProtocol(heartbeatPort);
            idleClosing.setId("dubbo-heartbeat");
            idleClosing.setHeartbeat(PROVIDER_HEARTBEAT_MS);

            TypesServiceImpl types = new TypesServiceImpl(ServiceContexts.DUBBO,
                    CompletableFuture.delayedExecutor(0, TimeUnit.MILLISECONDS));
            ServiceConfig<TypesService> typesService = DubboPeers.service(TypesService.class, types);
            typesService.setProtocols(List.of(main));
            ServiceConfig<TypesService> v1 = versioned(prefixed("v1:"), "1.0", null, main);
            ServiceConfig<TypesService> v2a = versioned(prefixed("v2a:"), "2.0", "a", main);
            ServiceConfig<TypesService> heartbeatService = versioned(prefixed("hb:"), "hb", null, idleClosing);
            ServiceConfig<UserService> users = DubboPeers.service(UserService.class, new UserServiceServerImpl());
            users.setFilter("-default"); // as dubbo-benchmark's provider.xml
            users.setProtocols(List.of(main));
            DubboBootstrap bootstrap = DubboBootstrap.getInstance()
                    .application(DubboPeers.application(APPLICATION))
                    .registry(DubboPeers.noRegistry())
                    .protocols(List.of(main, idleClosing))
                    .service(typesService).service(v1).service(v2a).service(heartbeatService).service(users)
                    .start();
            SluiceClient client = SluiceClient.builder().address(host, port).timeout(Duration.ofSeconds(10))
                    .failIfNotConnected(true).build();
            TypesService s = client.reference(TypesService.class).oneWay("fire").proxy();
            Scenario.ok(START, "ms", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0), "port", port,
                    "heartbeatPort", heartbeatPort, "network", Scenario.network(), "host", host);

            InteropChecks.types(s);
            attachments(client, s);
            check(PAYLOAD_LARGE, () -> {
                String big = InteropChecks.largeText();
                require(big.equals(s.echo(big)), "large string changed on the way");
            });
            check(PAYLOAD_MANY, () -> {
                List<Item> items = s.items(5_000);
                require(items.size() == 5_000 && "item4999".equals(items.get(4_999).getName()),
                        "got " + items.size() + " items");
            });
            check(ASYNC_CONCURRENT, () -> asyncConcurrent(s));
            check(ONE_WAY, () -> {
                s.fire("go");
                require(types.fired.await(5, TimeUnit.SECONDS), "the one-way call never ran on the provider");
                require(client.pendingCalls() == 0, "a one-way call waits for a response");
            });
            check(VERSION_GROUP, () -> {
                require("x".equals(s.echo("x")), "unversioned");
                require("v1:x".equals(client.reference(TypesService.class).version("1.0").proxy().echo("x")),
                        "version 1.0 not routed to its implementation");
                require("v2a:x".equals(client.reference(TypesService.class).version("2.0").group("a").proxy()
                        .echo("x")), "version 2.0 group a not routed");
            });
            check(VERSION_UNKNOWN, () -> {
                try {
                    String answer = client.reference(TypesService.class).version("3.0").proxy().echo("x");
                    throw new AssertionError("an unknown version answered " + answer);
                } catch (RpcException e) {
                    require(e.status() != 0 && e.status() != 20, "status " + e.status() + ": " + e.getMessage());
                    require(String.valueOf(e.getMessage()).contains("3.0"), "message does not name the version: "
                            + e.getMessage());
                    require("still".equals(s.echo("still")), "the connection broke after the refused call");
                }
            });

            UserServiceChecks.run(client.proxy(UserService.class), threads, callsPerThread);

            measure(HEARTBEAT, () -> heartbeat(host, heartbeatPort));
            readonlyAndWriteable(s);

            long t1 = System.nanoTime();
            client.close();
            bootstrap.stop();
            Scenario.ok(STOP, "ms", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t1));
        });
    }

    private static int otherFreePort(int taken) {
        int port = DubboPeers.freePort();
        while (port == taken) {
            port = DubboPeers.freePort();
        }
        return port;
    }

    private static TypesServiceImpl prefixed(String prefix) {
        return new TypesServiceImpl(ServiceContexts.DUBBO, Runnable::run) {
            @Override
            public String echo(String text) {
                return prefix + text;
            }
        };
    }

    private static ServiceConfig<TypesService> versioned(TypesService impl, String version, String group,
                                                         ProtocolConfig protocol) {
        ServiceConfig<TypesService> service = DubboPeers.service(TypesService.class, impl);
        service.setVersion(version);
        if (group != null) {
            service.setGroup(group);
        }
        service.setProtocols(List.of(protocol));
        return service;
    }

    /** SluiceContext attachments reach Dubbo's RpcContext; the provider's response attachments come back. */
    private static void attachments(SluiceClient client, TypesService s) {
        check(ATTACHMENTS_TO_PROVIDER, () -> {
            SluiceContext.current().setAttachment("trace-id", "abc-123");
            String seen = s.attachment("trace-id");
            require("abc-123".equals(seen), "the provider saw trace-id=" + seen);
        });
        check(ATTACHMENTS_FROM_PROVIDER, () -> {
            SluiceContext.current().setAttachment("trace-id", "def-456");
            s.attachment("trace-id");
            Map<String, Object> back = SluiceContext.current().responseAttachments();
            require("yes:def-456".equals(back.get("served")), "response attachments " + back);
            require("2.0.2".equals(back.get("dubbo")), "no dubbo=2.0.2 from the provider: " + back);
        });
        check(ATTACHMENTS_FIXED, () -> {
            TypesService fixed = client.reference(TypesService.class).attachment("fixed", "f").proxy();
            require("f".equals(fixed.attachment("fixed")), "fixed attachment not sent");
            require("f".equals(fixed.attachment("fixed")), "fixed attachment not sent again");
        });
        check(ATTACHMENTS_PER_CALL, () -> {
            SluiceContext.current().setAttachment("once", "1");
            require("1".equals(s.attachment("once")), "first call did not carry the attachment");
            String again = s.attachment("once");
            require(again == null, "an attachment of the previous call leaked into the next: " + again);
        });
        check(ATTACHMENTS_VALUES, () -> {
            for (String value : InteropChecks.ATTACHMENT_VALUES) {
                SluiceContext.current().setAttachment("v", value);
                String seen = s.attachment("v");
                require(value.equals(seen), "sent " + InteropChecks.abbreviate(value) + ", the provider saw "
                        + InteropChecks.abbreviate(seen));
                Object served = SluiceContext.current().responseAttachments().get("served");
                require(("yes:" + value).equals(served), "response attachment " + served);
            }
            SluiceContext.current().setAttachment("n", 42);
            String seen = s.attachment("n");
            require("42".equals(seen), "an Integer attachment arrived as " + seen);
        });
    }

    /**
     * A SluiceClient with {@code heartbeat(100 ms, 1 s)} stays on the same socket through {@value #IDLE_WAIT_MS} ms of
     * idleness, although the Dubbo server of this port closes connections without traffic for 900 ms and the client
     * itself reconnects after 1 s without reads (so Dubbo must answer its heartbeats). A control client without
     * heartbeats must lose its socket in the same time, proving the provider's idle limit was armed.
     */
    private static Object[] heartbeat(String host, int port) throws Exception {
        try (SluiceClient hbClient = SluiceClient.builder().address(host, port).timeout(Duration.ofSeconds(10))
                .heartbeat(CLIENT_HEARTBEAT, CLIENT_IDLE_TIMEOUT).failIfNotConnected(true).build()) {
            TypesService hb = hbClient.reference(TypesService.class).version("hb").proxy();
            require("hb:a".equals(hb.echo("a")), "first call");
            Set<Integer> hbPorts = TcpConnections.clientPorts(port);
            require(hbPorts.size() == 1, "expected one connection to the heartbeat port, found ports " + hbPorts);
            Set<Integer> controlPorts;
            try (SluiceClient control = SluiceClient.builder().address(host, port).timeout(Duration.ofSeconds(10))
                    .failIfNotConnected(true).build()) {
                require("hb:c".equals(control.reference(TypesService.class).version("hb").proxy().echo("c")),
                        "control call");
                controlPorts = TcpConnections.clientPorts(port);
                controlPorts.removeAll(hbPorts);
                require(controlPorts.size() == 1, "expected one control connection, found ports " + controlPorts);

                require(!new CountDownLatch(1).await(IDLE_WAIT_MS, TimeUnit.MILLISECONDS), "nothing counts this down");

                Set<Integer> after = TcpConnections.clientPorts(port);
                require(after.containsAll(hbPorts), "the heartbeat connection (port " + hbPorts + ") was dropped; now "
                        + after);
                require(Collections.disjoint(after, controlPorts), "the control connection without heartbeats (port "
                        + controlPorts + ") is still up after " + IDLE_WAIT_MS + " ms: the provider's idle limit is "
                        + "not armed, so this check proves nothing");
            }
            require(hbClient.isConnected(), "heartbeat client disconnected");
            require("hb:b".equals(hb.echo("b")), "call after the idle period");
            return new Object[] {"heartbeatMs", CLIENT_HEARTBEAT.toMillis(), "idleMs", IDLE_WAIT_MS,
                    "clientPort", hbPorts.iterator().next(), "controlPort", controlPorts.iterator().next()};
        }
    }

    /**
     * Dubbo's own graceful-shutdown step sends the readonly event ("R") to every connected client; the SluiceClient
     * must then refuse new calls with a retryable error instead of sending them. The writeable event ("W") that
     * Dubbo sends when it comes back online must make the client call again.
     */
    private static void readonlyAndWriteable(TypesService s) {
        List<GracefulShutdown> shutdowns = GracefulShutdown.getGracefulShutdowns(FrameworkModel.defaultModel());
        check(READONLY, () -> {
            require(!shutdowns.isEmpty(), "no GracefulShutdown of the dubbo protocol");
            shutdowns.forEach(GracefulShutdown::readonly);
            RpcException refused = null;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (refused == null && System.nanoTime() < deadline) {
                try {
                    s.echo("during readonly");
                    Thread.yield();
                } catch (RpcException e) {
                    refused = e;
                }
            }
            require(refused != null, "calls still sent 5 s after Dubbo's readonly event");
            require(refused.isRetryable(), "refusal not retryable: " + refused);
            require(String.valueOf(refused.getMessage()).contains("readonly"), "refusal: " + refused.getMessage());
        });
        check(WRITEABLE, () -> {
            shutdowns.forEach(GracefulShutdown::writeable);
            String answer = null;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (answer == null && System.nanoTime() < deadline) {
                try {
                    answer = s.echo("writeable again");
                } catch (RpcException e) {
                    Thread.yield();
                }
            }
            require("writeable again".equals(answer), "calls still refused 5 s after Dubbo's writeable event");
        });
    }
}
