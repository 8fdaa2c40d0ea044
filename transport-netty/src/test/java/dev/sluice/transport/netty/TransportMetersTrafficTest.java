package dev.sluice.transport.netty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.transport.Connection;
import dev.sluice.transport.PendingBytesExceededException;
import dev.sluice.transport.TransportHandler;
import dev.sluice.transport.TransportOptions;
import dev.sluice.transport.micrometer.MicrometerTransportObserver;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The transport meters that only move under trouble (refusals over the pending-bytes cap, unwritable periods, drains
 * that stop at their chunk bound, decode errors, reconnects), each forced by real traffic and counted against it, with
 * the matching JFR events where there is one.
 */
@Timeout(60)
class TransportMetersTrafficTest {
    private static final int FRAME = 1024 + 4;

    @TempDir
    Path dir;

    private static double counter(MeterRegistry r, String name, String transport) {
        return r.get(name).tag("transport", transport).counter().count();
    }

    private static List<RecordedEvent> events(Path file, String name) throws Exception {
        List<RecordedEvent> found = new ArrayList<>();
        for (RecordedEvent e : RecordingFile.readAllEvents(file)) {
            if (e.getEventType().getName().equals(name)) {
                found.add(e);
            }
        }
        return found;
    }

    /**
     * A peer that accepts and does not read: the socket buffers fill, the channel goes unwritable, the queue grows to
     * the cap, and sends are refused. Then the peer reads everything: every accepted frame arrives, the unwritable
     * period ends and is timed.
     */
    @Test
    void aPeerThatStopsReadingMakesRefusalsOverTheCapAndAnUnwritablePeriod() throws Exception {
        MeterRegistry registry = new SimpleMeterRegistry();
        long cap = 64 * 1024;
        TransportOptions options = TransportOptions.builder().reconnect(false).pendingBytesCap(cap)
                .socketBuffers(4096, 4096).writeBufferWaterMarks(4096, 8192)
                .observer(MicrometerTransportObserver.create(registry, "client")).build();
        byte[] payload = new byte[1024];
        Path file = dir.resolve("stalled.jfr");
        // The connect future completes before the channel is active (and its pending bytes are in the gauge).
        CountDownLatch active = new CountDownLatch(1);
        TransportHandler handler = new TransportHandler() {
            @Override
            public void connected(Connection connection) {
                active.countDown();
            }

            @Override
            public void received(Connection connection, Object message) {
                ((ByteBuf) message).release();
            }
        };
        try (ServerSocket peer = new ServerSocket()) {
            peer.setReceiveBufferSize(4096);
            peer.bind(new InetSocketAddress("127.0.0.1", 0));
            List<CompletableFuture<Void>> accepted = new ArrayList<>();
            int refused = 0;
            try (Recording recording = new Recording()) {
                recording.enable("dev.sluice.PendingBytesExceeded");
                recording.enable("dev.sluice.Unwritable");
                recording.start();
                try (NettyClientTransport client = NettyClientTransport.builder()
                        .remote("127.0.0.1", peer.getLocalPort()).options(options).codec(TestFrames.INSTANCE)
                        .handler(handler).build();
                     Socket server = connectAndAccept(client, peer)) {
                    Connection c = client.connect().get(10, TimeUnit.SECONDS);
                    assertTrue(active.await(10, TimeUnit.SECONDS));
                    // At most the cap plus what the kernel buffers (a few MB at most on loopback) is accepted.
                    for (int i = 0; i < 20_000 && refused < 3; i++) {
                        try {
                            accepted.add(c.send(payload));
                        } catch (PendingBytesExceededException e) {
                            refused++;
                        }
                    }
                    assertEquals(3, refused, "the cap refused sends once the peer stopped reading");
                    double pending = registry.get("sluice.transport.write.pending").tag("transport", "client")
                            .gauge().value();
                    // The socket may still take some of it between the refusal and this read; never more than the cap.
                    assertTrue(pending > 0 && pending <= cap, "pending bytes under the cap: " + pending);
                    assertEquals(3, counter(registry, "sluice.transport.write.refused", "client"));

                    // The peer reads again: every accepted frame arrives, whole.
                    long expected = (long) accepted.size() * FRAME;
                    assertEquals(expected, readFully(server.getInputStream(), expected));
                    CompletableFuture.allOf(accepted.toArray(new CompletableFuture[0])).get(30, TimeUnit.SECONDS);
                    loopRoundTrip(c);
                    assertEquals(accepted.size(), counter(registry, "sluice.transport.frames.sent", "client"));
                    assertEquals(expected, counter(registry, "sluice.transport.data.sent", "client"));
                    assertEquals(0, registry.get("sluice.transport.write.pending").tag("transport", "client")
                            .gauge().value(), "everything accepted left");
                    Timer unwritable = registry.get("sluice.transport.unwritable").tag("transport", "client").timer();
                    assertTrue(unwritable.count() >= 1, "the full socket made the channel unwritable");
                    assertTrue(unwritable.totalTime(TimeUnit.NANOSECONDS) > 0);
                    recording.stop();
                    recording.dump(file);
                    List<RecordedEvent> unwritableEvents = events(file, "dev.sluice.Unwritable");
                    assertEquals(unwritable.count(), unwritableEvents.size(), "one event per timed period");
                }
            }
            List<RecordedEvent> exceeded = events(file, "dev.sluice.PendingBytesExceeded");
            assertEquals(refused, exceeded.size(), exceeded.toString());
            for (RecordedEvent e : exceeded) {
                assertEquals(cap, e.getLong("cap"));
                // Charged what the frame holds: at least its bytes plus the per-frame overhead.
                assertTrue(e.getLong("frameBytes") >= FRAME + WriteQueue.FRAME_OVERHEAD, e.toString());
                assertTrue(e.getLong("pendingBytes") + e.getLong("frameBytes") > cap, e.toString());
                assertTrue(e.getString("channel").contains(":" + peer.getLocalPort()), e.toString());
            }
        }
    }

    /**
     * Returns once a task on the connection's event loop ran: a write's future completes during the flush, and the
     * drain task that flushed reports its batch to the observer right after; this waits for that task to end.
     */
    private static void loopRoundTrip(Connection c) throws Exception {
        CompletableFuture.runAsync(() -> { }, c.executor()).get(10, TimeUnit.SECONDS);
    }

    private static Socket connectAndAccept(NettyClientTransport client, ServerSocket peer) throws Exception {
        client.connect().get(10, TimeUnit.SECONDS);
        return peer.accept();
    }

    private static long readFully(InputStream in, long expected) throws Exception {
        byte[] buf = new byte[64 * 1024];
        long total = 0;
        while (total < expected) {
            int n = in.read(buf);
            if (n < 0) {
                break;
            }
            total += n;
        }
        return total;
    }

    /**
     * With the client's event loop held, 40 frames queue up; released, a drain of at most 8 frames writes them in 5
     * writes, 4 of which stopped at the bound with more queued. Each frame's queue wait covers the hold.
     */
    @Test
    void drainsThatStopAtTheChunkBoundAreCountedAndBatchesAddUpToTheFrames() throws Exception {
        MeterRegistry registry = new SimpleMeterRegistry();
        TransportOptions clientOptions = TransportOptions.builder().reconnect(false).drainChunk(8, 1 << 20)
                .observer(MicrometerTransportObserver.create(registry, "client")).build();
        TransportOptions serverOptions = TransportOptions.builder()
                .observer(MicrometerTransportObserver.create(registry, "server")).build();
        int frames = 40;
        CountDownLatch echoed = new CountDownLatch(frames);
        try (NettyServerTransport server = NettyServerTransport.builder().port(0).codec(TestFrames.INSTANCE)
                .options(serverOptions).handler(new TransportTest.EchoHandler()).bind();
             NettyClientTransport client = NettyClientTransport.builder().remote("127.0.0.1", server.port())
                     .options(clientOptions).codec(TestFrames.INSTANCE).handler((c, m) -> {
                         ((ByteBuf) m).release();
                         echoed.countDown();
                     }).build()) {
            Connection c = client.connect().get(10, TimeUnit.SECONDS);
            CountDownLatch release = new CountDownLatch(1);
            ResourceMetersTest.hold(c.executor(), release);
            List<CompletableFuture<Void>> writes = new ArrayList<>();
            writes.add(c.send("frame-0"));
            long firstQueued = System.nanoTime(); // frame 0 was enqueued before this
            for (int i = 1; i < frames; i++) {
                writes.add(c.send("frame-" + i));
            }
            long heldFor = System.nanoTime() - firstQueued;
            release.countDown();
            CompletableFuture.allOf(writes.toArray(new CompletableFuture[0])).get(10, TimeUnit.SECONDS);
            assertTrue(echoed.await(10, TimeUnit.SECONDS));
            loopRoundTrip(c);

            var perWrite = registry.get("sluice.transport.write.messages").tag("transport", "client").summary();
            assertEquals(5, perWrite.count(), "40 queued frames, at most 8 per write");
            assertEquals(frames, perWrite.totalAmount());
            assertEquals(8, perWrite.max());
            assertEquals(4, counter(registry, "sluice.transport.drain.bound.hits", "client"),
                    "every drain but the last stopped at the bound with frames left");
            Timer wait = registry.get("sluice.transport.queue.wait").tag("transport", "client").timer();
            assertEquals(frames, wait.count());
            assertTrue(wait.max(TimeUnit.NANOSECONDS) >= heldFor, "the first frame waited out the hold");
            assertEquals(frames, counter(registry, "sluice.transport.frames.sent", "client"));
            assertEquals(frames, counter(registry, "sluice.transport.frames.received", "server"));
            assertEquals(counter(registry, "sluice.transport.data.sent", "client"),
                    counter(registry, "sluice.transport.data.received", "server"));
            assertEquals(counter(registry, "sluice.transport.data.sent", "server"),
                    counter(registry, "sluice.transport.data.received", "client"));
            assertEquals(frames, counter(registry, "sluice.transport.frames.received", "client"));
            assertEquals(0, counter(registry, "sluice.transport.drain.bound.hits", "server"));
        }
    }

    /** A frame with a negative length closes the connection: one decode error, and the Disconnect names it. */
    @Test
    void undecodableInputCountsOneDecodeErrorAndClosesTheConnection() throws Exception {
        MeterRegistry registry = new SimpleMeterRegistry();
        TransportOptions options = TransportOptions.builder()
                .observer(MicrometerTransportObserver.create(registry, "server")).build();
        CountDownLatch gone = new CountDownLatch(1);
        TransportHandler handler = new TransportHandler() {
            @Override
            public void received(Connection connection, Object message) {
                ((ByteBuf) message).release();
            }

            @Override
            public void disconnected(Connection connection, Throwable cause) {
                gone.countDown();
            }
        };
        Path file = dir.resolve("decode.jfr");
        try (Recording recording = new Recording()) {
            recording.enable("dev.sluice.Disconnect");
            recording.start();
            try (NettyServerTransport server = NettyServerTransport.builder().port(0).codec(TestFrames.INSTANCE)
                    .options(options).handler(handler).bind();
                 Socket socket = new Socket("127.0.0.1", server.port())) {
                OutputStream out = socket.getOutputStream();
                out.write(new byte[] {0, 0, 0, 2, 'o', 'k'}); // one good frame first
                out.write(new byte[] {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xfe, 1, 2, 3});
                out.flush();
                assertEquals(-1, socket.getInputStream().read(), "the server closed the connection");
                assertTrue(gone.await(10, TimeUnit.SECONDS));
                assertEquals(1, counter(registry, "sluice.transport.decode.errors", "server"));
                assertEquals(1, counter(registry, "sluice.transport.frames.received", "server"));
                assertEquals(13, counter(registry, "sluice.transport.data.received", "server"));
                assertEquals(0, registry.get("sluice.transport.connections").tag("transport", "server").gauge()
                        .value());
            }
            recording.stop();
            recording.dump(file);
        }
        List<RecordedEvent> disconnects = events(file, "dev.sluice.Disconnect");
        assertEquals(1, disconnects.size(), disconnects.toString());
        assertTrue(disconnects.get(0).getString("cause").contains("bad frame length -2"), disconnects.toString());
    }

    /** The server closes the client's connection; the client redials: one reconnect, not two connects. */
    @Test
    void aRedialAfterTheServerClosedIsOneReconnect() throws Exception {
        MeterRegistry registry = new SimpleMeterRegistry();
        CountDownLatch second = new CountDownLatch(2);
        TransportHandler closeOnBye = (connection, message) -> {
            ((ByteBuf) message).release();
            connection.close();
        };
        TransportOptions clientOptions = TransportOptions.builder().reconnect(true)
                .reconnectBackoff(Duration.ofMillis(10), Duration.ofMillis(100))
                .observer(MicrometerTransportObserver.create(registry, "client")).build();
        try (NettyServerTransport server = NettyServerTransport.builder().port(0).codec(TestFrames.INSTANCE)
                .handler(closeOnBye).bind();
             NettyClientTransport client = NettyClientTransport.builder().remote("127.0.0.1", server.port())
                     .options(clientOptions).codec(TestFrames.INSTANCE).handler(new TransportHandler() {
                         @Override
                         public void connected(Connection connection) {
                             second.countDown();
                         }

                         @Override
                         public void received(Connection connection, Object message) {
                             ((ByteBuf) message).release();
                         }
                     }).build()) {
            Connection first = client.connect().get(10, TimeUnit.SECONDS);
            assertEquals(0, counter(registry, "sluice.transport.reconnects", "client"));
            first.send("bye").get(10, TimeUnit.SECONDS);
            assertTrue(second.await(20, TimeUnit.SECONDS), "the client redialled");
            // the handler hears of the new channel (channelActive) before the transport's connect listener counts
            // the reconnect, so the count may lag the latch by a moment
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (counter(registry, "sluice.transport.reconnects", "client") < 1 && System.nanoTime() < deadline) {
                LockSupport.parkNanos(1_000_000); // a poll, not synchronisation
            }
            assertEquals(1, counter(registry, "sluice.transport.reconnects", "client"));
            assertEquals(1, registry.get("sluice.transport.connections").tag("transport", "client").gauge()
                    .value());
        }
    }

    /**
     * Meters carry one tag, the transport's name: 20 connections from 20 ports add no meter and no tag value; a
     * transport registers the same 14 meters whatever its traffic.
     */
    @Test
    void manyConnectionsAddNoMeterAndNoTagValue() throws Exception {
        MeterRegistry registry = new SimpleMeterRegistry();
        TransportOptions serverOptions = TransportOptions.builder()
                .observer(MicrometerTransportObserver.create(registry, "server")).build();
        int registered = registry.getMeters().size();
        try (NettyServerTransport server = NettyServerTransport.builder().port(0).codec(TestFrames.INSTANCE)
                .options(serverOptions).handler(new TransportTest.EchoHandler()).bind()) {
            List<NettyClientTransport> clients = new ArrayList<>();
            try {
                for (int i = 0; i < 20; i++) {
                    CountDownLatch echoed = new CountDownLatch(1);
                    NettyClientTransport client = NettyClientTransport.builder().remote("127.0.0.1", server.port())
                            .options(TransportOptions.builder().reconnect(false).build())
                            .codec(TestFrames.INSTANCE).handler((c, m) -> {
                                ((ByteBuf) m).release();
                                echoed.countDown();
                            }).build();
                    clients.add(client);
                    client.connect().get(10, TimeUnit.SECONDS).send("x" + i).get(10, TimeUnit.SECONDS);
                    assertTrue(echoed.await(10, TimeUnit.SECONDS));
                }
                assertEquals(20, registry.get("sluice.transport.connections").gauge().value());
            } finally {
                for (NettyClientTransport c : clients) {
                    c.close();
                }
            }
        }
        assertEquals(20, counter(registry, "sluice.transport.frames.received", "server"));
        Set<String> tagValues = new HashSet<>();
        int transportMeters = 0;
        for (Meter m : registry.getMeters()) {
            if (m.getId().getName().startsWith("netty.")) {
                continue; // the loops' and the allocator's (ResourceMetersTest): one set per loop and allocator
            }
            transportMeters++;
            assertEquals(1, m.getId().getTags().size(), m.getId().toString());
            tagValues.add(m.getId().getTag("transport"));
        }
        assertEquals(Set.of("server"), tagValues);
        assertEquals(14, registered, "a fixed set of meters per transport name");
        assertEquals(registered, transportMeters, "traffic added no meter");
    }
}
