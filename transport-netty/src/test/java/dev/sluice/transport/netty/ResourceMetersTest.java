package dev.sluice.transport.netty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.transport.Connection;
import dev.sluice.transport.TransportHandler;
import dev.sluice.transport.TransportOptions;
import dev.sluice.transport.micrometer.MicrometerTransportObserver;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.concurrent.EventExecutor;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The gauges of what a transport runs on and of its connections' health, from real transports: the event loops'
 * queued tasks and the allocator's memory (under Micrometer's Netty meter names), and the count of stalled
 * connections as stall detection marks and clears them.
 */
@Timeout(60)
class ResourceMetersTest {
    /**
     * Holds {@code loop} with a task that waits for {@code release} (at most 10 s); returns once it holds, with the
     * loop's thread name.
     */
    static String hold(Executor loop, CountDownLatch release) throws InterruptedException {
        CountDownLatch held = new CountDownLatch(1);
        AtomicReference<String> thread = new AtomicReference<>();
        loop.execute(() -> {
            thread.set(Thread.currentThread().getName());
            held.countDown();
            try {
                release.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        assertTrue(held.await(10, TimeUnit.SECONDS), "the loop runs the holding task");
        return thread.get();
    }

    /** Runs a task on each loop of {@code loops} and waits for all: every task queued before has run. */
    private static void drain(Iterable<EventExecutor> loops) throws Exception {
        List<CompletableFuture<Void>> done = new ArrayList<>();
        for (EventExecutor loop : loops) {
            done.add(CompletableFuture.runAsync(() -> { }, loop));
        }
        CompletableFuture.allOf(done.toArray(new CompletableFuture[0])).get(10, TimeUnit.SECONDS);
    }

    /**
     * A server on two loops and a client on one, both observed: each loop has a
     * {@code netty.eventexecutor.tasks.pending} gauge named after its thread, which counts the tasks queued behind a
     * held loop, and is removed when the loop terminates; the pooled allocator's used direct memory is the
     * allocator's own figure.
     */
    @Test
    void theLoopsAndTheAllocatorATransportRunsOnAreMetered() throws Exception {
        MeterRegistry registry = new SimpleMeterRegistry();
        CountDownLatch echoed = new CountDownLatch(1);
        NettyServerTransport server = NettyServerTransport.builder().port(0).codec(TestFrames.INSTANCE)
                .options(TransportOptions.builder().ioThreads(2)
                        .observer(MicrometerTransportObserver.create(registry, "server")).build())
                .handler(new TransportTest.EchoHandler()).bind();
        try (NettyClientTransport client = NettyClientTransport.builder().remote("127.0.0.1", server.port())
                .options(TransportOptions.builder().ioThreads(1).reconnect(false)
                        .observer(MicrometerTransportObserver.create(registry, "client")).build())
                .codec(TestFrames.INSTANCE).handler((c, m) -> {
                    ((ByteBuf) m).release();
                    echoed.countDown();
                }).build()) {
            client.connect().get(10, TimeUnit.SECONDS).send("hello").get(10, TimeUnit.SECONDS);
            assertTrue(echoed.await(10, TimeUnit.SECONDS));
            drain(server.eventLoops().group());
            drain(client.eventLoops().group());

            List<String> names = new ArrayList<>();
            for (Gauge g : registry.find("netty.eventexecutor.tasks.pending").gauges()) {
                names.add(g.getId().getTag("name"));
            }
            assertEquals(3, names.size(), names.toString());
            assertEquals(2, names.stream().filter(n -> n.startsWith("sluice-server-")).count(), names.toString());
            assertEquals(1, names.stream().filter(n -> n.startsWith("sluice-client-")).count(), names.toString());

            // A held server loop: tasks queued behind it are what its gauge reads.
            EventExecutor loop = server.eventLoops().group().next();
            CountDownLatch release = new CountDownLatch(1);
            String thread = hold(loop, release);
            List<CompletableFuture<Void>> queued = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                queued.add(CompletableFuture.runAsync(() -> { }, loop));
            }
            Gauge pending = registry.get("netty.eventexecutor.tasks.pending").tag("name", thread).gauge();
            assertTrue(pending.value() >= 5, "the five tasks queued behind the held loop: " + pending.value());
            release.countDown();
            CompletableFuture.allOf(queued.toArray(new CompletableFuture[0])).get(10, TimeUnit.SECONDS);

            PooledByteBufAllocator allocator = PooledByteBufAllocator.DEFAULT;
            Gauge direct = registry.get("netty.allocator.memory.used").tags("memory.type", "direct",
                    "allocator.type", "PooledByteBufAllocator", "id", String.valueOf(allocator.hashCode())).gauge();
            assertTrue(direct.value() > 0, "the frames came from pooled direct memory");
            assertEquals(allocator.metric().usedDirectMemory(), direct.value());
            assertEquals(allocator.metric().chunkSize(),
                    registry.get("netty.allocator.pooled.chunk.size").gauge().value());

            // The server's loops terminate with it: their gauges go, the client's stays.
            CountDownLatch terminated = new CountDownLatch(2);
            for (EventExecutor l : server.eventLoops().group()) {
                l.terminationFuture().addListener(f -> terminated.countDown()); // after the gauge's own listener
            }
            server.close();
            assertTrue(terminated.await(20, TimeUnit.SECONDS));
            for (String name : names) {
                Gauge g = registry.find("netty.eventexecutor.tasks.pending").tag("name", name).gauge();
                if (name.startsWith("sluice-server-")) {
                    assertNull(g, name + " is gone with its loop");
                } else {
                    assertTrue(g != null, name + " still runs");
                }
            }
        } finally {
            server.close();
        }
    }

    /** Answers frames only while {@link #answering}; keeps the last connection so a test can speak first. */
    static final class Quiet implements TransportHandler {
        final AtomicBoolean answering = new AtomicBoolean();
        final AtomicReference<Connection> last = new AtomicReference<>();

        @Override
        public void connected(Connection connection) {
            last.set(connection);
        }

        @Override
        public void received(Connection connection, Object message) {
            ((ByteBuf) message).release();
            if (answering.get()) {
                connection.send("ok".getBytes(StandardCharsets.US_ASCII), null);
            }
        }
    }

    /**
     * A server that stops answering: the client's connection is marked stalled and the gauge reads 1; the server
     * speaks, the mark clears and the gauge reads 0; stalled again and then closed, the gauge reads 0.
     */
    @Test
    void stalledConnectionsAreCountedWhileMarkedAndNotOnceClosed() throws Exception {
        MeterRegistry registry = new SimpleMeterRegistry();
        Quiet serverSide = new Quiet();
        CountDownLatch[] marked = {new CountDownLatch(1), new CountDownLatch(1)};
        CountDownLatch cleared = new CountDownLatch(1);
        CountDownLatch gone = new CountDownLatch(1);
        TransportHandler clientSide = new TransportHandler() {
            private int marks;

            @Override
            public void disconnected(Connection connection, Throwable cause) {
                gone.countDown(); // after the observer heard of the close
            }

            @Override
            public void received(Connection connection, Object message) {
                ((ByteBuf) message).release();
            }

            @Override
            public boolean probe(Connection connection) {
                connection.send("probe".getBytes(StandardCharsets.US_ASCII), null);
                return true;
            }

            @Override
            public void stallChanged(Connection connection, boolean stalled) {
                if (stalled) {
                    marked[Math.min(marks++, 1)].countDown();
                } else {
                    cleared.countDown();
                }
            }
        };
        try (NettyServerTransport server = NettyServerTransport.builder().port(0).codec(TestFrames.INSTANCE)
                .handler(serverSide).bind();
             NettyClientTransport client = NettyClientTransport.builder().remote("127.0.0.1", server.port())
                     .options(TransportOptions.builder().reconnect(false).stallTimeout(Duration.ofMillis(100))
                             .observer(MicrometerTransportObserver.create(registry, "client")).build())
                     .codec(TestFrames.INSTANCE).handler(clientSide).build()) {
            Gauge stalled = registry.get("sluice.transport.connections.stalled").tag("transport", "client").gauge();
            Connection c = client.connect().get(10, TimeUnit.SECONDS);
            assertEquals(0, stalled.value());
            c.send("hello").get(10, TimeUnit.SECONDS);
            assertTrue(marked[0].await(10, TimeUnit.SECONDS), "the silent server's connection was marked stalled");
            assertEquals(1, stalled.value());

            serverSide.last.get().send("wake up".getBytes(StandardCharsets.US_ASCII)).get(10, TimeUnit.SECONDS);
            assertTrue(cleared.await(10, TimeUnit.SECONDS), "a byte read clears the mark");
            assertEquals(0, stalled.value());

            c.send("again").get(10, TimeUnit.SECONDS);
            assertTrue(marked[1].await(10, TimeUnit.SECONDS), "stalled again");
            assertEquals(1, stalled.value());
            c.close(Duration.ZERO).get(10, TimeUnit.SECONDS);
            assertTrue(gone.await(10, TimeUnit.SECONDS));
            assertEquals(0, stalled.value(), "a closed connection is not a stalled one");
        }
    }
}
