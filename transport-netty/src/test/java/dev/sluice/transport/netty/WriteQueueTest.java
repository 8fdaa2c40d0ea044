package dev.sluice.transport.netty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.transport.ConnectionClosedException;
import dev.sluice.transport.PendingBytesExceededException;
import dev.sluice.transport.TransportObserver;
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
import java.util.concurrent.CompletableFuture;
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
            WriteQueue q = new WriteQueue(channel, deadLoop, 128, 1 << 20, 1 << 20,
                    dev.sluice.transport.BatchWrite.COMPOSITE);
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

    /**
     * A connection with one call in flight at a time drains one frame per chunk, on both sides of every call. Such a
     * chunk must not pay for batch arrays it does not need: the heap the event loop allocates per frame drained alone
     * (the drain and the write down the pipeline, kept by the recorder before the socket; frames that no leak detector
     * tracks) stays under a bound that a chunk's batch arrays (frames, charges, listeners: 112 bytes for a chunk of
     * one) would exceed.
     */
    @Test
    void aChunkOfOneFrameAllocatesNoBatchArraysOnTheLoop() throws Exception {
        LocalPair p = open(TransportOptions.builder().drainChunk(128, 256 * 1024).pendingBytesCap(1L << 30).build());
        p.recorder.hold = true;
        long loopThread = p.group.next().submit(() -> Thread.currentThread().getId()).get(10, TimeUnit.SECONDS);
        com.sun.management.ThreadMXBean mx =
                (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        int frames = 20_000;
        try {
            sendOneAtATime(p, 0, frames); // warm-up: compiled code from here on
            long before = mx.getThreadAllocatedBytes(loopThread);
            sendOneAtATime(p, frames, frames);
            long perFrame = (mx.getThreadAllocatedBytes(loopThread) - before) / frames;
            assertTrue(perFrame < LOOP_BYTES_PER_SINGLE_FRAME, "the event loop allocated " + perFrame
                    + " bytes per frame drained alone, over the bound of " + LOOP_BYTES_PER_SINGLE_FRAME);
        } finally {
            p.group.next().submit(() -> { // the recorder's list is the loop's
                for (Object[] h : p.recorder.held) {
                    ReferenceCountUtil.release(h[0]);
                    ((ChannelPromise) h[1]).setSuccess();
                }
                p.recorder.held.clear();
            }).get(10, TimeUnit.SECONDS);
        }
    }

    /** What the loop may allocate per frame drained alone: its path without batch arrays, plus room for noise. */
    private static final long LOOP_BYTES_PER_SINGLE_FRAME = 200;

    /**
     * Enqueues {@code n} frames from this thread, each once the one before was written (the recorder holds it): chunks
     * of one. The frames wrap arrays, which no leak detector tracks (it would allocate per access).
     */
    private static void sendOneAtATime(LocalPair p, int from, int n) {
        for (int i = 0; i < n; i++) {
            ByteBuf frame = io.netty.buffer.Unpooled.wrappedBuffer(new byte[16]);
            p.queue().enqueue(frame, WriteListener.NONE);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (p.recorder.writes.get() < from + i + 1) {
                assertTrue(System.nanoTime() < deadline, "frame " + (from + i) + " not written");
                Thread.onSpinWait();
            }
        }
    }

    /** An observer every one of whose methods throws: a metrics binding with a bug. */
    static final class ThrowingObserver implements TransportObserver {
        final java.util.concurrent.atomic.AtomicInteger calls = new java.util.concurrent.atomic.AtomicInteger();

        private void fail() {
            calls.incrementAndGet();
            throw new IllegalStateException("observer bug");
        }

        @Override
        public void connectionOpened(java.util.function.LongSupplier pendingBytes) {
            fail();
        }

        @Override
        public void connectionClosed(java.util.function.LongSupplier pendingBytes) {
            fail();
        }

        @Override
        public void bytesRead(int bytes) {
            fail();
        }

        @Override
        public void frameRead() {
            fail();
        }

        @Override
        public void batchWritten(int messages, long bytes, boolean chunkBoundHit) {
            fail();
        }

        @Override
        public void queueWait(long nanos) {
            fail();
        }

        @Override
        public void unwritable(long nanos) {
            fail();
        }

        @Override
        public void pendingBytesExceeded() {
            fail();
        }
    }

    // docs/reliability.md B16a: the observer is called after frames were taken from the queue (queue wait, batch
    // counts) and before the flush of frames written directly; a throw there must strand none of them.
    @Test
    void anObserverThatThrowsStrandsNoFrame() throws Exception {
        ThrowingObserver observer = new ThrowingObserver();
        LocalPair p = open(TransportOptions.builder().observer(observer).drainChunk(4, 256 * 1024).build());
        CountDownLatch gate = p.blockLoop();
        List<Probe> probes;
        try {
            probes = enqueue(p, 20, 0); // queued while the loop is held: drained in chunks of 4
        } finally {
            gate.countDown();
        }
        Probe direct = new Probe();
        p.group.next().submit(() -> p.queue().enqueue(TestFrames.frame(ALLOC, 0, 20, 0), direct))
                .get(5, TimeUnit.SECONDS); // written directly on the loop, flushed after the task
        probes.add(direct);
        p.awaitReceived(21);
        for (Probe probe : probes) {
            assertTrue(probe.written.await(5, TimeUnit.SECONDS), "every listener completed");
        }
        assertEquals(0, p.queue().pendingBytes());
        assertEquals(0, p.queue().queuedItems());
        assertTrue(observer.calls.get() > 0, "the observer was called (and threw)");
    }

    @Test
    void pendingBytesCapFailsFastWithSizesAndReleases() throws Exception {
        int charge = 300 + WriteQueue.FRAME_OVERHEAD; // a 300-byte frame in a 300-byte buffer
        long cap = 3 * charge + 100;
        LocalPair p = open(TransportOptions.builder().pendingBytesCap(cap).build());
        CountDownLatch gate = p.blockLoop();
        try {
            for (int i = 0; i < 3; i++) {
                p.queue().enqueue(TestFrames.frame(ALLOC, 0, i, 288), new Probe()); // 300 bytes each
            }
            ByteBuf over = TestFrames.frame(ALLOC, 0, 3, 288);
            PendingBytesExceededException e = assertThrows(PendingBytesExceededException.class,
                    () -> p.queue().enqueue(over, new Probe()));
            assertEquals(0, over.refCnt());
            assertEquals(3 * charge, e.pendingBytes());
            assertEquals(charge, e.messageBytes());
            assertEquals(cap, e.cap());
            assertTrue(e.getMessage().contains(Long.toString(cap)) && e.getMessage().contains(Integer.toString(charge)),
                    e.getMessage());
        } finally {
            gate.countDown();
        }
        p.awaitReceived(3);
        assertEquals(0, p.queue().pendingBytes());
    }

    @Test
    void concurrentProducersFillTheCapExactlyAndNeverSeeMoreThanItQueued() throws Exception {
        long cap = 100 * (300 + WriteQueue.FRAME_OVERHEAD);
        LocalPair p = open(TransportOptions.builder().pendingBytesCap(cap).build());
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
                    for (int i = 0; i < 200; i++) { // 8 x 200 frames of 300 bytes offered against a cap for 100
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
            assertEquals(cap, p.queue().pendingBytes());
            assertTrue(worstReported.get() <= cap, "reported pending bytes above the cap: " + worstReported.get());
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
        assertEquals(10 * (12 + WriteQueue.FRAME_OVERHEAD), p.queue().pendingBytes(), "10 frames of 12 bytes");
        p.group.next().submit(() -> p.client.unsafe().outboundBuffer().setUserDefinedWritability(1, true))
                .get(5, TimeUnit.SECONDS);
        p.awaitReceived(10);
        for (Probe probe : probes) {
            assertTrue(probe.written.await(5, TimeUnit.SECONDS));
        }
    }

    // Issue 12 item 2: a caller that gives up on a queued message withdraws it; "not sent" is then a guarantee.
    @Test
    void aMessageWithdrawnBeforeTheDrainTookItIsReleasedUnwrittenAndNeverReachesThePeer() throws Exception {
        LocalPair p = open();
        CountDownLatch gate = p.blockLoop();
        List<ByteBuf> frames = new ArrayList<>();
        List<Probe> probes = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            ByteBuf f = TestFrames.frame(ALLOC, 0, i, 0);
            frames.add(f);
            Probe probe = new Probe();
            probes.add(probe);
            p.queue().enqueue(f, probe);
        }
        probes.get(1).withdraw = true; // as a timed-out call does, while the frame is still queued
        probes.get(4).withdraw = true;
        gate.countDown();
        p.awaitReceived(3);
        p.sync();
        List<Integer> seqs = new ArrayList<>();
        for (int[] frame : p.received) {
            seqs.add(frame[1]);
        }
        assertEquals(List.of(0, 2, 3), seqs, "withdrawn frames are never written");
        for (int i : new int[] {1, 4}) {
            assertEquals(0, frames.get(i).refCnt(), "withdrawn frame " + i + " released");
            assertEquals(0, probes.get(i).calls.get(), "a withdrawn message's listener hears nothing more");
        }
        for (int i : new int[] {0, 2, 3}) {
            assertTrue(probes.get(i).written.await(5, TimeUnit.SECONDS));
        }
        assertEquals(0, p.queue().pendingBytes());
    }

    // Issue 12 item 2: a write that fails after the frames were handed to the socket cannot claim "not written".
    @Test
    void aBatchThatFailsAfterItWasHandedToTheSocketReportsOutcomeUnknownNotNotSent() throws Exception {
        LocalPair p = open();
        p.recorder.hold = true;
        CountDownLatch gate = p.blockLoop();
        List<Probe> batch = enqueue(p, 5, 0);
        gate.countDown();
        p.sync();
        assertEquals(1, p.recorder.held.size(), "the batch was handed to the channel as one write");
        Object[] held = p.recorder.held.remove(0);
        ReferenceCountUtil.release(held[0]);
        p.group.next().execute(() -> ((ChannelPromise) held[1]).setFailure(new java.io.IOException("reset mid-batch")));
        for (Probe probe : batch) {
            assertTrue(probe.done.await(5, TimeUnit.SECONDS));
            assertTrue(probe.outcomeUnknown, "reported through onWriteOutcomeUnknown: part of the batch may have left");
            assertEquals("reset mid-batch", probe.failure.get().getMessage());
            assertEquals(1, probe.calls.get());
        }
    }

    // Issue 12 item 5: the producer that owns a rejected drain must not strand a frame another producer queued
    // while it was failing the queue. Run many times: the window is a few instructions wide.
    @Test
    void producersRacingARejectedDrainNeverStrandAFrame() throws Exception {
        DefaultEventLoop deadLoop = new DefaultEventLoop();
        deadLoop.shutdownGracefully(0, 0, TimeUnit.SECONDS).syncUninterruptibly();
        int producers = 4;
        int perProducer = 8;
        ExecutorService pool = Executors.newFixedThreadPool(producers);
        EmbeddedChannel channel = new EmbeddedChannel();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(40);
        int iterations = 0;
        try {
            for (; iterations < 2000 && System.nanoTime() < deadline; iterations++) {
                WriteQueue q = new WriteQueue(channel, deadLoop, 128, 1 << 20, 1 << 20,
                        dev.sluice.transport.BatchWrite.COMPOSITE);
                List<Object[]> accepted = raceProducers(pool, producers, perProducer, q, null);
                for (Object[] a : accepted) {
                    Probe probe = (Probe) a[1];
                    assertTrue(probe.done.await(2, TimeUnit.SECONDS), "iteration " + iterations
                            + ": a frame was stranded in the queue; its listener never heard of it");
                    assertEquals(1, probe.calls.get(), "told exactly once");
                    assertEquals(0, ((ByteBuf) a[0]).refCnt(), "released");
                }
                assertEquals(0, q.pendingBytes(), "iteration " + iterations);
            }
        } finally {
            pool.shutdownNow();
            channel.finishAndReleaseAll();
        }
        assertTrue(iterations >= 200, "ran " + iterations + " iterations");
    }

    // Issue 12 item 5: while the loop shuts down, channelClosed (on the loop) and a producer whose drain was
    // rejected must not both consume the single-consumer queue.
    @Test
    void channelClosedOnAShuttingDownLoopNeverConsumesBesideAProducer() throws Exception {
        ShuttingDownLoop loop = new ShuttingDownLoop();
        int producers = 3;
        int perProducer = 40;
        ExecutorService pool = Executors.newFixedThreadPool(producers);
        EmbeddedChannel channel = new EmbeddedChannel();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(40);
        int iterations = 0;
        try {
            for (; iterations < 1000 && System.nanoTime() < deadline; iterations++) {
                loop.rejecting = false;
                WriteQueue q = new WriteQueue(channel, loop, 128, 1 << 20, 1 << 20,
                        dev.sluice.transport.BatchWrite.COMPOSITE);
                loop.rejecting = true; // from here on execute() rejects, as a loop past its shutdown point does
                List<Object[]> accepted = raceProducers(pool, producers, perProducer, q, loop);
                for (Object[] a : accepted) {
                    Probe probe = (Probe) a[1];
                    assertTrue(probe.done.await(2, TimeUnit.SECONDS), "iteration " + iterations + ": stranded");
                    assertEquals(1, probe.calls.get(), "iteration " + iterations + ": told exactly once");
                    assertEquals(0, ((ByteBuf) a[0]).refCnt(), "released");
                }
                assertEquals(0, q.pendingBytes(), "iteration " + iterations);
            }
        } finally {
            pool.shutdownNow();
            loop.rejecting = false;
            loop.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            channel.finishAndReleaseAll();
        }
        assertTrue(iterations >= 100, "ran " + iterations + " iterations");
    }

    /**
     * {@code producers} threads enqueue {@code perProducer} frames each, all released at once; with {@code loop}
     * set, a task on that loop calls {@code channelClosed} at the same moment. Returns {frame, probe} of every
     * frame enqueue accepted; refused frames are checked released here.
     */
    private static List<Object[]> raceProducers(ExecutorService pool, int producers, int perProducer, WriteQueue q,
                                                ShuttingDownLoop loop) throws Exception {
        CyclicBarrier start = new CyclicBarrier(producers + (loop == null ? 0 : 1));
        List<Future<List<Object[]>>> fs = new ArrayList<>();
        for (int t = 0; t < producers; t++) {
            int producer = t;
            fs.add(pool.submit(() -> {
                List<Object[]> accepted = new ArrayList<>();
                start.await(10, TimeUnit.SECONDS);
                for (int i = 0; i < perProducer; i++) {
                    ByteBuf f = TestFrames.frame(ALLOC, producer, i, 0);
                    Probe probe = new Probe();
                    try {
                        q.enqueue(f, probe);
                        accepted.add(new Object[] {f, probe});
                    } catch (ConnectionClosedException e) {
                        assertEquals(0, f.refCnt(), "a refused frame is released");
                    }
                }
                return accepted;
            }));
        }
        Future<?> closer = null;
        if (loop != null) {
            CompletableFuture<Void> closed = new CompletableFuture<>();
            loop.runAnyway(() -> {
                try {
                    start.await(10, TimeUnit.SECONDS);
                    q.channelClosed(new ConnectionClosedException("closed by the test"));
                    closed.complete(null);
                } catch (Throwable t) {
                    closed.completeExceptionally(t);
                }
            });
            closer = closed;
        }
        List<Object[]> all = new ArrayList<>();
        for (Future<List<Object[]>> f : fs) {
            all.addAll(f.get(20, TimeUnit.SECONDS));
        }
        if (closer != null) {
            closer.get(20, TimeUnit.SECONDS);
        }
        return all;
    }

    // Item 5, the exact interleaving: producer B passed the closed check; producer A's drain is rejected, A fails
    // the queue and finds it empty; B offers its frame (and finds the flag taken) before A clears the flag.
    @Test
    void aFrameOfferedAsTheOwnerOfARejectedDrainFindsTheQueueEmptyIsStillFailed() throws Exception {
        ShuttingDownLoop loop = new ShuttingDownLoop();
        loop.rejecting = true;
        EmbeddedChannel channel = new EmbeddedChannel();
        ExecutorService other = Executors.newSingleThreadExecutor();
        try {
            HookQueue items = new HookQueue();
            WriteQueue q = new WriteQueue(channel, loop, 128, 1 << 20, 1 << 20,
                    dev.sluice.transport.BatchWrite.COMPOSITE, items);
            ByteBuf frameB = TestFrames.frame(ALLOC, 1, 0, 0);
            Probe probeB = new Probe();
            CountDownLatch bGo = new CountDownLatch(1);
            Future<?> b = other.submit(() -> {
                loop.hold(Thread.currentThread(), bGo); // held inside enqueue, after the closed check
                q.enqueue(frameB, probeB);
                return null;
            });
            assertTrue(loop.held.await(5, TimeUnit.SECONDS), "B is past the closed check");
            items.onEmptyPoll = () -> { // A has failed everything it found; now B offers
                bGo.countDown();
                try {
                    b.get(5, TimeUnit.SECONDS);
                } catch (Exception e) {
                    throw new AssertionError(e);
                }
            };
            ByteBuf frameA = TestFrames.frame(ALLOC, 0, 0, 0);
            Probe probeA = new Probe();
            q.enqueue(frameA, probeA); // the drain is rejected: A fails the queue itself
            assertTrue(probeA.done.await(1, TimeUnit.SECONDS));
            assertNull(items.onEmptyPoll, "the interleaving happened");
            assertTrue(probeB.done.await(2, TimeUnit.SECONDS), "B's frame was stranded: its listener never heard");
            assertInstanceOf(ConnectionClosedException.class, probeB.failure.get());
            assertEquals(0, frameB.refCnt(), "B's frame released");
            assertEquals(0, frameA.refCnt());
            assertEquals(0, q.pendingBytes());
        } finally {
            other.shutdownNow();
            loop.rejecting = false;
            loop.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            channel.finishAndReleaseAll();
        }
    }

    // Item 5, the exact interleaving: a producer whose drain was rejected is failing the queue when the loop, which
    // still runs the tasks it accepted, closes the channel. channelClosed must leave the queue to that producer.
    @Test
    void channelClosedWhileAProducerFailsTheQueueDoesNotConsumeBesideIt() throws Exception {
        ShuttingDownLoop loop = new ShuttingDownLoop();
        EmbeddedChannel channel = new EmbeddedChannel();
        ExecutorService other = Executors.newSingleThreadExecutor();
        try {
            HookQueue items = new HookQueue();
            WriteQueue q = new WriteQueue(channel, loop, 128, 1 << 20, 1 << 20,
                    dev.sluice.transport.BatchWrite.COMPOSITE, items);
            List<Object[]> others = new ArrayList<>();
            // While A's execute is being rejected, other producers queue frames (the flag is A's, so they leave
            // them to A).
            loop.onReject = () -> {
                try {
                    other.submit(() -> {
                        for (int i = 0; i < 10; i++) {
                            ByteBuf f = TestFrames.frame(ALLOC, 1, i, 0);
                            Probe probe = new Probe();
                            q.enqueue(f, probe);
                            others.add(new Object[] {f, probe});
                        }
                        return null;
                    }).get(5, TimeUnit.SECONDS);
                } catch (Exception e) {
                    throw new AssertionError(e);
                }
            };
            loop.rejecting = true;
            CompletableFuture<Void> closedOnLoop = new CompletableFuture<>();
            AtomicReference<Throwable> aFailure = new AtomicReference<>();
            WriteListener a = new WriteListener() {
                @Override
                public void onWritten() {
                }

                @Override
                public void onWriteFailed(Throwable cause) {
                    aFailure.set(cause);
                    // A is the consumer now, in the middle of failing the queue. The loop closes the channel.
                    items.busyConsumer = Thread.currentThread();
                    loop.runAnyway(() -> {
                        try {
                            q.channelClosed(new ConnectionClosedException("closed while the loop shuts down"));
                            closedOnLoop.complete(null);
                        } catch (Throwable t) {
                            closedOnLoop.completeExceptionally(t);
                        }
                    });
                    try {
                        closedOnLoop.get(5, TimeUnit.SECONDS);
                    } catch (Exception e) {
                        throw new AssertionError(e);
                    } finally {
                        items.busyConsumer = null;
                    }
                }
            };
            ByteBuf frameA = TestFrames.frame(ALLOC, 0, 0, 0);
            q.enqueue(frameA, a);
            closedOnLoop.get(5, TimeUnit.SECONDS);
            assertInstanceOf(ConnectionClosedException.class, aFailure.get());
            assertEquals(10, others.size());
            assertEquals(0, items.overlaps.get(), "the loop consumed the queue while the producer was consuming it");
            for (Object[] o : others) {
                Probe probe = (Probe) o[1];
                assertTrue(probe.done.await(2, TimeUnit.SECONDS), "stranded");
                assertEquals(1, probe.calls.get(), "told exactly once");
                assertEquals(0, ((ByteBuf) o[0]).refCnt());
            }
            assertEquals(0, q.pendingBytes());
        } finally {
            other.shutdownNow();
            loop.rejecting = false;
            loop.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            channel.finishAndReleaseAll();
        }
    }

    /**
     * An event loop that rejects new tasks while {@link #rejecting} (running {@link #onReject} first, once), yet
     * still runs what it was given before, as a loop past its shutdown point does; it can hold one thread inside
     * {@code inEventLoop()}, the call {@code enqueue} makes between its closed check and its offer.
     */
    static final class ShuttingDownLoop extends DefaultEventLoop {
        volatile boolean rejecting;
        volatile Runnable onReject;
        final CountDownLatch held = new CountDownLatch(1);
        private volatile Thread holdThread;
        private volatile CountDownLatch holdUntil;

        @Override
        public void execute(Runnable task) {
            if (rejecting) {
                Runnable hook = onReject;
                onReject = null;
                if (hook != null) {
                    hook.run();
                }
                throw new java.util.concurrent.RejectedExecutionException("event executor terminated (test)");
            }
            super.execute(task);
        }

        void runAnyway(Runnable task) {
            super.execute(task);
        }

        void hold(Thread t, CountDownLatch until) {
            holdUntil = until;
            holdThread = t;
        }

        @Override
        public boolean inEventLoop(Thread thread) {
            if (thread == holdThread) {
                holdThread = null;
                held.countDown();
                try {
                    holdUntil.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return super.inEventLoop(thread);
        }
    }

    /** A many-producer queue that runs a hook when a poll finds it empty and counts polls beside a busy consumer. */
    static final class HookQueue extends java.util.concurrent.ConcurrentLinkedQueue<WriteQueue.Item> {
        volatile Runnable onEmptyPoll;
        volatile Thread busyConsumer;
        final java.util.concurrent.atomic.AtomicInteger overlaps = new java.util.concurrent.atomic.AtomicInteger();

        @Override
        public WriteQueue.Item poll() {
            Thread busy = busyConsumer;
            if (busy != null && busy != Thread.currentThread()) {
                overlaps.incrementAndGet();
            }
            WriteQueue.Item item = super.poll();
            if (item == null) {
                Runnable hook = onEmptyPoll;
                if (hook != null) {
                    onEmptyPoll = null;
                    hook.run();
                }
            }
            return item;
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

    /** Records the outcome of one message, and how often it was told anything. */
    static final class Probe implements WriteListener {
        final CountDownLatch written = new CountDownLatch(1);
        final CountDownLatch done = new CountDownLatch(1);
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        /** Set when the failure came through {@link #onWriteOutcomeUnknown}: handed to the socket, then failed. */
        volatile boolean outcomeUnknown;
        final java.util.concurrent.atomic.AtomicInteger calls = new java.util.concurrent.atomic.AtomicInteger();
        /** When set, {@link #beforeWrite} withdraws the message, as a caller that timed out does. */
        volatile boolean withdraw;
        final java.util.concurrent.atomic.AtomicInteger beforeWriteCalls =
                new java.util.concurrent.atomic.AtomicInteger();

        @Override
        public boolean beforeWrite() {
            beforeWriteCalls.incrementAndGet();
            return !withdraw;
        }

        @Override
        public void onWritten() {
            calls.incrementAndGet();
            written.countDown();
            done.countDown();
        }

        @Override
        public void onWriteFailed(Throwable cause) {
            calls.incrementAndGet();
            failure.set(cause);
            done.countDown();
        }

        @Override
        public void onWriteOutcomeUnknown(Throwable cause) {
            outcomeUnknown = true;
            onWriteFailed(cause);
        }
    }
}
