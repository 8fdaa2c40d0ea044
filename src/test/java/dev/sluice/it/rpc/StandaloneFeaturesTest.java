package dev.sluice.it.rpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.it.harness.TcpConnections;
import dev.sluice.it.rpc.model.SluiceAttachments;
import dev.sluice.it.rpc.model.TypesChecks;
import dev.sluice.it.rpc.model.TypesService;
import dev.sluice.it.rpc.model.TypesServiceImpl;
import dev.sluice.rpc.RpcException;
import dev.sluice.rpc.RpcTimeoutException;
import dev.sluice.rpc.SluiceClient;
import dev.sluice.rpc.SluiceContext;
import dev.sluice.rpc.SluiceServer;
import dev.sluice.transport.ConnectionClosedException;
import dev.sluice.transport.FrameTooLargeException;
import dev.sluice.transport.NativeTransport;
import dev.sluice.transport.SendState;
import dev.sluice.transport.TransportOptions;
import dev.sluice.transport.codec.LengthFieldFrames;
import dev.sluice.transport.netty.EventLoops;
import dev.sluice.transport.netty.NettyServerTransport;
import io.netty.buffer.ByteBuf;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** SluiceClient against SluiceServer: types, errors, timeouts, async, attachments, versions, lifecycle. */
@Timeout(120)
class StandaloneFeaturesTest {
    @Test
    void everyValueTypeRoundTrips() throws Exception {
        try (SluiceServer server = SluiceServer.builder().port(0)
                .register(TypesService.class, SluiceAttachments.service()).start();
             SluiceClient client = SluiceClient.builder().address("127.0.0.1", server.port())
                     .timeout(Duration.ofSeconds(5)).build()) {
            TypesChecks.all(client.proxy(TypesService.class));
        }
    }

    @Test
    void asyncResultsCompleteOffTheEventLoop() throws Exception {
        try (SluiceServer server = SluiceServer.builder().port(0)
                .register(TypesService.class, SluiceAttachments.service()).start();
             SluiceClient client =
                     SluiceClient.builder().address("127.0.0.1", server.port()).timeout(
                             Duration.ofSeconds(10)).build()) {
            TypesService s = client.proxy(TypesService.class);
            AtomicReference<String> thread = new AtomicReference<>();
            String v = s.async("x", 0).thenApply(r -> {
                thread.set(Thread.currentThread().getName());
                return r;
            }).get(5, TimeUnit.SECONDS);
            assertEquals("async:x", v);
            assertFalse(thread.get().startsWith("sluice-client"), "callback ran on " + thread.get());
        }
    }

    @Test
    void attachmentsTravelBothWays() {
        try (SluiceServer server = SluiceServer.builder().port(0)
                .register(TypesService.class, SluiceAttachments.service()).start();
             SluiceClient client =
                     SluiceClient.builder().address("127.0.0.1", server.port()).timeout(
                             Duration.ofSeconds(10)).build()) {
            TypesService s = client.reference(TypesService.class).attachment("fixed", "f").proxy();
            SluiceContext.current().setAttachment("trace-id", "abc-123");
            assertEquals("abc-123", s.attachment("trace-id"));
            assertEquals("yes:abc-123", SluiceContext.current().responseAttachments().get("served"));
            assertEquals("f", s.attachment("fixed"), "a reference's fixed attachment is sent with every call");
            assertEquals(null, s.attachment("trace-id"), "per-call attachments apply to one call only");
        }
    }

    @Test
    void versionsAndGroupsRouteToTheirImplementation() {
        TypesService v1 = new TypesServiceImpl(SluiceAttachments.INSTANCE, Runnable::run) {
            @Override
            public String echo(String s) {
                return "v1:" + s;
            }
        };
        TypesService v2a = new TypesServiceImpl(SluiceAttachments.INSTANCE, Runnable::run) {
            @Override
            public String echo(String s) {
                return "v2a:" + s;
            }
        };
        try (SluiceServer server = SluiceServer.builder().port(0)
                .register(TypesService.class, v1, "1.0", null)
                .register(TypesService.class, v2a, "2.0", "a").start();
             SluiceClient client =
                     SluiceClient.builder().address("127.0.0.1", server.port()).timeout(
                             Duration.ofSeconds(10)).build()) {
            assertEquals("v1:x", client.reference(TypesService.class).version("1.0").proxy().echo("x"));
            assertEquals("v2a:x", client.reference(TypesService.class).version("2.0").group("a").proxy().echo("x"));
            RpcException missing = assertThrows(RpcException.class,
                    () -> client.reference(TypesService.class).version("3.0").proxy().echo("x"));
            assertEquals(40, missing.status());
            assertTrue(missing.getMessage().contains("3.0"), missing.getMessage());
        }
    }

    @Test
    void timeoutSaysNoResponseWhenTheRequestWasSent() {
        TypesServiceImpl impl = SluiceAttachments.service();
        impl.gate = new CountDownLatch(1);
        try (SluiceServer server = SluiceServer.builder().port(0).register(TypesService.class, impl).start();
             SluiceClient client =
                     SluiceClient.builder().address("127.0.0.1", server.port()).timeout(
                             Duration.ofSeconds(10)).build()) {
            TypesService s = client.reference(TypesService.class).timeout(Duration.ofMillis(200)).proxy();
            RpcTimeoutException e = assertThrows(RpcTimeoutException.class, () -> s.slow(10_000));
            assertTrue(e.wasSent());
            assertEquals(SendState.SENT, e.sendState(), "written, no response");
            assertFalse(e.isRetryable());
            assertTrue(e.getMessage().startsWith("No response"), e.getMessage());
            assertTrue(e.getMessage().contains("200 ms"), e.getMessage());
            impl.gate.countDown();
            assertEquals(0, client.pendingCalls());
        }
    }

    @Test
    void timeoutSaysNotSentWhenTheRequestNeverLeftTheQueue() throws Exception {
        EventLoops loops = EventLoops.create(NativeTransport.NIO, 1, "blocked-client");
        List<String> served = java.util.Collections.synchronizedList(new ArrayList<>());
        TypesService recording = new TypesServiceImpl(SluiceAttachments.INSTANCE, Runnable::run) {
            @Override
            public String echo(String s) {
                served.add(s);
                return s;
            }
        };
        // One service thread: the server runs calls in the order they arrive, so once "after" has run, a "stuck"
        // that reached the server would have run before it.
        try (SluiceServer server = SluiceServer.builder().port(0).threads(1, 100)
                .register(TypesService.class, recording).start();
             SluiceClient client = SluiceClient.builder().address("127.0.0.1", server.port()).eventLoops(loops)
                     .timeout(Duration.ofSeconds(10)).build()) {
            TypesService s = client.reference(TypesService.class).timeout(Duration.ofMillis(200)).proxy();
            assertEquals("ok", s.echo("ok"));
            CountDownLatch release = new CountDownLatch(1);
            CountDownLatch blocked = new CountDownLatch(1);
            loops.group().next().execute(() -> {
                blocked.countDown();
                try {
                    release.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            assertTrue(blocked.await(5, TimeUnit.SECONDS));
            try {
                RpcTimeoutException e = assertThrows(RpcTimeoutException.class, () -> s.echo("stuck"));
                assertFalse(e.wasSent());
                assertEquals(SendState.NOT_SENT, e.sendState());
                assertTrue(e.isRetryable());
                assertTrue(e.getMessage().startsWith("Not sent"), e.getMessage());
            } finally {
                release.countDown();
            }
            // The event loop drains its queue now. "Not sent" is a promise: the server must never run "stuck".
            TypesService patient = client.reference(TypesService.class).timeout(Duration.ofSeconds(10)).proxy();
            assertEquals("after", patient.echo("after"));
            assertEquals(List.of("ok", "after"), new ArrayList<>(served), "the server ran only what was sent");
        } finally {
            loops.group().shutdownGracefully(0, 1, TimeUnit.SECONDS);
        }
    }

    @Test
    void oneWayCallsReturnAtOnceAndStillRun() throws Exception {
        TypesServiceImpl impl = SluiceAttachments.service();
        try (SluiceServer server = SluiceServer.builder().port(0).register(TypesService.class, impl).start();
             SluiceClient client =
                     SluiceClient.builder().address("127.0.0.1", server.port()).timeout(
                             Duration.ofSeconds(10)).build()) {
            client.reference(TypesService.class).oneWay("fire").proxy().fire("go");
            assertTrue(impl.fired.await(5, TimeUnit.SECONDS));
            assertEquals(0, client.pendingCalls());
        }
    }

    @Test
    void payloadLimitFailsAnOversizedRequestAtTheCallerAndAnOversizedResponseFast() {
        try (SluiceServer server = SluiceServer.builder().port(0).payloadLimit(64 * 1024)
                .register(TypesService.class, SluiceAttachments.service()).start();
             SluiceClient client = SluiceClient.builder().address("127.0.0.1", server.port())
                     .payloadLimit(64 * 1024).timeout(Duration.ofSeconds(5)).build()) {
            TypesService s = client.proxy(TypesService.class);
            FrameTooLargeException tooBig =
                    assertThrows(FrameTooLargeException.class, () -> s.echo("x".repeat(100_000)));
            assertEquals(64 * 1024, tooBig.limit());
            assertTrue(tooBig.size() > 100_000, tooBig.getMessage());
            long start = System.nanoTime();
            RpcException e = assertThrows(RpcException.class, () -> s.items(5_000)); // response over the limit
            assertEquals(25, e.status());
            assertTrue(e.getMessage().contains(String.valueOf(64 * 1024)), e.getMessage());
            assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(4), "answered at once, not by timeout");
            assertEquals("still serving", s.echo("still serving"));
        }
    }

    @Test
    void gracefulCloseLetsInFlightCallsFinishAndRejectsNewOnes() throws Exception {
        TypesServiceImpl impl = SluiceAttachments.service();
        impl.gate = new CountDownLatch(1);
        SluiceServer server = SluiceServer.builder().port(0).register(TypesService.class, impl).start();
        ExecutorService callers = Executors.newFixedThreadPool(4);
        try (SluiceClient client = SluiceClient.builder().address("127.0.0.1", server.port())
                .timeout(Duration.ofSeconds(10)).build()) {
            TypesService s = client.proxy(TypesService.class);
            List<java.util.concurrent.Future<String>> inFlight = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                inFlight.add(callers.submit(() -> s.slow(9_000)));
            }
            while (server.inFlight() < 4) {
                Thread.onSpinWait();
            }
            CompletableFuture<Void> closed = server.close(Duration.ofSeconds(10));
            // The readonly event reaches the client, which then refuses new calls itself, retryable and not sent. (A
            // call that crosses the event on the wire is refused by the server instead: retry until the event is in.)
            RpcException refused = null;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (System.nanoTime() < deadline
                    && (refused == null || !String.valueOf(refused.getMessage()).contains("readonly event"))) {
                try {
                    s.echo("new");
                    Thread.onSpinWait();
                } catch (RpcException e) {
                    refused = e;
                }
            }
            assertTrue(refused != null && refused.isRetryable(), "new calls refused with a retryable error");
            assertTrue(String.valueOf(refused.getMessage()).contains("readonly event"),
                    "the client received the readonly event and refused by itself: " + refused.getMessage());
            assertFalse(closed.isDone(), "close waits for in-flight calls");
            impl.gate.countDown();
            for (java.util.concurrent.Future<String> f : inFlight) {
                assertEquals("slow:9000", f.get(10, TimeUnit.SECONDS));
            }
            closed.get(10, TimeUnit.SECONDS);
            server.close(Duration.ofSeconds(1)).get(1, TimeUnit.SECONDS); // second close is harmless
        } finally {
            callers.shutdownNow();
            server.close();
        }
    }

    @Test
    void forcefulStopFailsInFlightCallsPromptly() throws Exception {
        TypesServiceImpl impl = SluiceAttachments.service();
        impl.gate = new CountDownLatch(1);
        SluiceServer server = SluiceServer.builder().port(0).register(TypesService.class, impl).start();
        try (SluiceClient client = SluiceClient.builder().address("127.0.0.1", server.port())
                .timeout(Duration.ofSeconds(30)).build()) {
            TypesService s = client.proxy(TypesService.class);
            CompletableFuture<String> call = CompletableFuture.supplyAsync(() -> s.slow(20_000));
            while (server.inFlight() < 1) {
                Thread.onSpinWait();
            }
            long start = System.nanoTime();
            server.closeNow().get(10, TimeUnit.SECONDS);
            ExecutionException e = assertThrows(ExecutionException.class, () -> call.get(10, TimeUnit.SECONDS));
            assertInstanceOf(ConnectionClosedException.class, e.getCause());
            assertTrue(((ConnectionClosedException) e.getCause()).wasSent());
            assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(5), "failed at once, not by timeout");
        } finally {
            impl.gate.countDown();
        }
    }

    @Test
    void silentPeerIsDetectedByHeartbeatsAndTheClientReconnects() throws Exception {
        AtomicInteger connections = new AtomicInteger();
        CountDownLatch second = new CountDownLatch(2);
        // A peer that accepts and reads but never answers anything: a half-open connection as the client sees it.
        try (NettyServerTransport silent = NettyServerTransport.builder().port(0)
                .codec(new LengthFieldFrames(16, 12, 1 << 20))
                .handler(new dev.sluice.transport.TransportHandler() {
                    @Override
                    public void connected(dev.sluice.transport.Connection c) {
                        connections.incrementAndGet();
                        second.countDown();
                    }

                    @Override
                    public void received(dev.sluice.transport.Connection c, Object m) {
                        ((ByteBuf) m).release();
                    }
                }).bind();
             SluiceClient client = SluiceClient.builder().address("127.0.0.1", silent.port())
                     .options(TransportOptions.builder().reconnectBackoff(Duration.ofMillis(50),
                             Duration.ofMillis(100)).build())
                     .heartbeat(Duration.ofMillis(100), Duration.ofMillis(300)).build()) {
            assertTrue(client.isConnected());
            assertTrue(second.await(10, TimeUnit.SECONDS), "client gave up on the silent peer and reconnected");
        }
    }

    @Test
    void heartbeatsKeepAnIdleConnectionToARealServerUp() throws Exception {
        try (SluiceServer server = SluiceServer.builder().port(0).idleTimeout(Duration.ofMillis(600))
                .register(TypesService.class, SluiceAttachments.service()).start();
             SluiceClient client = SluiceClient.builder().address("127.0.0.1", server.port())
                     .heartbeat(Duration.ofMillis(100), Duration.ofMillis(300)).timeout(
                             Duration.ofSeconds(10)).build()) {
            TypesService s = client.proxy(TypesService.class);
            assertEquals("a", s.echo("a"));
            java.util.Set<Integer> before = TcpConnections.clientPorts(server.port());
            assertEquals(1, before.size(), "one connection to the server: " + before);
            // Idle well past both the client's read-idle limit and the server's all-idle limit: heartbeats
            // (answered by the server) keep the same connection alive.
            assertFalse(new CountDownLatch(1).await(1500, TimeUnit.MILLISECONDS));
            assertTrue(client.isConnected());
            assertEquals("b", s.echo("b"));
            assertEquals(before, TcpConnections.clientPorts(server.port()),
                    "the same socket carried both calls: no close and reconnect in between");
        }
    }
}
