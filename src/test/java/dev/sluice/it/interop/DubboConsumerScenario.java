package dev.sluice.it.interop;

import static dev.sluice.it.interop.InteropChecks.asyncConcurrent;
import static dev.sluice.it.interop.InteropChecks.check;
import static dev.sluice.it.interop.InteropChecks.measure;
import static dev.sluice.it.interop.InteropChecks.require;

import dev.sluice.it.harness.DubboPeers;
import dev.sluice.it.harness.Scenario;
import dev.sluice.it.rpc.model.Item;
import dev.sluice.it.rpc.model.TypesService;
import dev.sluice.it.rpc.model.SluiceAttachments;
import dev.sluice.it.rpc.model.TypesServiceImpl;
import dev.sluice.rpc.SluiceServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.dubbo.benchmark.service.UserService;
import org.apache.dubbo.benchmark.service.UserServiceServerImpl;
import org.apache.dubbo.common.utils.NetUtils;
import org.apache.dubbo.config.MethodConfig;
import org.apache.dubbo.config.ReferenceConfig;
import org.apache.dubbo.config.bootstrap.DubboBootstrap;
import org.apache.dubbo.rpc.Invoker;
import org.apache.dubbo.rpc.RpcContext;
import org.apache.dubbo.rpc.RpcException;
import org.apache.dubbo.rpc.service.EchoService;

/**
 * Child-JVM scenario of {@link DubboConsumerInteropTest}: real Dubbo 3.3.6 consumers ({@code client=netty4},
 * {@code serialization=fastjson2}, registry N/A, direct URLs) calling {@link SluiceServer}s in this JVM over
 * {@link Scenario#testAddress()}. Three servers: the main one (TypesService unversioned, 1.0, and 2.0 in group
 * {@code a}; the benchmark UserService), one with a 1 s idle timeout for the heartbeat check, and one that is
 * closed gracefully while calls are in flight.
 *
 * <p>Every check is its own result line; the names are listed in {@link #CHECKS}. Arg: {@code threads
 * callsPerThread} of the UserService load.
 */
public final class DubboConsumerScenario {
    static final String START = "start";
    static final String ATTACHMENTS_TO_PROVIDER = "attachments.consumer-to-provider";
    static final String ATTACHMENTS_FROM_PROVIDER = "attachments.provider-to-consumer";
    static final String ATTACHMENTS_DUBBO_BUILTIN = "attachments.dubbo-builtin";
    static final String ATTACHMENTS_PER_CALL = "attachments.per-call";
    static final String ATTACHMENTS_VALUES = "attachments.value-kinds";
    static final String PAYLOAD_LARGE = "payload.large-string";
    static final String PAYLOAD_MANY = "payload.many-pojos";
    static final String ECHO_SERVICE = "echo-service";
    static final String ASYNC_CONCURRENT = "async.concurrent";
    static final String ONE_WAY = "one-way";
    static final String VERSION_GROUP = "version-group.routing";
    static final String VERSION_UNKNOWN = "version-group.unknown";
    static final String HEARTBEAT = "heartbeat.connection-stays-up";
    static final String READONLY_UNAVAILABLE = "readonly.invoker-unavailable";
    static final String READONLY_NEW_CALL = "readonly.new-call-fails";
    static final String READONLY_IN_FLIGHT = "readonly.in-flight-complete";
    static final String READONLY_CLOSED = "readonly.close-finished";
    static final String STOP = "stop";

    /** Every result this scenario reports, in order. */
    static final List<String> CHECKS = checks();

    private static final String APPLICATION = "sluice-interop-consumer";
    private static final int HEARTBEAT_MS = 300;
    private static final Duration HB_SERVER_IDLE = Duration.ofSeconds(1);
    /** Longer than 6 heartbeat intervals, twice the server's idle timeout and twice Dubbo's read-idle limit. */
    private static final long IDLE_WAIT_MS = 2_000;

    private DubboConsumerScenario() {
    }

    private static List<String> checks() {
        List<String> names = new ArrayList<>(List.of(START));
        names.addAll(InteropChecks.typesNames());
        names.addAll(List.of(ATTACHMENTS_TO_PROVIDER, ATTACHMENTS_FROM_PROVIDER, ATTACHMENTS_DUBBO_BUILTIN,
                ATTACHMENTS_PER_CALL, ATTACHMENTS_VALUES, PAYLOAD_LARGE, PAYLOAD_MANY, ASYNC_CONCURRENT, ONE_WAY,
                VERSION_GROUP, VERSION_UNKNOWN, ECHO_SERVICE));
        names.addAll(UserServiceChecks.NAMES);
        names.addAll(List.of(HEARTBEAT, READONLY_UNAVAILABLE, READONLY_NEW_CALL, READONLY_IN_FLIGHT,
                READONLY_CLOSED, STOP));
        return Collections.unmodifiableList(names);
    }

    public static void main(String[] args) {
        Scenario.run(() -> {
            int threads = Integer.parseInt(args[0]);
            int callsPerThread = Integer.parseInt(args[1]);
            DubboPeers.quietDefaults();
            String host = Scenario.testAddress();

            long t0 = System.nanoTime();
            TypesServiceImpl types = new TypesServiceImpl(SluiceAttachments.INSTANCE,
                    CompletableFuture.delayedExecutor(0, TimeUnit.MILLISECONDS));
            TypesServiceImpl gated = new TypesServiceImpl(SluiceAttachments.INSTANCE, Runnable::run);
            gated.gate = new CountDownLatch(1);
            SluiceServer server = SluiceServer.builder().port(0)
                    .register(TypesService.class, types)
                    .register(TypesService.class, prefixed("v1:"), "1.0", null)
                    .register(TypesService.class, prefixed("v2a:"), "2.0", "a")
                    .register(UserService.class, new UserServiceServerImpl())
                    .start();
            SluiceServer heartbeatServer = SluiceServer.builder().port(0).idleTimeout(HB_SERVER_IDLE)
                    .register(TypesService.class, prefixed("hb:")).start();
            SluiceServer closingServer = SluiceServer.builder().port(0).register(TypesService.class, gated).start();

            ReferenceConfig<TypesService> typesRef = DubboPeers.reference(TypesService.class, host, server.port(),
                    10_000);
            MethodConfig fire = new MethodConfig();
            fire.setName("fire");
            fire.setReturn(false); // Dubbo's one-way call
            typesRef.setMethods(List.of(fire));
            ReferenceConfig<TypesService> v1Ref = versioned(host, server.port(), "1.0", null);
            ReferenceConfig<TypesService> v2aRef = versioned(host, server.port(), "2.0", "a");
            ReferenceConfig<TypesService> v3Ref = versioned(host, server.port(), "3.0", null);
            ReferenceConfig<UserService> usersRef = DubboPeers.reference(UserService.class, host, server.port(),
                    10_000);
            usersRef.setFilter("-default"); // as dubbo-benchmark's consumer.xml
            ReferenceConfig<TypesService> closingRef = DubboPeers.reference(TypesService.class, host,
                    closingServer.port(), 15_000);
            closingRef.setId("closing");
            DubboBootstrap bootstrap = DubboBootstrap.getInstance()
                    .application(DubboPeers.application(APPLICATION))
                    .registry(DubboPeers.noRegistry())
                    .reference(typesRef).reference(v1Ref).reference(v2aRef).reference(v3Ref)
                    .reference(usersRef).reference(closingRef)
                    .start();
            TypesService s = typesRef.get();
            Scenario.ok(START, "ms", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0),
                    "port", server.port(), "network", Scenario.network(), "host", host,
                    "dubboLocalHost", NetUtils.getLocalHost());

            InteropChecks.types(s);
            attachments(s);
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
                require(types.fired.await(5, TimeUnit.SECONDS), "the one-way call never ran on the server");
            });
            check(VERSION_GROUP, () -> {
                require("x".equals(s.echo("x")), "unversioned");
                require("v1:x".equals(v1Ref.get().echo("x")), "version 1.0 not routed to its implementation");
                require("v2a:x".equals(v2aRef.get().echo("x")), "version 2.0 group a not routed");
            });
            check(VERSION_UNKNOWN, () -> {
                try {
                    String answer = v3Ref.get().echo("x");
                    throw new AssertionError("an unknown version answered " + answer);
                } catch (RpcException e) {
                    require(String.valueOf(e.getMessage()).contains("3.0"), "message does not name the version: "
                            + e.getMessage());
                }
            });

            check(ECHO_SERVICE, () -> {
                // Every Dubbo proxy implements EchoService; $echo is Dubbo's built-in liveness call.
                Object answer = ((EchoService) s).$echo("ping");
                require("ping".equals(answer), "$echo answered " + answer);
            });

            UserServiceChecks.run(usersRef.get(), threads, callsPerThread);

            measure(HEARTBEAT, () -> heartbeat(host, heartbeatServer.port()));
            readonly(closingServer, closingRef, gated);

            long t1 = System.nanoTime();
            bootstrap.stop();
            server.close();
            heartbeatServer.close();
            Scenario.ok(STOP, "ms", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t1));
        });
    }

    private static TypesServiceImpl prefixed(String prefix) {
        return new TypesServiceImpl(SluiceAttachments.INSTANCE, Runnable::run) {
            @Override
            public String echo(String text) {
                return prefix + text;
            }
        };
    }

    private static ReferenceConfig<TypesService> versioned(String host, int port, String version, String group) {
        ReferenceConfig<TypesService> ref = DubboPeers.reference(TypesService.class, host, port, 10_000);
        ref.setVersion(version);
        if (group != null) {
            ref.setGroup(group);
        }
        return ref;
    }

    /** Consumer attachments reach the server's SluiceContext; its response attachments reach RpcContext. */
    private static void attachments(TypesService s) {
        check(ATTACHMENTS_TO_PROVIDER, () -> {
            RpcContext.getClientAttachment().setAttachment("trace-id", "abc-123");
            String seen = s.attachment("trace-id");
            require("abc-123".equals(seen), "the server saw trace-id=" + seen);
        });
        check(ATTACHMENTS_FROM_PROVIDER, () -> {
            RpcContext.getClientAttachment().setAttachment("trace-id", "def-456");
            s.attachment("trace-id");
            String served = RpcContext.getServerContext().getAttachment("served");
            require("yes:def-456".equals(served), "RpcContext.getServerContext() has served=" + served);
        });
        check(ATTACHMENTS_DUBBO_BUILTIN, () -> {
            String app = s.attachment("remote.application");
            require(APPLICATION.equals(app), "remote.application=" + app);
            String iface = s.attachment("interface");
            require(TypesService.class.getName().equals(iface), "interface=" + iface);
        });
        check(ATTACHMENTS_PER_CALL, () -> {
            RpcContext.getClientAttachment().setAttachment("once", "1");
            require("1".equals(s.attachment("once")), "first call did not carry the attachment");
            String again = s.attachment("once");
            require(again == null, "an attachment of the previous call leaked into the next: " + again);
        });
        check(ATTACHMENTS_VALUES, () -> {
            for (String value : InteropChecks.ATTACHMENT_VALUES) {
                RpcContext.getClientAttachment().setAttachment("v", value);
                String seen = s.attachment("v");
                require(value.equals(seen), "sent " + InteropChecks.abbreviate(value) + ", the server saw "
                        + InteropChecks.abbreviate(seen));
                String served = RpcContext.getServerContext().getAttachment("served");
                require(("yes:" + value).equals(served), "response attachment " + InteropChecks.abbreviate(served));
            }
            RpcContext.getClientAttachment().setObjectAttachment("n", 42);
            String seen = s.attachment("n");
            require("42".equals(seen), "an Integer attachment arrived as " + seen);
        });
    }

    /**
     * A consumer with {@code heartbeat=300} ms stays on the same socket through {@value #IDLE_WAIT_MS} ms of idleness
     * although the server closes connections idle for 1 s, and Dubbo reconnects when it read nothing for 900 ms
     * (its reconnect check made to tick every 300 ms here). A control consumer without heartbeats on the same server
     * must be dropped in the same time, proving the idle limit was armed.
     */
    private static Object[] heartbeat(String host, int port) throws Exception {
        ReferenceConfig<TypesService> hbRef = DubboPeers.reference(TypesService.class, host, port, 10_000);
        hbRef.setId("heartbeat");
        hbRef.setUrl(DubboPeers.consumerUrl(host, port) + "&connections=1&heartbeat=" + HEARTBEAT_MS
                + "&dubbo.application.least-reconnect-duration=100");
        ReferenceConfig<TypesService> controlRef = DubboPeers.reference(TypesService.class, host, port, 10_000);
        controlRef.setId("no-heartbeat");
        controlRef.setUrl(DubboPeers.consumerUrl(host, port) + "&connections=1");
        try {
            TypesService hb = hbRef.get();
            require("hb:a".equals(hb.echo("a")), "first call");
            Set<Integer> hbPorts = TcpConnections.clientPorts(port);
            require(hbPorts.size() == 1, "expected one connection to the heartbeat server, found ports " + hbPorts);
            require("hb:c".equals(controlRef.get().echo("c")), "control call");
            Set<Integer> controlPorts = TcpConnections.clientPorts(port);
            controlPorts.removeAll(hbPorts);
            require(controlPorts.size() == 1, "expected one control connection, found ports " + controlPorts);

            require(!new CountDownLatch(1).await(IDLE_WAIT_MS, TimeUnit.MILLISECONDS), "nothing counts this down");

            Set<Integer> after = TcpConnections.clientPorts(port);
            require(after.containsAll(hbPorts), "the heartbeat connection (port " + hbPorts + ") was dropped; now "
                    + after);
            require(Collections.disjoint(after, controlPorts), "the control connection without heartbeats (port "
                    + controlPorts + ") is still up after " + IDLE_WAIT_MS + " ms: the server's idle limit is not "
                    + "armed, so this check proves nothing");
            require("hb:b".equals(hb.echo("b")), "call after the idle period");
            return new Object[] {"heartbeatMs", HEARTBEAT_MS, "idleMs", IDLE_WAIT_MS, "clientPort",
                    hbPorts.iterator().next(), "controlPort", controlPorts.iterator().next()};
        } finally {
            hbRef.destroy();
            controlRef.destroy();
        }
    }

    /**
     * Graceful close of a SluiceServer with four calls in flight: the Dubbo consumer gets the readonly event (its
     * invoker becomes unavailable), a new call fails, the four calls complete, and the close finishes.
     */
    @SuppressWarnings("deprecation") // ReferenceConfig.getInvoker(): the only public way to ask isAvailable()
    private static void readonly(SluiceServer closing, ReferenceConfig<TypesService> ref, TypesServiceImpl gated)
            throws Exception {
        TypesService s = ref.get();
        Invoker<?> invoker = ref.getInvoker();
        ExecutorService callers = Executors.newFixedThreadPool(4);
        CompletableFuture<Void> closed = null;
        try {
            List<Future<String>> inFlight = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                inFlight.add(callers.submit(() -> s.slow(9_000)));
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (closing.inFlight() < 4 && System.nanoTime() < deadline) {
                Thread.yield();
            }
            require(closing.inFlight() == 4, "only " + closing.inFlight() + " calls reached the server");
            require(invoker.isAvailable(), "invoker unavailable before the close");
            CompletableFuture<Void> closeFuture = closing.close(Duration.ofSeconds(10));
            closed = closeFuture;

            check(READONLY_UNAVAILABLE, () -> {
                long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
                while (invoker.isAvailable() && System.nanoTime() < until) {
                    Thread.yield();
                }
                require(!invoker.isAvailable(), "the Dubbo invoker is still available 5 s after the close began"
                        + " (readonly event not seen)");
                // Still connected (the close waits for the in-flight calls): unavailable because of the
                // channel.readonly attribute the event set, not because the connection went away.
                require(!TcpConnections.clientPorts(closing.port()).isEmpty(), "the connection is gone; the readonly"
                        + " event was not what made the invoker unavailable");
            });
            check(READONLY_NEW_CALL, () -> {
                try {
                    String answer = s.echo("new");
                    throw new AssertionError("a new call during the close was answered: " + answer);
                } catch (RpcException e) {
                    require(!closeFuture.isDone(), "the close did not wait for the in-flight calls");
                }
            });
            gated.gate.countDown();
            check(READONLY_IN_FLIGHT, () -> {
                for (Future<String> f : inFlight) {
                    String answer = f.get(10, TimeUnit.SECONDS);
                    require("slow:9000".equals(answer), "in-flight call got " + answer);
                }
            });
            check(READONLY_CLOSED, () -> closeFuture.get(10, TimeUnit.SECONDS));
        } finally {
            gated.gate.countDown();
            callers.shutdownNow();
            if (closed == null) {
                closing.closeNow();
            }
        }
    }
}
