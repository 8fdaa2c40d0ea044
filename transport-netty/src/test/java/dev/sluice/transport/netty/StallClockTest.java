package dev.sluice.transport.netty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.transport.Connection;
import dev.sluice.transport.NativeTransport;
import dev.sluice.transport.TransportHandler;
import dev.sluice.transport.TransportOptions;
import dev.sluice.transport.WriteListener;
import io.netty.buffer.ByteBuf;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * docs/reliability.md D22a: the stall clock counts the peer's silence only while our bytes are not moving towards
 * it. A large request uploaded through a slow but live path takes many stall timeouts; the server answers every
 * probe once the upload is through, and the connection is never marked stalled.
 */
@Timeout(120)
class StallClockTest {
    /** Answers every frame it reads with a small frame, on the event loop (as a server answers heartbeats). */
    static final class Answering implements TransportHandler {
        final AtomicInteger read = new AtomicInteger();

        @Override
        public void received(Connection connection, Object message) {
            ((ByteBuf) message).release();
            read.incrementAndGet();
            connection.send("ok".getBytes(java.nio.charset.StandardCharsets.US_ASCII), null);
        }
    }

    /** Client side: a probe is a small frame the server answers; records every stall change. */
    static final class Probing implements TransportHandler {
        final AtomicInteger stalledMarks = new AtomicInteger();
        final AtomicInteger probes = new AtomicInteger();
        final AtomicInteger answers = new AtomicInteger();

        @Override
        public void received(Connection connection, Object message) {
            ((ByteBuf) message).release();
            answers.incrementAndGet();
        }

        @Override
        public boolean probe(Connection connection) {
            probes.incrementAndGet();
            connection.send("probe".getBytes(java.nio.charset.StandardCharsets.US_ASCII), null);
            return true;
        }

        @Override
        public void stallChanged(Connection connection, boolean stalled) {
            if (stalled) {
                stalledMarks.incrementAndGet();
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = NativeTransport.class, names = {"NIO", "EPOLL"})
    void aSlowUploadThroughALivePathIsNotAStall(NativeTransport kind) throws Exception {
        TransportTest.assumeAvailable(kind);
        Duration stall = Duration.ofMillis(300);
        long rate = 256 * 1024; // bytes a second: the ~1 MiB upload takes about 4 s, over ten stall timeouts
        Answering serverSide = new Answering();
        Probing clientSide = new Probing();
        try (NettyServerTransport server = NettyServerTransport.builder().port(0)
                .options(TransportOptions.builder().nativeTransport(kind).build())
                .codec(TestFrames.INSTANCE).handler(serverSide).bind();
             PausableProxy path = new PausableProxy(new InetSocketAddress("127.0.0.1", server.port()), 8 * 1024, rate);
             NettyClientTransport client = NettyClientTransport.builder().remote("127.0.0.1", path.port())
                     .options(TransportOptions.builder().nativeTransport(kind).stallTimeout(stall)
                             .socketBuffers(8 * 1024, 0).build())
                     .codec(TestFrames.INSTANCE).handler(clientSide).build()) {
            Connection c = client.connect().get(10, TimeUnit.SECONDS);
            byte[] upload = new byte[TestFrames.MAX_FRAME - 4];
            CountDownLatch written = new CountDownLatch(1);
            CompletableFuture<Void> failed = new CompletableFuture<>();
            long start = System.nanoTime();
            c.send(upload, new WriteListener() {
                @Override
                public void onWritten() {
                    written.countDown();
                }

                @Override
                public void onWriteFailed(Throwable cause) {
                    failed.completeExceptionally(cause);
                    written.countDown();
                }
            });
            assertTrue(written.await(60, TimeUnit.SECONDS), "the upload reached the socket");
            // The server has the upload once it answered it: then every probe sent meanwhile is answered as well.
            Await.until(() -> serverSide.read.get() >= 1 + clientSide.probes.get()
                    && clientSide.answers.get() >= serverSide.read.get(), Duration.ofSeconds(60));
            long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            System.out.printf("%s: a %d KiB upload at %d KiB/s took %d ms (stall timeout %d ms); probes %d, marked"
                    + " stalled %d times%n", kind, upload.length / 1024, rate / 1024, tookMillis, stall.toMillis(),
                    clientSide.probes.get(), clientSide.stalledMarks.get());
            assertTrue(tookMillis > 2 * stall.toMillis(), "the upload took longer than two stall timeouts");
            assertEquals(0, clientSide.stalledMarks.get(), "a live server behind a slow upload is never stalled");
            assertTrue(!c.isStalled());
        }
    }

    /** Waits for a condition by polling; fails with its description after {@code limit}. */
    private static final class Await {
        static void until(java.util.function.BooleanSupplier condition, Duration limit) {
            long deadline = System.nanoTime() + limit.toNanos();
            while (!condition.getAsBoolean()) {
                assertTrue(System.nanoTime() < deadline, "not within " + limit.toMillis() + " ms");
                java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
            }
        }
    }
}
