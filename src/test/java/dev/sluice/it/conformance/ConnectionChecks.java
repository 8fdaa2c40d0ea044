package dev.sluice.it.conformance;

import static dev.sluice.it.conformance.Checks.check;
import static dev.sluice.it.conformance.Checks.measure;
import static dev.sluice.it.conformance.Checks.require;

import dev.sluice.it.harness.DubboPeers;
import dev.sluice.it.harness.TcpConnections;
import dev.sluice.it.rpc.model.TypesService;
import dev.sluice.it.rpc.model.UserServiceAnswers;
import dev.sluice.rpc.RpcException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.apache.dubbo.benchmark.service.UserService;
import org.apache.dubbo.config.ReferenceConfig;
import org.apache.dubbo.rpc.GracefulShutdown;

/**
 * The bodies of the conformance {@link Check}s about a connection's life and limits: heartbeats on an idle
 * connection, readonly and writeable events, a graceful close with calls in flight, a provider restart, and Dubbo's
 * payload limits. Called by {@link ConformanceChecks}; a body that needs one kind of side casts to it, because
 * {@link Check} declares it applies only to the pairings that have that side.
 *
 * <p>Runs on the scenario's main thread, except {@link #heartbeat()}, which the scenario runs on a thread of its own
 * at the same time (it touches only its own port and connections, and no field of this class).
 */
final class ConnectionChecks {
    /** Twice the servers' ~1 s idle close and the standalone client's 1 s read-idle limit. */
    private static final long IDLE_WAIT_MS = 2_000;
    private static final int IN_FLIGHT = 8;
    /** Dubbo's {@code payload} of both ends in the payload-limit check. */
    private static final int PAYLOAD = 65536;
    private static final int CLIENT_PAYLOAD = 16384;
    /** Call timeout of the payload-limit consumers: an oversized answer must fail in well under it. */
    private static final int LIMIT_TIMEOUT_MS = 5000;
    /** A call that must fail fast (no provider) fails within this. */
    private static final long FAIL_FAST_MS = 2_500;

    private final Pairing pairing;
    private final String host;
    private final ClientSide client;
    private final ServerSide server;
    /** The provider of the payload-limit checks (main thread only). */
    private DubboNodes.Provider limitedProvider;
    private BulkServiceImpl limitedImpl;
    private int limitedPort;

    ConnectionChecks(Pairing pairing, String host, ClientSide client, ServerSide server) {
        this.pairing = pairing;
        this.host = host;
        this.client = client;
        this.server = server;
    }

    /**
     * With {@code payload=65536} on a provider and a consumer of their own: an oversized request fails at the caller
     * with both sizes, an oversized response fails fast (not the 5 s timeout), and the connection still works.
     */
    Object[] payloadLimit() {
        return withLimitedPeers(PAYLOAD, !Check.CLIENT_LIMIT.appliesTo(pairing), (bulk, provider) -> {
            String big = "y".repeat(80_000);
            long t0 = System.nanoTime();
            RuntimeException request = expectFailure(() -> bulk.size(big));
            long requestMs = millisSince(t0);
            String requestMessage = fullMessage(request);
            require(requestMessage.contains("Data length too large") && requestMessage.contains("max payload: "
                    + PAYLOAD), "oversized request: message names no sizes: " + requestMessage);
            require(requestMs < 2000, "oversized request took " + requestMs + " ms to fail");
            require(provider.entered() == 0, "provider saw a call it should not have");

            long t1 = System.nanoTime();
            RuntimeException response = expectFailure(() -> bulk.blob(100_000));
            long responseMs = millisSince(t1);
            String responseMessage = fullMessage(response);
            require(responseMessage.contains("Data length too large") && responseMessage.contains("max payload: "
                    + PAYLOAD), "oversized response: unexpected failure: " + responseMessage);
            require(responseMs < LIMIT_TIMEOUT_MS / 2, "oversized response took " + responseMs
                    + " ms to fail (timeout?)");

            require(bulk.blob(1000).length() == 1000, "call after the oversized ones failed");
            require(bulk.size("z".repeat(60_000)) == 60_000, "a request just under the limit failed");
            return new Object[] {"requestFailMs", requestMs, "responseFailMs", responseMs};
        });
    }

    /**
     * A consumer whose own {@code payload=16384} is below a 30 KB response (the provider's is 65536): the call fails
     * fast, and the next call on that connection works (the body was skipped).
     */
    Object[] clientLimit() {
        return withLimitedPeers(CLIENT_PAYLOAD, true, (bulk, provider) -> {
            long t0 = System.nanoTime();
            RuntimeException failure = expectFailure(() -> bulk.blob(30_000));
            long failMs = millisSince(t0);
            String message = fullMessage(failure);
            require(message.contains(Integer.toString(CLIENT_PAYLOAD)), "oversized response on a small client: "
                    + message);
            require(failMs < LIMIT_TIMEOUT_MS / 2, "oversized response took " + failMs + " ms to fail (timeout?)");
            require(bulk.blob(100).length() == 100, "call after the skipped response failed");
            require(bulk.blob(16_000).length() == 16_000, "call just under the client limit failed");
            return new Object[] {"failMs", failMs};
        });
    }

    /** A body of the payload checks: the consumer's BulkService proxy and the provider's implementation. */
    @FunctionalInterface
    private interface LimitedBody {
        Object[] run(BulkService bulk, BulkServiceImpl provider);
    }

    /**
     * Runs {@code body} against a provider with {@code payload=65536} and a consumer (on a connection of its own)
     * with {@code payload=consumerPayload}, both on the pairing's Transporters. The provider is started by the first
     * payload-limit check and stopped after the {@code last}.
     */
    private Object[] withLimitedPeers(int consumerPayload, boolean last, LimitedBody body) {
        try {
            if (limitedProvider == null) {
                limitedPort = DubboPeers.freePort();
                limitedImpl = new BulkServiceImpl();
                limitedProvider = DubboNodes.Provider.start(pairing.serverTransporter(), limitedPort,
                        Map.of("payload", Integer.toString(PAYLOAD)),
                        List.of(DubboNodes.service(BulkService.class, limitedImpl, null, null)));
            }
            ReferenceConfig<BulkService> ref = DubboNodes.reference(BulkService.class, null, null);
            DubboNodes.Consumer consumer = DubboNodes.Consumer.start("payload-limit", pairing.clientTransporter(),
                    host, limitedPort, LIMIT_TIMEOUT_MS, Map.of("payload", Integer.toString(consumerPayload)), true,
                    List.of(ref));
            try {
                return body.run(ref.get(), limitedImpl);
            } finally {
                consumer.stop();
            }
        } finally {
            if (last && limitedProvider != null) {
                limitedProvider.stop();
                limitedProvider = null;
            }
        }
    }

    /**
     * A client with heartbeats stays on the same socket through {@value #IDLE_WAIT_MS} ms of idleness although its
     * server closes connections idle for about 1 s (and a client reconnects when it read nothing for about as long,
     * so the server must answer the heartbeats). A control client without heartbeats must lose its socket in the
     * same time, proving the server's idle limit was armed. A server that can count the heartbeats it read must
     * have read at least 3.
     */
    Object[] heartbeat() throws Exception {
        try (ServerSide.HeartbeatServer hbServer = server.startHeartbeatServer();
             ClientSide.Peer hb = client.peer(hbServer.port(), ServerSide.HeartbeatServer.VERSION, true)) {
            int port = hbServer.port();
            require("hb:a".equals(hb.types().echo("a")), "first call");
            Set<Integer> hbPorts = TcpConnections.clientPorts(port);
            require(hbPorts.size() == 1, "expected one connection to the heartbeat server, found ports " + hbPorts);
            int clientPort = hbPorts.iterator().next();
            Set<Integer> controlPorts;
            int heartbeats;
            try (ClientSide.Peer control = client.peer(port, ServerSide.HeartbeatServer.VERSION, false)) {
                require("hb:c".equals(control.types().echo("c")), "control call");
                controlPorts = TcpConnections.clientPorts(port);
                controlPorts.removeAll(hbPorts);
                require(controlPorts.size() == 1, "expected one control connection, found ports " + controlPorts);

                heartbeats = hbServer.idle(clientPort, IDLE_WAIT_MS);

                Set<Integer> after = TcpConnections.clientPorts(port);
                require(after.containsAll(hbPorts), "the heartbeat connection (port " + hbPorts + ") was dropped; now "
                        + after);
                require(Collections.disjoint(after, controlPorts), "the control connection without heartbeats (port "
                        + controlPorts + ") is still up after " + IDLE_WAIT_MS + " ms: the server's idle limit is "
                        + "not armed, so this check proves nothing");
            }
            hb.requireConnected();
            require("hb:b".equals(hb.types().echo("b")), "call after the idle period");
            require(heartbeats < 0 || heartbeats >= 3, "provider read " + heartbeats + " heartbeats in "
                    + IDLE_WAIT_MS + " ms, expected about " + (IDLE_WAIT_MS / client.heartbeatMillis()));
            return new Object[] {"heartbeatMs", client.heartbeatMillis(), "idleMs", IDLE_WAIT_MS, "clientPort",
                    clientPort, "controlPort", controlPorts.iterator().next(), "heartbeats", heartbeats};
        }
    }

    /**
     * Dubbo's own graceful-shutdown step sends the readonly event ("R") to every connected client; the SluiceClient
     * must then refuse new calls with a retryable error instead of sending them. The writeable event ("W") that
     * Dubbo sends when it comes back online must make the client call again.
     */
    void readonlyAndWriteable(TypesService s) {
        List<GracefulShutdown> shutdowns = ((DubboProviderSide) server).gracefulShutdowns();
        check(Check.READONLY_WRITEABLE.resultNames().get(0), () -> {
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
        check(Check.READONLY_WRITEABLE.resultNames().get(1), () -> {
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

    /**
     * Graceful close of the main server with {@value #IN_FLIGHT} calls in flight: the Dubbo consumer gets the
     * readonly event (its invoker becomes unavailable while the connection is still up), a new call fails, the
     * calls in flight complete, and the close finishes.
     */
    void gracefulClose(TypesService s) {
        List<String> names = Check.GRACEFUL_CLOSE.resultNames();
        DubboConsumerSide consumer = (DubboConsumerSide) client;
        CountDownLatch gate = new CountDownLatch(1);
        server.types().gate = gate;
        ExecutorService callers = Executors.newFixedThreadPool(IN_FLIGHT);
        try {
            List<Future<String>> inFlight = new ArrayList<>();
            AtomicReference<CompletableFuture<Void>> closing = new AtomicReference<>();
            long t0 = System.nanoTime();
            measure(names.get(0), () -> {
                for (int i = 0; i < IN_FLIGHT; i++) {
                    inFlight.add(callers.submit(() -> s.slow(9_000)));
                }
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
                while (server.inFlight() < IN_FLIGHT && System.nanoTime() < deadline) {
                    Thread.yield();
                }
                require(server.inFlight() == IN_FLIGHT, "only " + server.inFlight() + " calls reached the server");
                require(consumer.available(), "invoker unavailable before the close");
                closing.set(server.closeGracefully(Duration.ofSeconds(10)));
                long closeStart = System.nanoTime();
                long until = closeStart + TimeUnit.SECONDS.toNanos(5);
                while (consumer.available() && System.nanoTime() < until) {
                    Thread.yield();
                }
                require(!consumer.available(), "the Dubbo invoker is still available 5 s after the close began"
                        + " (readonly event not seen)");
                // Still connected (the close waits for the in-flight calls): unavailable because of the
                // channel.readonly attribute the event set, not because the connection went away.
                require(!TcpConnections.clientPorts(server.port()).isEmpty(), "the connection is gone; the readonly"
                        + " event was not what made the invoker unavailable");
                return new Object[] {"inFlight", IN_FLIGHT, "readonlyMs", millisSince(closeStart)};
            });
            if (closing.get() == null) {
                return;
            }
            CompletableFuture<Void> closeFuture = closing.get();
            check(names.get(1), () -> {
                try {
                    String answer = s.echo("new");
                    throw new AssertionError("a new call during the close was answered: " + answer);
                } catch (org.apache.dubbo.rpc.RpcException e) {
                    require(!closeFuture.isDone(), "the close did not wait for the in-flight calls");
                }
            });
            gate.countDown();
            measure(names.get(2), () -> {
                for (Future<String> f : inFlight) {
                    String answer = f.get(10, TimeUnit.SECONDS);
                    require("slow:9000".equals(answer), "in-flight call got " + answer);
                }
                return new Object[] {"completed", inFlight.size()};
            });
            measure(names.get(3), () -> {
                closeFuture.get(server.closeLimit().toMillis(), TimeUnit.MILLISECONDS);
                return new Object[] {"stopMs", millisSince(t0)};
            });
        } finally {
            gate.countDown();
            callers.shutdownNow();
        }
    }

    /** No provider: calls fail fast. A new provider on the same port: the consumer recovers by itself. */
    Object[] restart() {
        DubboProviderSide provider = (DubboProviderSide) server;
        require(!provider.running(), "restart needs the graceful close first");
        UserService users = client.users();
        long t0 = System.nanoTime();
        expectFailure(() -> users.existUser("x9"));
        long failMs = millisSince(t0);
        require(failMs < FAIL_FAST_MS, "call with no provider took " + failMs + " ms to fail");

        provider.start();
        long t1 = System.nanoTime();
        AtomicReference<String> last = new AtomicReference<>();
        awaitTrue(() -> "the consumer to reconnect (last failure: " + last + ")", 20_000, 100, () -> {
            try {
                return users.existUser("x9");
            } catch (RuntimeException e) {
                last.set(e.toString());
                return false;
            }
        });
        long recoverMs = millisSince(t1);
        for (int i = 0; i < 4; i++) {
            String problem = UserServiceAnswers.oneCall(users, 1000 + i);
            require(problem == null, "after reconnect: " + problem);
        }
        return new Object[] {"failMs", failMs, "recoverMs", recoverMs};
    }

    private static RuntimeException expectFailure(Runnable call) {
        try {
            call.run();
        } catch (RuntimeException e) {
            return e;
        }
        throw new AssertionError("call succeeded but should have failed");
    }

    private static String fullMessage(Throwable t) {
        StringBuilder sb = new StringBuilder();
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            sb.append(c).append(" | ");
        }
        return sb.toString();
    }

    /** Polls {@code condition} every {@code pollMillis} until it holds; fails after {@code maxMillis}. */
    private static void awaitTrue(Supplier<String> what, long maxMillis, long pollMillis, BooleanSupplier condition) {
        long start = System.nanoTime();
        while (!condition.getAsBoolean()) {
            if (millisSince(start) > maxMillis) {
                throw new AssertionError("timed out after " + maxMillis + " ms waiting for " + what.get());
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(pollMillis));
        }
    }

    static long millisSince(long startNanos) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
    }
}
