package dev.sluice.it.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.transport.Connection;
import dev.sluice.transport.NativeTransport;
import dev.sluice.transport.TransportHandler;
import dev.sluice.transport.TransportOptions;
import dev.sluice.transport.codec.Codec;
import dev.sluice.transport.codec.FrameDecoder;
import dev.sluice.transport.codec.FrameEncoder;
import dev.sluice.transport.netty.EventLoops;
import dev.sluice.transport.netty.NettyClientTransport;
import dev.sluice.transport.netty.NettyServerTransport;
import io.netty.buffer.Unpooled;
import io.netty.channel.EventLoop;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * docs/reliability.md B14 over real sockets: a million tiny messages from 32 threads are queued on one connection
 * while its event loop is held, then drained; another connection on the same event loop keeps being read (its
 * pings answered) and the loop keeps running other tasks, because one drain task writes a bounded chunk and
 * yields (apache/dubbo#15732). Every message arrives exactly once, in per-producer order.
 */
@Timeout(120)
class BoundedDrainTest {
    private static final int PRODUCERS = 32;
    private static final int MESSAGES = 1_000_000;
    private static final int PING = -1;

    /** Frames of [length][producer][sequence]; decoded into one {@code long} per frame, no buffers held. */
    static final class TinyFrames implements Codec {
        @Override
        public FrameEncoder encoder() {
            return (message, out) -> out.writeBytes((byte[]) message);
        }

        @Override
        public FrameDecoder newDecoder(Connection connection) {
            return (in, out) -> {
                while (in.readableBytes() >= 12) {
                    int ri = in.readerIndex();
                    out.add(((long) in.getInt(ri + 4) << 32) | (in.getInt(ri + 8) & 0xffffffffL));
                    in.skipBytes(12);
                }
            };
        }
    }

    static byte[] frame(int producer, int seq) {
        return ByteBuffer.allocate(12).putInt(8).putInt(producer).putInt(seq).array();
    }

    @Test
    void aDeepQueueDrainsInBoundedChunksWhileAnotherConnectionOnTheLoopIsServed() throws Exception {
        AtomicIntegerArray next = new AtomicIntegerArray(PRODUCERS);
        AtomicInteger outOfOrder = new AtomicInteger();
        CountDownLatch all = new CountDownLatch(MESSAGES);
        TransportHandler server = (connection, message) -> {
            long m = (Long) message;
            int producer = (int) (m >> 32);
            int seq = (int) m;
            if (producer == PING) {
                connection.send(frame(PING, seq));
                return;
            }
            if (next.getAndIncrement(producer) != seq) {
                outOfOrder.incrementAndGet();
            }
            all.countDown();
        };
        BlockingQueue<Integer> pongs = new LinkedBlockingQueue<>();
        TransportHandler pinger = (connection, message) -> pongs.add((int) (long) (Long) message);
        // A cap the million queued frames fit under: each is charged its buffer plus the per-frame overhead.
        TransportOptions options = TransportOptions.builder().nativeTransport(NativeTransport.NIO)
                .pendingBytesCap(1L << 30).build();
        EventLoops shared = EventLoops.create(NativeTransport.NIO, 1, "shared-loop");
        ExecutorService producers = Executors.newFixedThreadPool(PRODUCERS);
        try (NettyServerTransport srv = NettyServerTransport.builder().port(0)
                .options(options.toBuilder().ioThreads(2).build()).codec(new TinyFrames()).handler(server).bind();
             NettyClientTransport flood = NettyClientTransport.builder().remote("127.0.0.1", srv.port())
                     .options(options).eventLoops(shared).codec(new TinyFrames()).handler((c, m) -> { }).build();
             NettyClientTransport other = NettyClientTransport.builder().remote("127.0.0.1", srv.port())
                     .options(options).eventLoops(shared).codec(new TinyFrames()).handler(pinger).build()) {
            Connection a = flood.connect().get(10, TimeUnit.SECONDS);
            Connection b = other.connect().get(10, TimeUnit.SECONDS);
            EventLoop loop = shared.group().next();

            // Hold the loop while 32 threads queue a million messages on connection a.
            CountDownLatch gate = new CountDownLatch(1);
            CountDownLatch held = new CountDownLatch(1);
            loop.execute(() -> {
                held.countDown();
                try {
                    gate.await(60, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            assertTrue(held.await(10, TimeUnit.SECONDS));
            CyclicBarrier start = new CyclicBarrier(PRODUCERS);
            List<Future<?>> fs = new ArrayList<>();
            for (int p = 0; p < PRODUCERS; p++) {
                int producer = p;
                fs.add(producers.submit(() -> {
                    start.await();
                    for (int i = 0; i < MESSAGES / PRODUCERS; i++) {
                        // An already encoded frame: the queue takes it as is (and it is not leak-tracked).
                        a.send(Unpooled.wrappedBuffer(frame(producer, i)), null);
                    }
                    return null;
                }));
            }
            for (Future<?> f : fs) {
                f.get(60, TimeUnit.SECONDS);
            }
            long queuedBytes = a.pendingBytes();
            long drainStart = System.nanoTime();
            gate.countDown();

            // While the million drain, ping over connection b and time tasks on the shared loop.
            long worstPing = 0;
            long worstTask = 0;
            int pings = 0;
            long[] rtts = new long[1 << 20];
            while (all.getCount() > 0) {
                long t0 = System.nanoTime();
                b.send(frame(PING, pings));
                Integer pong = pongs.poll(10, TimeUnit.SECONDS);
                assertEquals(pings, pong, "the other connection was read");
                long rtt = System.nanoTime() - t0;
                worstPing = Math.max(worstPing, rtt);
                rtts[pings & (rtts.length - 1)] = rtt;
                long t1 = System.nanoTime();
                loop.submit(() -> { }).get(10, TimeUnit.SECONDS);
                worstTask = Math.max(worstTask, System.nanoTime() - t1);
                pings++;
            }
            long drain = System.nanoTime() - drainStart;
            assertTrue(all.await(60, TimeUnit.SECONDS));
            long[] sorted = java.util.Arrays.copyOf(rtts, Math.min(pings, rtts.length));
            java.util.Arrays.sort(sorted);
            long p99 = sorted.length == 0 ? 0 : sorted[(int) (sorted.length * 0.99)];
            System.out.printf("bounded drain: %d messages (%d bytes) from %d threads drained in %d ms; meanwhile %d"
                    + " pings on another connection of the loop, p99 %.1f ms, slowest %.1f ms; slowest loop task wait"
                    + " %.1f ms%n", MESSAGES, queuedBytes, PRODUCERS, drain / 1_000_000, pings, p99 / 1e6,
                    worstPing / 1e6, worstTask / 1e6);
            // Every 12-byte frame is charged the same (its buffer plus the per-frame overhead).
            long perFrame = queuedBytes / MESSAGES;
            assertTrue(perFrame >= 12, "charged " + perFrame + " bytes a frame");
            assertEquals(perFrame * MESSAGES, queuedBytes, "everything was queued while the loop was held");
            assertEquals(0, outOfOrder.get(), "per-producer order kept");
            for (int p = 0; p < PRODUCERS; p++) {
                assertEquals(MESSAGES / PRODUCERS, next.get(p), "every message of producer " + p + " exactly once");
            }
            assertTrue(pings >= 3, "the drain lasted long enough to ping during it: " + pings);
            // An unbounded drain would hold the loop for the whole million; chunks of 128 let others in between.
            // An unbounded drain would hold the loop for the whole million (seconds); chunks of 128 messages let
            // the other connection's reads and other tasks in between. (A rare slow ping is a GC pause.)
            assertTrue(worstPing < drain / 2, "pings answered during the drain: slowest " + worstPing / 1_000_000
                    + " ms of a " + drain / 1_000_000 + " ms drain");
            assertTrue(p99 < TimeUnit.MILLISECONDS.toNanos(250), "p99 ping " + p99 / 1_000_000 + " ms");
            assertTrue(worstTask < TimeUnit.MILLISECONDS.toNanos(500), "loop tasks ran between drain chunks: "
                    + worstTask / 1_000_000 + " ms");
            assertEquals(0, a.pendingBytes());
        } finally {
            producers.shutdownNow();
            shared.group().shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }
}
