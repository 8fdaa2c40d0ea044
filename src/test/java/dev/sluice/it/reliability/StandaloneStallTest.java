package dev.sluice.it.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.rpc.SluiceClient;
import dev.sluice.rpc.SluiceServer;
import dev.sluice.transport.ConnectionStalledException;
import dev.sluice.transport.SendState;
import dev.sluice.transport.netty.PausableProxy;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 18, standalone: {@link SluiceClient}'s stall detection against a {@link SluiceServer} reached through a
 * {@link PausableProxy}. A server that stops answering (the proxy holds back its bytes) makes new calls fail at once,
 * not sent, with {@link ConnectionStalledException}; calls in flight keep their timeouts; the first byte read clears
 * it. A long method or a saturated pool answers the heartbeat probe and is never a stall. On by default.
 */
@Timeout(60)
class StandaloneStallTest {
    private static final Duration STALL = Duration.ofMillis(200);

    private static void watchNeverStalled(SluiceClient client, BooleanSupplier done) {
        while (!done.getAsBoolean()) {
            assertFalse(client.isStalled(), "a slow but live server was reported stalled");
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
        }
    }

    private static long awaitMillis(BooleanSupplier condition, long limitMillis) {
        long start = System.nanoTime();
        long deadline = start + TimeUnit.MILLISECONDS.toNanos(limitMillis);
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "condition not reached within " + limitMillis + " ms");
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2));
        }
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    }

    @Test
    void methodRunningSecondsAnswersTheProbeAndIsNeverStalled() throws Exception {
        WorkService.Impl impl = new WorkService.Impl();
        try (SluiceServer server = SluiceServer.builder().port(0).register(WorkService.class, impl).start();
             PausableProxy proxy = new PausableProxy(new InetSocketAddress("127.0.0.1", server.port()));
             SluiceClient client = SluiceClient.builder().address("127.0.0.1", proxy.port())
                     .timeout(Duration.ofSeconds(10)).stallTimeout(STALL).build()) {
            CompletableFuture<String> slow = client.proxy(WorkService.class).work(2_500);
            watchNeverStalled(client, slow::isDone);
            assertEquals("worked:2500", slow.get());
            assertTrue(proxy.heartbeatsFromClient() >= 1, "no probe went out during 2.5 s of silence");
        }
    }

    @Test
    void saturatedServicePoolAnswersTheProbeAndIsNeverStalled() throws Exception {
        WorkService.Impl impl = new WorkService.Impl();
        try (SluiceServer server = SluiceServer.builder().port(0).threads(1, 100).register(WorkService.class, impl)
                .start();
             PausableProxy proxy = new PausableProxy(new InetSocketAddress("127.0.0.1", server.port()));
             SluiceClient client = SluiceClient.builder().address("127.0.0.1", proxy.port())
                     .timeout(Duration.ofSeconds(10)).stallTimeout(STALL).build()) {
            WorkService s = client.proxy(WorkService.class);
            List<CompletableFuture<String>> calls = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                calls.add(s.work(800));
            }
            CompletableFuture<Void> all = CompletableFuture.allOf(calls.toArray(new CompletableFuture<?>[0]));
            watchNeverStalled(client, all::isDone);
            for (CompletableFuture<String> c : calls) {
                assertEquals("worked:800", c.get());
            }
            assertEquals(1, impl.maxRunning.get(), "the pool was not saturated: calls ran in parallel");
            assertTrue(proxy.heartbeatsFromClient() >= 1, "no probe went out while calls waited in the queue");
        }
    }

    @Test
    void serverThatStopsAnsweringFailsNewCallsAtOnceNotSentUntilItsFirstByte() throws Exception {
        try (SluiceServer server = SluiceServer.builder().port(0).register(WorkService.class, new WorkService.Impl())
                .start();
             PausableProxy proxy = new PausableProxy(new InetSocketAddress("127.0.0.1", server.port()));
             SluiceClient client = SluiceClient.builder().address("127.0.0.1", proxy.port())
                     .timeout(Duration.ofSeconds(10)).stallTimeout(STALL).build()) {
            WorkService s = client.proxy(WorkService.class);
            assertEquals("pong:a", s.ping("a"));
            proxy.pause();
            CompletableFuture<String> inFlight = s.work(0);
            long millis = awaitMillis(client::isStalled, 5_000);
            assertTrue(millis >= 2 * STALL.toMillis() - 20, "stalled after only " + millis + " ms");

            long start = System.nanoTime();
            ConnectionStalledException e = assertThrows(ConnectionStalledException.class, () -> s.ping("b"));
            long failMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertTrue(failMillis < 500, "a stalled connection took " + failMillis + " ms to refuse a call");
            assertFalse(e.wasSent());
            assertEquals(SendState.NOT_SENT, e.sendState());
            assertTrue(e.getMessage().startsWith("Not sent") && e.getMessage().contains(proxy.port() + "")
                    && e.getMessage().contains("200 ms"), e.getMessage());
            assertTrue(client.isConnected(), "a stalled connection stays open");
            assertFalse(inFlight.isDone(), "the call in flight keeps its own timeout: " + inFlight);

            proxy.resume();
            assertEquals("worked:0", inFlight.get(5, TimeUnit.SECONDS));
            awaitMillis(() -> !client.isStalled(), 5_000);
            assertEquals("pong:c", s.ping("c"));
        }
    }

    @Test
    void stallDetectionIsOnByDefault() throws Exception {
        assertEquals(Duration.ofSeconds(1), SluiceClient.DEFAULT_STALL_TIMEOUT);
        try (SluiceServer server = SluiceServer.builder().port(0).register(WorkService.class, new WorkService.Impl())
                .start();
             PausableProxy proxy = new PausableProxy(new InetSocketAddress("127.0.0.1", server.port()));
             SluiceClient client = SluiceClient.builder().address("127.0.0.1", proxy.port())
                     .timeout(Duration.ofSeconds(20)).build()) {
            WorkService s = client.proxy(WorkService.class);
            assertEquals("pong:a", s.ping("a"));
            proxy.pause();
            CompletableFuture<String> inFlight = s.work(0);
            long millis = awaitMillis(client::isStalled, 10_000);
            assertTrue(millis >= 1_900, "stalled after only " + millis + " ms with the 1 s default");
            assertThrows(ConnectionStalledException.class, () -> s.ping("b"));
            proxy.resume();
            assertEquals("worked:0", inFlight.get(5, TimeUnit.SECONDS));
        }
    }
}
