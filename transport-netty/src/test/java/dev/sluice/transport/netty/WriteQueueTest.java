package dev.sluice.transport.netty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.transport.ConnectionClosedException;
import dev.sluice.transport.PendingBytesExceededException;
import dev.sluice.transport.TransportOptions;
import dev.sluice.transport.WriteListener;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.ChannelPromise;
import io.netty.channel.DefaultEventLoop;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.IllegalReferenceCountException;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The WriteQueue's contract (docs/reliability.md B10–B16), on a real event loop: one write and one flush per drained
 * chunk, bounded chunks, per-producer order, per-message failures, batch-owned listeners, re-entrancy, close.
 */
@Timeout(60)
class WriteQueueTest {
    private static final PooledByteBufAllocator ALLOC = PooledByteBufAllocator.DEFAULT;
    private LocalPair pair;

    private LocalPair open(TransportOptions options) {
        pair = new LocalPair(options);
        pair.recorder.reset();
        return pair;
    }

    private LocalPair open() {
        return open(TransportOptions.builder().drainChunk(128, 256 * 1024).build());
    }

    @AfterEach
    void close() {
        if (pair != null) {
            pair.close();
        }
    }

    @Test
    void oneWriteOneFlush() throws Exception {
        LocalPair p = open();
        Probe probe = new Probe();
        p.queue().enqueue(TestFrames.frame(ALLOC, 1, 0, 0), probe);
        p.awaitReceived(1);
        p.sync();
        assertEquals(1, p.recorder.writes.get());
        assertEquals(1, p.recorder.flushes.get());
        assertEquals(1, probe.written.getCount() == 0 ? 1 : 0, "listener completed");
    }

    @Test
    void nWritesBeforeDrainAreOneWriteAndOneFlush() throws Exception {
        LocalPair p = open();
        CountDownLatch gate = p.blockLoop();
        List<Probe> probes = enqueue(p, 50, 0);
        gate.countDown();
        p.awaitReceived(50);
        p.sync();
        assertEquals(1, p.recorder.writes.get(), "one write for the whole batch");
        assertEquals(1, p.recorder.flushes.get(), "one flush for the whole batch");
        assertEquals(50, p.recorder.framesPerWrite.peek());
        for (Probe probe : probes) {
            assertTrue(probe.written.await(5, TimeUnit.SECONDS));
        }
        assertInOrder(p, 50);
    }

    @Test
    void gatherModeWritesEachFrameButStillFlushesOncePerBatch() throws Exception {
        LocalPair p = open(TransportOptions.builder().batchWrite(dev.sluice.transport.BatchWrite.GATHER).build());
        CountDownLatch gate = p.blockLoop();
        List<Probe> probes = enqueue(p, 20, 0);
        gate.countDown();
        p.awaitReceived(20);
        p.sync();
        assertEquals(20, p.recorder.writes.get());
        assertEquals(1, p.recorder.flushes.get());
        for (Probe probe : probes) {
            assertTrue(probe.written.await(5, TimeUnit.SECONDS));
        }
        assertInOrder(p, 20);
    }

    @Test
    void fullChunkPlusTenIsTwoFlushes() throws Exception {
        LocalPair p = open();
        CountDownLatch gate = p.blockLoop();
        enqueue(p, 138, 0);
        gate.countDown();
        p.awaitReceived(138);
        p.sync();
        assertEquals(2, p.recorder.flushes.get());
        assertEquals(List.of(128, 10), new ArrayList<>(p.recorder.framesPerWrite));
        assertInOrder(p, 138);
    }

    @Test
    void chunkIsAlsoBoundedByBytes() throws Exception {
        LocalPair p = open(TransportOptions.builder().drainChunk(128, 1000).build());
        CountDownLatch gate = p.blockLoop();
        enqueue(p, 8, 288); // 300-byte frames: 4 fit below the 1000-byte bound per chunk
        gate.countDown();
        p.awaitReceived(8);
        p.sync();
        assertEquals(List.of(4, 4), new ArrayList<>(p.recorder.framesPerWrite));
        assertEquals(2, p.recorder.flushes.get());
    }

    @Test
    void concurrentProducersKeepOrderAndWriteEverythingOnce() throws Exception {
        LocalPair p = open(TransportOptions.builder().drainChunk(64, 64 * 1024).build());
        int producers = 8;
        int perProducer = 5_000;
        ExecutorService pool = Executors.newFixedThreadPool(producers);
        CyclicBarrier start = new CyclicBarrier(producers);
        List<Future<List<Probe>>> futures = new ArrayList<>();
        try {
            for (int t = 0; t < producers; t++) {
                int producer = t;
                futures.add(pool.submit(() -> {
                    start.await();
                    List<Probe> probes = new ArrayList<>(perProducer);
                    for (int i = 0; i < perProducer; i++) {
                        Probe probe = new Probe();
                        p.queue().enqueue(TestFrames.frame(ALLOC, producer, i, 0), probe);
                        probes.add(probe);
                    }
                    return probes;
                }));
            }
            List<Probe> all = new ArrayList<>();
            for (Future<List<Probe>> f : futures) {
                all.addAll(f.get(30, TimeUnit.SECONDS));
            }
            p.awaitReceived(producers * perProducer);
            for (Probe probe : all) {
                assertTrue(probe.written.await(10, TimeUnit.SECONDS), "every listener completes");
                assertNull(probe.failure.get());
            }
        } finally {
            pool.shutdownNow();
        }
        Map<Integer, Integer> next = new HashMap<>();
        for (int[] frame : p.received) {
            int expected = next.getOrDefault(frame[0], 0);
            assertEquals(expected, frame[1], "producer " + frame[0] + " out of order");
            next.put(frame[0], expected + 1);
        }
        for (int t = 0; t < producers; t++) {
            assertEquals(perProducer, next.get(t), "producer " + t + " frames written exactly once");
        }
        assertEquals(producers * perProducer, p.receivedCount.get());
        assertEquals(0, p.queue().pendingBytes());
        for (int n : p.recorder.framesPerWrite) {
            assertTrue(n <= 64, "a drain never exceeds its chunk bound, saw " + n);
        }
    }

    @Test
    void failuresInTheMiddleAtTheEndAndAtChunkBoundariesFailOnlyThoseMessages() throws Exception {
        LocalPair p = open();
        CountDownLatch gate = p.blockLoop();
        List<ByteBuf> frames = new ArrayList<>();
        List<Probe> probes = new ArrayList<>();
        for (int i = 0; i < 138; i++) {
            ByteBuf f = TestFrames.frame(ALLOC, 0, i, 0);
            frames.add(f);
            Probe probe = new Probe();
            probes.add(probe);
            p.queue().enqueue(f, probe);
        }
        int[] bad = {64, 65, 127, 128, 137}; // middle (two in a row), end of chunk 1, start of chunk 2, very end
        for (int i : bad) {
            frames.get(i).release(); // invalid by the time the drain gets to it
        }
        gate.countDown();
        p.awaitReceived(138 - bad.length);
        p.sync();
        java.util.Set<Integer> badSet = new java.util.HashSet<>();
        for (int b : bad) {
            badSet.add(b);
        }
        for (int i = 0; i < 138; i++) {
            Probe probe = probes.get(i);
            assertTrue(probe.done.await(5, TimeUnit.SECONDS), "no listener left pending: " + i);
            boolean isBad = badSet.contains(i);
            if (isBad) {
                assertInstanceOf(IllegalReferenceCountException.class, probe.failure.get(), "message " + i);
            } else {
                assertNull(probe.failure.get(), "message " + i + " must be written");
            }
        }
        assertEquals(2, p.recorder.flushes.get());
        assertEquals(138 - bad.length, p.receivedCount.get());
    }

    @Test
    void rejectedDrainFailsAndReleasesEverything() throws Exception {
        DefaultEventLoop deadLoop = new DefaultEventLoop();
        deadLoop.shutdownGracefully(0, 0, TimeUnit.SECONDS).syncUninterruptibly();
        EmbeddedChannel channel = new EmbeddedChannel();
        try {
            WriteQueue q = new WriteQueue(channel, deadLoop, 128, 1 << 20, 1 << 20, dev.sluice.transport.BatchWrite.COMPOSITE);
            ByteBuf frame = TestFrames.frame(ALLOC, 0, 0, 0);
            Probe probe = new Probe();
            q.enqueue(frame, probe);
            assertTrue(probe.done.await(1, TimeUnit.SECONDS));
            assertInstanceOf(ConnectionClosedException.class, probe.failure.get());
            assertTrue(probe.failure.get().getMessage().contains("shut down"), probe.failure.get().getMessage());
            assertEquals(0, frame.refCnt(), "queued frame released");
            assertEquals(0, q.pendingBytes());
            ByteBuf later = TestFrames.frame(ALLOC, 0, 1, 0);
            assertThrows(ConnectionClosedException.class, () -> q.enqueue(later, new Probe()));
            assertEquals(0, later.refCnt(), "a refused frame is released too");
        } finally {
            channel.finishAndReleaseAll();
        }
    }

    @Test
    void writesOnTheLoopAreWrittenDirectlyAndFlushedOnceAfterTheCurrentTask() throws Exception {
        LocalPair p = open();
        List<Probe> probes = new ArrayList<>();
        int[] flushesSeenInTask = new int[1];
        p.group.next().submit(() -> {
            // As a server answering a read of 20 requests on its loop: 20 direct writes, no flush yet.
            for (int i = 0; i < 20; i++) {
                Probe probe = new Probe();
                probes.add(probe);
                p.queue().enqueue(TestFrames.frame(ALLOC, 0, i, 0), probe);
            }
            flushesSeenInTask[0] = p.recorder.flushes.get();
        }).get(10, TimeUnit.SECONDS);
        p.awaitReceived(20);
        p.sync();
        assertEquals(0, flushesSeenInTask[0], "flushed inside the task that wrote");
        assertEquals(20, p.recorder.writes.get(), "written directly, one write each, not through the queue");
        assertEquals(1, p.recorder.flushes.get(), "one flush for all writes of the task");
        for (Probe probe : probes) {
            assertTrue(probe.written.await(5, TimeUnit.SECONDS));
        }
        assertInOrder(p, 20);
        assertEquals(0, p.queue().pendingBytes());
    }

    @Test
    void closeQueuedAfterAnUnflushedWriteOnTheLoopDoesNotDropIt() throws Exception {
        LocalPair p = open();
        Probe probe = new Probe();
        p.group.next().submit(() -> {
            p.queue().enqueue(TestFrames.frame(ALLOC, 0, 0, 0), probe);
            p.connection.close();
        }).get(10, TimeUnit.SECONDS);
        assertTrue(probe.written.await(5, TimeUnit.SECONDS), "written before the close");
        p.awaitReceived(1);
    }

    @Test
    void writeIssuedFromAWriteListenerIsStillFlushed() throws Exception {
        LocalPair p = open();
        Probe second = new Probe();
        CountDownLatch gate = p.blockLoop();
        p.queue().enqueue(TestFrames.frame(ALLOC, 0, 0, 0), new WriteListener() {
            @Override
            public void onWritten() {
                p.queue().enqueue(TestFrames.frame(ALLOC, 0, 1, 0), second);
            }

            @Override
            public void onWriteFailed(Throwable cause) {
            }
        });
        gate.countDown();
        p.awaitReceived(2);
        assertTrue(second.written.await(5, TimeUnit.SECONDS));
        assertInOrder(p, 2);
    }

    @Test
    void closeWithQueuedMessagesFailsEveryListenerWithTheCloseCauseAndReleasesEveryBuffer() throws Exception {
        LocalPair p = open();
        CountDownLatch gate = p.blockLoop();
        p.group.next().execute(() -> p.client.close()); // runs before the drain task queued below
        List<ByteBuf> frames = new ArrayList<>();
        List<Probe> probes = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            ByteBuf f = TestFrames.frame(ALLOC, 0, i, 0);
            frames.add(f);
            Probe probe = new Probe();
            probes.add(probe);
            p.queue().enqueue(f, probe);
        }
        gate.countDown();
        for (Probe probe : probes) {
            assertTrue(probe.done.await(5, TimeUnit.SECONDS));
            assertInstanceOf(ConnectionClosedException.class, probe.failure.get());
        }
        for (ByteBuf f : frames) {
            assertEquals(0, f.refCnt());
        }
        ByteBuf after = TestFrames.frame(ALLOC, 0, 99, 0);
        ConnectionClosedException e = assertThrows(ConnectionClosedException.class,
                () -> p.queue().enqueue(after, new Probe()));
        assertFalse(e.wasSent());
        assertEquals(0, after.refCnt());
        assertEquals(0, p.queue().pendingBytes());
        assertEquals(0, p.receivedCount.get());
    }

    @Test
    void gracefulCloseWritesEverythingQueuedBeforeIt() throws Exception {
        LocalPair p = open();
        CountDownLatch gate = p.blockLoop();
        List<Probe> probes = enqueue(p, 20, 0);
        p.connection.close();
        ByteBuf late = TestFrames.frame(ALLOC, 0, 20, 0);
        assertThrows(ConnectionClosedException.class, () -> p.queue().enqueue(late, new Probe()));
        assertEquals(0, late.refCnt());
        gate.countDown();
        p.connection.closeFuture().get(5, TimeUnit.SECONDS);
        for (Probe probe : probes) {
            assertTrue(probe.written.await(5, TimeUnit.SECONDS));
        }
        p.awaitReceived(20);
    }

    @Test
    void aBatchsListenersCompleteOnlyWhenItsOwnWriteCompletes() throws Exception {
        LocalPair p = open();
        p.recorder.hold = true;
        CountDownLatch gate = p.blockLoop();
        List<Probe> first = enqueue(p, 5, 0);
        gate.countDown();
        p.sync();
        assertEquals(1, p.recorder.held.size(), "first batch is in flight, held before the socket");
        p.recorder.hold = false;
        List<Probe> second = enqueue(p, 3, 0);
        for (Probe probe : second) {
            assertTrue(probe.written.await(5, TimeUnit.SECONDS), "second batch written");
        }
        for (Probe probe : first) {
            assertEquals(1, probe.done.getCount(), "first batch must not be completed by the second batch's write");
        }
        Object[] held = p.recorder.held.remove(0);
        ReferenceCountUtil.release(held[0]);
        p.group.next().execute(() -> ((ChannelPromise) held[1]).setFailure(new java.io.IOException("boom")));
        for (Probe probe : first) {
            assertTrue(probe.done.await(5, TimeUnit.SECONDS));
            assertEquals("boom", probe.failure.get().getMessage());
        }
        for (Probe probe : second) {
            assertNull(probe.failure.get());
        }
    }

    @Test
    void pendingBytesCapFailsFastWithSizesAndReleases() throws Exception {
        LocalPair p = open(TransportOptions.builder().pendingBytesCap(1000).build());
        CountDownLatch gate = p.blockLoop();
        try {
            for (int i = 0; i < 3; i++) {
                p.queue().enqueue(TestFrames.frame(ALLOC, 0, i, 288), new Probe()); // 300 bytes each
            }
            ByteBuf over = TestFrames.frame(ALLOC, 0, 3, 288);
            PendingBytesExceededException e = assertThrows(PendingBytesExceededException.class,
                    () -> p.queue().enqueue(over, new Probe()));
            assertEquals(0, over.refCnt());
            assertEquals(900, e.pendingBytes());
            assertEquals(300, e.messageBytes());
            assertEquals(1000, e.cap());
            assertTrue(e.getMessage().contains("1000") && e.getMessage().contains("300"), e.getMessage());
        } finally {
            gate.countDown();
        }
        p.awaitReceived(3);
        assertEquals(0, p.queue().pendingBytes());
    }

    @Test
    void concurrentProducersFillTheCapExactlyAndNeverSeeMoreThanItQueued() throws Exception {
        LocalPair p = open(TransportOptions.builder().pendingBytesCap(30_000).build());
        CountDownLatch gate = p.blockLoop();
        int threads = 8;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        java.util.concurrent.atomic.AtomicInteger accepted = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.atomic.AtomicLong worstReported = new java.util.concurrent.atomic.AtomicLong();
        try {
            CyclicBarrier start = new CyclicBarrier(threads);
            List<Future<?>> fs = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                fs.add(pool.submit(() -> {
                    start.await();
                    for (int i = 0; i < 200; i++) { // 8 x 200 x 300 bytes offered against a 30,000-byte cap
                        try {
                            p.queue().enqueue(TestFrames.frame(ALLOC, 0, i, 288), null);
                            accepted.incrementAndGet();
                        } catch (PendingBytesExceededException e) {
                            worstReported.accumulateAndGet(e.pendingBytes(), Math::max);
                            assertTrue(e.pendingBytes() + e.messageBytes() > e.cap(), "refused although it fit");
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : fs) {
                f.get(30, TimeUnit.SECONDS);
            }
            assertEquals(100, accepted.get(), "the cap is filled exactly, by 300-byte frames");
            assertEquals(30_000, p.queue().pendingBytes());
            assertTrue(worstReported.get() <= 30_000, "reported pending bytes above the cap: " + worstReported.get());
        } finally {
            gate.countDown();
            pool.shutdownNow();
        }
        p.awaitReceived(100);
        assertEquals(0, p.queue().pendingBytes());
    }

    @Test
    void drainingPausesWhileUnwritableAndResumesOnWritabilityChange() throws Exception {
        LocalPair p = open();
        p.group.next().submit(() -> p.client.unsafe().outboundBuffer().setUserDefinedWritability(1, false))
                .get(5, TimeUnit.SECONDS);
        List<Probe> probes = enqueue(p, 10, 0);
        p.sync();
        p.sync();
        assertEquals(0, p.recorder.writes.get(), "nothing drained while unwritable");
        assertEquals(120, p.queue().pendingBytes());
        p.group.next().submit(() -> p.client.unsafe().outboundBuffer().setUserDefinedWritability(1, true))
                .get(5, TimeUnit.SECONDS);
        p.awaitReceived(10);
        for (Probe probe : probes) {
            assertTrue(probe.written.await(5, TimeUnit.SECONDS));
        }
    }

    private static List<Probe> enqueue(LocalPair p, int n, int padding) {
        List<Probe> probes = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            Probe probe = new Probe();
            p.queue().enqueue(TestFrames.frame(ALLOC, 0, i, padding), probe);
            probes.add(probe);
        }
        return probes;
    }

    private static void assertInOrder(LocalPair p, int n) {
        int i = 0;
        for (int[] frame : p.received) {
            assertEquals(i++, frame[1]);
        }
        assertEquals(n, i);
    }

    /** Records the outcome of one message. */
    static final class Probe implements WriteListener {
        final CountDownLatch written = new CountDownLatch(1);
        final CountDownLatch done = new CountDownLatch(1);
        final AtomicReference<Throwable> failure = new AtomicReference<>();

        @Override
        public void onWritten() {
            written.countDown();
            done.countDown();
        }

        @Override
        public void onWriteFailed(Throwable cause) {
            failure.set(cause);
            done.countDown();
        }
    }
}
