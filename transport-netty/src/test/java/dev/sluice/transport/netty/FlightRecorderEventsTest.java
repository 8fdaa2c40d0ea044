package dev.sluice.transport.netty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.transport.Connection;
import dev.sluice.transport.TransportHandler;
import dev.sluice.transport.TransportOptions;
import io.netty.buffer.ByteBuf;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import jdk.jfr.Configuration;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The transport's JFR events, recorded from real loopback traffic with the {@code sluice.jfc} this module ships
 * ({@code dev/sluice/transport/jfr/sluice.jfc} on the class path, in the jar) and read back: batch sizes add up to
 * the frames sent, bytes to the bytes sent, on both sides.
 */
@Timeout(60)
class FlightRecorderEventsTest {
    private static final String JFC = "/dev/sluice/transport/jfr/sluice.jfc";
    private static final int THREADS = 4;
    private static final int PER_THREAD = 500;
    private static final String PAYLOAD = "0123456789abcdef0123456789abcdef"; // 32 bytes, frame 36

    @TempDir
    Path dir;

    @Test
    void writeBatchEventsAddUpToTheFramesAndBytesWrittenOnBothSides() throws Exception {
        Configuration settings;
        try (InputStream in = FlightRecorderEventsTest.class.getResourceAsStream(JFC)) {
            assertNotNull(in, JFC + " is on the class path (transport-netty's src/main/resources)");
            settings = Configuration.create(new InputStreamReader(in, StandardCharsets.UTF_8));
        }
        int total = THREADS * PER_THREAD;
        CountDownLatch echoed = new CountDownLatch(total);
        TransportHandler countEchoes = (c, m) -> {
            ((ByteBuf) m).release();
            echoed.countDown();
        };
        List<RecordedEvent> events;
        int serverPort;
        try (Recording recording = new Recording(settings)) {
            recording.start();
            try (NettyServerTransport server = NettyServerTransport.builder().port(0).codec(TestFrames.INSTANCE)
                    .handler(new TransportTest.EchoHandler()).bind();
                 NettyClientTransport client = NettyClientTransport.builder().remote("127.0.0.1", server.port())
                         .options(TransportOptions.builder().reconnect(false).build())
                         .codec(TestFrames.INSTANCE).handler(countEchoes).build()) {
                serverPort = server.port();
                Connection c = client.connect().get(10, TimeUnit.SECONDS);
                ExecutorService pool = Executors.newFixedThreadPool(THREADS);
                try {
                    List<Future<?>> done = new ArrayList<>();
                    for (int t = 0; t < THREADS; t++) {
                        done.add(pool.submit(() -> {
                            List<CompletableFuture<Void>> writes = new ArrayList<>();
                            for (int i = 0; i < PER_THREAD; i++) {
                                writes.add(c.send(PAYLOAD));
                            }
                            CompletableFuture.allOf(writes.toArray(new CompletableFuture[0])).join();
                            return null;
                        }));
                    }
                    for (Future<?> f : done) {
                        f.get(30, TimeUnit.SECONDS);
                    }
                } finally {
                    pool.shutdown();
                }
                assertTrue(echoed.await(30, TimeUnit.SECONDS), "every frame echoed");
            }
            recording.stop();
            Path file = dir.resolve("sluice.jfr");
            recording.dump(file);
            events = RecordingFile.readAllEvents(file);
        }
        String toServer = ":" + serverPort + "]";
        long clientMessages = 0;
        long clientBytes = 0;
        long serverMessages = 0;
        long serverBytes = 0;
        boolean waitSeen = false;
        int connects = 0;
        int disconnects = 0;
        for (RecordedEvent e : events) {
            String name = e.getEventType().getName();
            if (name.equals("dev.sluice.Connect")) {
                connects++;
            } else if (name.equals("dev.sluice.Disconnect")) {
                disconnects++;
            }
            if (!name.equals("dev.sluice.WriteBatch")) {
                continue;
            }
            int messages = e.getInt("messages");
            long bytes = e.getLong("bytes");
            assertTrue(messages > 0, "a batch carries at least one frame: " + e);
            assertEquals(messages * 36L, bytes, "bytes are the frames' bytes: " + e);
            String channel = e.getString("channel");
            if (channel.endsWith(toServer)) {
                // The client sends from application threads: every frame goes through the queue.
                assertFalse(e.getBoolean("direct"), e.toString());
                clientMessages += messages;
                clientBytes += bytes;
                waitSeen |= e.getLong("oldestWait") > 0;
            } else {
                serverMessages += messages;
                serverBytes += bytes;
            }
        }
        assertEquals(total, clientMessages, "client batches add up to the frames sent");
        assertEquals(total * 36L, clientBytes);
        assertEquals(total, serverMessages, "server batches add up to the echoes written");
        assertEquals(total * 36L, serverBytes);
        assertTrue(waitSeen, "queued frames carry their wait");
        assertEquals(2, connects, "client and server side connected");
        assertEquals(2, disconnects, "client and server side disconnected");
    }

    @Test
    void unwritablePeriodsAreRecordedWithTheirDuration() throws Exception {
        Path file = dir.resolve("unwritable.jfr");
        CountDownLatch echoed = new CountDownLatch(20);
        try (Recording recording = new Recording()) {
            recording.enable("dev.sluice.Unwritable");
            recording.start();
            // A high water mark below one frame: each write takes the channel over it until the socket has it.
            TransportOptions options = TransportOptions.builder().reconnect(false).writeBufferWaterMarks(1, 2)
                    .build();
            try (NettyServerTransport server = NettyServerTransport.builder().port(0).codec(TestFrames.INSTANCE)
                    .handler(new TransportTest.EchoHandler()).bind();
                 NettyClientTransport client = NettyClientTransport.builder().remote("127.0.0.1", server.port())
                         .options(options).codec(TestFrames.INSTANCE).handler((c, m) -> {
                             ((ByteBuf) m).release();
                             echoed.countDown();
                         }).build()) {
                Connection c = client.connect().get(10, TimeUnit.SECONDS);
                for (int i = 0; i < 20; i++) {
                    c.send(PAYLOAD).get(10, TimeUnit.SECONDS);
                }
                assertTrue(echoed.await(30, TimeUnit.SECONDS));
            }
            recording.stop();
            recording.dump(file);
        }
        List<RecordedEvent> unwritable = new ArrayList<>();
        for (RecordedEvent e : RecordingFile.readAllEvents(file)) {
            if (e.getEventType().getName().equals("dev.sluice.Unwritable")) {
                unwritable.add(e);
            }
        }
        assertFalse(unwritable.isEmpty(), "20 writes over the high water mark make unwritable periods");
        for (RecordedEvent e : unwritable) {
            assertFalse(e.getDuration().isNegative(), e.toString());
            assertTrue(e.getString("channel").contains("127.0.0.1"), e.toString());
        }
    }
}
