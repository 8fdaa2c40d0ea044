package dev.sluice.transport.netty;

import dev.sluice.transport.Connection;
import dev.sluice.transport.TransportHandler;
import dev.sluice.transport.TransportOptions;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.local.LocalAddress;
import io.netty.channel.local.LocalChannel;
import io.netty.channel.local.LocalIoHandler;
import io.netty.channel.local.LocalServerChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A client channel with Sluice's real pipeline and write queue, connected over Netty's in-JVM local transport to
 * a server that records every frame it receives. Both ends share ONE event loop, so a test can block the loop,
 * queue work from the test thread, and release the loop to run exactly one drain.
 */
final class LocalPair implements AutoCloseable {
    final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, LocalIoHandler.newFactory());
    final Recorder recorder = new Recorder();
    /** Frames the server received, as {producer, seq}. */
    final ConcurrentLinkedQueue<int[]> received = new ConcurrentLinkedQueue<>();
    final AtomicInteger receivedCount = new AtomicInteger();
    final Channel serverChannel;
    final Channel client;
    final NettyConnection connection;
    final List<Channel> accepted = new ArrayList<>();

    LocalPair(TransportOptions options) {
        LocalAddress address = new LocalAddress("sluice-" + UUID.randomUUID());
        serverChannel = new ServerBootstrap().group(group).channel(LocalServerChannel.class)
                .childHandler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        accepted.add(ch);
                        ChannelSetup.init(ch, options, TestFrames.INSTANCE, new TransportHandler() {
                            @Override
                            public void received(Connection c, Object message) {
                                ByteBuf b = (ByteBuf) message;
                                try {
                                    received.add(new int[] {b.readInt(), b.readInt()});
                                    receivedCount.incrementAndGet();
                                } finally {
                                    b.release();
                                }
                            }
                        }, null, null, 0, null);
                    }
                }).bind(address).syncUninterruptibly().channel();
        client = new Bootstrap().group(group).channel(LocalChannel.class)
                .handler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ChannelSetup.init(ch, options, TestFrames.INSTANCE, (c, m) -> ((ByteBuf) m).release(),
                                null, null, 0, null);
                        ch.pipeline().addFirst("recorder", recorder);
                    }
                }).connect(address).syncUninterruptibly().channel();
        connection = NettyConnection.of(client);
    }

    WriteQueue queue() {
        return connection.writeQueue();
    }

    /** Blocks the shared event loop until the returned latch is counted down. */
    CountDownLatch blockLoop() throws InterruptedException {
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch blocked = new CountDownLatch(1);
        group.next().execute(() -> {
            blocked.countDown();
            try {
                release.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        blocked.await(10, TimeUnit.SECONDS);
        return release;
    }

    /** Waits until every task queued on the loop so far has run. */
    void sync() throws Exception {
        group.next().submit(() -> { }).get(10, TimeUnit.SECONDS);
    }

    void awaitReceived(int n) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (receivedCount.get() < n) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("server received " + receivedCount.get() + " of " + n + " frames");
            }
            sync();
        }
    }

    @Override
    public void close() {
        client.close().syncUninterruptibly();
        serverChannel.close().syncUninterruptibly();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    /**
     * Outbound handler next to the socket: counts writes and flushes and the frames in each write. In hold mode it
     * keeps writes (and their promises) instead of passing them on.
     */
    static final class Recorder extends ChannelOutboundHandlerAdapter {
        final AtomicInteger writes = new AtomicInteger();
        final AtomicInteger flushes = new AtomicInteger();
        final ConcurrentLinkedQueue<Integer> framesPerWrite = new ConcurrentLinkedQueue<>();
        volatile boolean hold;
        final List<Object[]> held = new ArrayList<>();

        @Override
        public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
            writes.incrementAndGet();
            framesPerWrite.add(msg instanceof CompositeByteBuf ? ((CompositeByteBuf) msg).numComponents() : 1);
            if (hold) {
                held.add(new Object[] {msg, promise});
                return;
            }
            ctx.write(msg, promise);
        }

        @Override
        public void flush(ChannelHandlerContext ctx) {
            flushes.incrementAndGet();
            ctx.flush();
        }

        void reset() {
            writes.set(0);
            flushes.set(0);
            framesPerWrite.clear();
        }
    }
}
