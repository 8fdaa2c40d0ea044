package dev.sluice.it.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.alibaba.fastjson2.JSONB;
import dev.sluice.codec.dubbo.TestBytes;
import dev.sluice.it.rpc.model.SluiceAttachments;
import dev.sluice.it.rpc.model.TypesService;
import dev.sluice.rpc.SluiceClient;
import dev.sluice.rpc.SluiceServer;
import dev.sluice.transport.TransportOptions;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * docs/reliability.md D23 (hessian2 heartbeats answered in kind: RawWireTest): a client sends heartbeats only when its
 * connection is idle, and a server whose idle timeout is shorter than the client's heartbeat interval drops the
 * connection without losing a call; the client reconnects.
 */
@Timeout(60)
class HeartbeatTest {

    @Test
    void heartbeatsOnlyWhenIdle() throws Exception {
        AtomicInteger heartbeats = new AtomicInteger();
        CountDownLatch idleHeartbeats = new CountDownLatch(3);
        try (ScriptedServer provider = ScriptedServer.start((c, request) -> {
            if ((request.flags() & 0x20) != 0) { // an event: the heartbeat, answered as Dubbo does
                heartbeats.incrementAndGet();
                idleHeartbeats.countDown();
                c.send(TestBytes.concat(Wire.header(0x37, 20, request.id(), 5), new byte[] {0, 0, 0, 1, (byte) 0xaf}));
                return;
            }
            c.send(Wire.valueResponse(request.id(), JSONB.toBytes(String.valueOf(request.item(5)))));
        });
             SluiceClient client = SluiceClient.builder().address("127.0.0.1", provider.port())
                     .heartbeat(Duration.ofMillis(150), Duration.ofMillis(600)).timeout(Duration.ofSeconds(5))
                     .failIfNotConnected(true).build()) {
            TypesService s = client.proxy(TypesService.class);
            // Busy: a call every 20 ms for a second, far more often than the 150 ms read-idle period.
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
            int calls = 0;
            while (System.nanoTime() < end) {
                assertEquals("c" + calls, s.echo("c" + calls));
                calls++;
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20)); // pacing, not synchronisation
            }
            assertEquals(0, heartbeats.get(), "no heartbeat while " + calls + " calls kept the connection busy");
            // Idle: heartbeats every period, answered, and the connection stays.
            assertTrue(idleHeartbeats.await(10, TimeUnit.SECONDS), "heartbeats once idle");
            assertTrue(client.isConnected());
            assertEquals(1, provider.accepted.size(), "the same connection throughout");
            assertEquals("after", s.echo("after"));
        }
    }

    @Test
    void aServerIdleTimeoutShorterThanTheClientHeartbeatLosesNoCall() throws Exception {
        try (SluiceServer server = SluiceServer.builder().port(0).idleTimeout(Duration.ofMillis(300))
                .register(TypesService.class, SluiceAttachments.service()).start();
             SluiceClient client = SluiceClient.builder().address("127.0.0.1", server.port())
                     .heartbeat(Duration.ofSeconds(30), Duration.ofSeconds(90)).timeout(Duration.ofSeconds(5))
                     .options(TransportOptions.builder().reconnectBackoff(Duration.ofMillis(20),
                             Duration.ofMillis(100)).build())
                     .failIfNotConnected(true).build()) {
            TypesService s = client.proxy(TypesService.class);
            assertEquals("first", s.echo("first"));
            // The server closes the idle connection (no heartbeat comes in time); the client reconnects.
            Await.until(() -> !client.isConnected(), Duration.ofSeconds(10), "the server dropped the idle connection");
            Await.until(client::isConnected, Duration.ofSeconds(10), "the client reconnected");
            assertEquals("second", s.echo("second"));
            assertEquals(0, client.pendingCalls());
        }
    }
}
