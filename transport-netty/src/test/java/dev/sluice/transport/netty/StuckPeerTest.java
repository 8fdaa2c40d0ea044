package dev.sluice.transport.netty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.transport.Connection;
import dev.sluice.transport.ConnectionClosedException;
import dev.sluice.transport.NativeTransport;
import dev.sluice.transport.PendingBytesExceededException;
import dev.sluice.transport.TransportHandler;
import dev.sluice.transport.TransportOptions;
import dev.sluice.transport.netty.WriteQueueTest.Probe;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.util.internal.PlatformDependent;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Peers that stop reading, over real TCP sockets on NIO and epoll (issue 12 items 1, 3 and 4). The stuck peer is a
 * plain socket with a small receive buffer that never reads, so the sender's socket buffers really fill and the
 * channel really goes unwritable.
 */
@Timeout(120)
class StuckPeerTest {
    private static final int FRAME = 32 * 1024;
    private static final long MIB = 1 << 20;
    private final ExecutorService threads = Executors.newCachedThreadPool();

    @AfterEach
    void stop() {
        threads.shutdownNow();
    }

    /** Hands the server's first connection to the test; releases whatever it reads. */
    static class Accepting implements TransportHandler {
        final CompletableFuture<NettyConnection> first = new CompletableFuture<>();

        @Override
        public void connected(Connection connection) {
            first.complete((NettyConnection) connection);
        }

        @Override
        public void received(Connection connection, Object message) {
            ((ByteBuf) message).release();
        }
    }

    private static NettyServerTransport server(NativeTransport kind, TransportOptions.Builder options,
                                               TransportHandler handler) {
        return NettyServerTransport.builder().port(0).options(options.nativeTransport(kind).build())
                .codec(TestFrames.INSTANCE).handler(handler).bind();
    }

    /** A client socket with a small receive buffer that reads only when the test says so. */
    private static Socket deafClient(int port) throws IOException {
        Socket s = new Socket();
        s.setReceiveBufferSize(4096);
        s.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
        s.setSoTimeout(20_000);
        return s;
    }

    /** A listener whose accepted sockets (small receive buffers) are never read. */
    private ServerSocket deafListener(BlockingQueue<Socket> accepted) throws IOException {
        ServerSocket listener = new ServerSocket();
        listener.setReceiveBufferSize(4096);
        listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        threads.execute(() -> {
            try {
                while (true) {
                    accepted.add(listener.accept());
                }
            } catch (IOException e) {
                // closed by the test
            }
        });
        return listener;
    }

    private static byte[] payload(int seq) {
        byte[] b = new byte[FRAME];
        ByteBuffer.wrap(b).putInt(seq);
        return b;
    }

    private static void sync(Channel ch) throws Exception {
        ch.eventLoop().submit(() -> { }).get(5, TimeUnit.SECONDS);
    }

    /** Sends frames, each handed to the socket before the next, until the channel is unwritable. */
    static List<Probe> fillUntilUnwritable(NettyConnection c) throws Exception {
        List<Probe> probes = new ArrayList<>();
        for (int i = 0; i < 4000; i++) {
            Probe probe = new Probe();
            c.send(payload(i), probe);
            probes.add(probe);
            sync(c.channel()); // the drain task queued by send() has run
            if (!c.channel().isWritable()) {
                return probes;
            }
        }
        throw new AssertionError("the channel never became unwritable: the peer reads after all?");
    }

    /** Queues {@code n} more frames behind an unwritable channel: the drain leaves them in the queue. */
    static List<Probe> queueBehind(NettyConnection c, int n) throws Exception {
        List<Probe> probes = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Probe probe = new Probe();
            c.send(payload(10_000 + i), probe);
            probes.add(probe);
        }
        sync(c.channel());
        assertEquals(n, c.writeQueue().queuedItems(), "still queued");
        return probes;
    }

    // Item 1: a close queued while the channel is unwritable used to wait for writability that never came.
    @ParameterizedTest
    @EnumSource(value = NativeTransport.class, names = {"NIO", "EPOLL"})
    void aCloseRequestedWhileThePeerStoppedReadingClosesForciblyWithinItsBound(NativeTransport kind) throws Exception {
        TransportTest.assumeAvailable(kind);
        Accepting handler = new Accepting();
        try (NettyServerTransport server = server(kind, TransportOptions.builder(), handler);
             Socket deaf = deafClient(server.port())) {
            NettyConnection c = handler.first.get(10, TimeUnit.SECONDS);
            List<Probe> handedOver = fillUntilUnwritable(c);
            List<Probe> queued = queueBehind(c, 20);
            long start = System.nanoTime();
            c.close(Duration.ofMillis(300));
            c.closeFuture().get(10, TimeUnit.SECONDS);
            long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertTrue(tookMillis < 5_000, "closed within its 300 ms bound (plus scheduling): " + tookMillis + " ms");
            for (Probe p : queued) {
                assertTrue(p.done.await(5, TimeUnit.SECONDS), "no listener left pending");
                assertInstanceOf(ConnectionClosedException.class, p.failure.get());
                assertFalse(p.outcomeUnknown, "still queued at the close: not sent, and reported so");
                assertFalse(((ConnectionClosedException) p.failure.get()).wasSent());
            }
            for (Probe p : handedOver) {
                assertTrue(p.done.await(5, TimeUnit.SECONDS), "no listener left pending");
                if (p.failure.get() != null) {
                    assertTrue(p.outcomeUnknown,
                            "handed to the socket, then failed: outcome unknown, never 'not sent'");
                }
            }
            assertEquals(0, c.pendingBytes());
        }
    }

    // Item 1: reconnect() waited, with no bound, for the close of a connection whose peer stopped reading.
    @ParameterizedTest
    @EnumSource(value = NativeTransport.class, names = {"NIO", "EPOLL"})
    void reconnectDoesNotWaitForeverForTheCloseOfAConnectionThePeerStoppedReading(NativeTransport kind)
            throws Exception {
        TransportTest.assumeAvailable(kind);
        BlockingQueue<Socket> accepted = new LinkedBlockingQueue<>();
        TransportOptions options = TransportOptions.builder().nativeTransport(kind).reconnect(false)
                .closeTimeout(Duration.ofMillis(300)).build();
        try (ServerSocket deaf = deafListener(accepted);
             NettyClientTransport client = NettyClientTransport.builder().remote("127.0.0.1", deaf.getLocalPort())
                     .options(options).codec(TestFrames.INSTANCE).handler((c, m) -> ((ByteBuf) m).release())
                     .build()) {
            // The accepted sockets stay referenced (a collected Socket closes its connection) until the end.
            List<Socket> keep = new ArrayList<>();
            try {
                NettyConnection first = (NettyConnection) client.connect().get(10, TimeUnit.SECONDS);
                fillUntilUnwritable(first);
                List<Probe> queued = queueBehind(first, 20);
                Connection second = client.reconnect().get(10, TimeUnit.SECONDS);
                assertNotSame(first, second);
                assertTrue(second.isActive());
                assertTrue(first.closeFuture().isDone(), "the stuck connection was closed");
                for (Probe p : queued) {
                    assertTrue(p.done.await(5, TimeUnit.SECONDS));
                    assertFalse(p.outcomeUnknown, "still queued: not sent");
                }
                keep.add(accepted.poll(5, TimeUnit.SECONDS));
                keep.add(accepted.poll(5, TimeUnit.SECONDS));
                assertNotNull(keep.get(0));
                assertNotNull(keep.get(1), "a second connection was made");
            } finally {
                keep.addAll(accepted);
                for (Socket s : keep) {
                    if (s != null) {
                        s.close();
                    }
                }
            }
        }
    }

    // Item 4: the close used to follow the last flush at once, and Netty's close drops what it had not written yet.
    @ParameterizedTest
    @EnumSource(value = NativeTransport.class, names = {"NIO", "EPOLL"})
    void aGracefulCloseDeliversEverythingItFlushedToASlowReader(NativeTransport kind) throws Exception {
        TransportTest.assumeAvailable(kind);
        Accepting handler = new Accepting();
        // 100 frames, 3.1 MiB, far more than the socket buffers; not a multiple of the 8-frame drain chunk, so the
        // close is drained together with the last frames.
        int frames = 100;
        try (NettyServerTransport server = server(kind, TransportOptions.builder(), handler);
             Socket reader = deafClient(server.port())) {
            NettyConnection c = handler.first.get(10, TimeUnit.SECONDS);
            // A small, fixed send buffer (no autotuning): the socket cannot take the last chunk in one go, so a close
            // right after the flush would find bytes still in the channel.
            assertTrue(c.channel().config().setOption(ChannelOption.SO_SNDBUF, 8192));
            List<Probe> probes = new ArrayList<>();
            for (int i = 0; i < frames; i++) {
                Probe probe = new Probe();
                c.send(payload(i), probe);
                probes.add(probe);
            }
            for (int i = 0; i < 1000 && c.channel().isWritable(); i++) {
                sync(c.channel());
            }
            assertFalse(c.channel().isWritable(), "the reader is behind: the server's socket buffer is full");
            c.close(Duration.ofSeconds(60));
            // The reader now reads as fast as its small window lets it.
            DataInputStream in = new DataInputStream(reader.getInputStream());
            int got = 0;
            try {
                while (true) {
                    int length = in.readInt();
                    byte[] body = new byte[length];
                    in.readFully(body);
                    assertEquals(got, ByteBuffer.wrap(body).getInt(), "frames in order");
                    got++;
                }
            } catch (EOFException | java.net.SocketException closed) {
                // end of stream: the server closed
            }
            assertEquals(frames, got, "every frame queued before the graceful close reached the reader");
            c.closeFuture().get(10, TimeUnit.SECONDS);
            for (Probe p : probes) {
                assertTrue(p.written.await(5, TimeUnit.SECONDS), "every write completed");
            }
        }
    }

    // Item 3: answers written on the event loop skipped the cap and writability, and reading never paused.
    @ParameterizedTest
    @EnumSource(value = NativeTransport.class, names = {"NIO", "EPOLL"})
    void answersWrittenOnTheLoopCountAgainstTheCapAndReadingPausesWhileOverIt(NativeTransport kind)
            throws Exception {
        TransportTest.assumeAvailable(kind);
        long cap = 256 * 1024;
        AtomicLong refused = new AtomicLong();
        AtomicLong answered = new AtomicLong();
        byte[] answer = new byte[252]; // 256 bytes on the wire for every 16-byte request
        Accepting handler = new Accepting() {
            @Override
            public void received(Connection connection, Object message) {
                ((ByteBuf) message).release();
                try {
                    connection.send(answer, null); // on the event loop, as a server answers heartbeats
                    answered.incrementAndGet();
                } catch (PendingBytesExceededException e) {
                    refused.incrementAndGet();
                }
            }
        };
        long offeredLimit = 3 * MIB / 2; // 98,304 requests: 24 MiB of answers if nothing stops the peer
        long before = directMemory();
        try (NettyServerTransport server = server(kind, TransportOptions.builder().pendingBytesCap(cap), handler);
             SocketChannel peer = SocketChannel.open();
             Selector selector = Selector.open()) {
            peer.setOption(StandardSocketOptions.SO_RCVBUF, 4096);
            peer.connect(new InetSocketAddress("127.0.0.1", server.port()));
            peer.configureBlocking(false);
            SelectionKey key = peer.register(selector, SelectionKey.OP_WRITE);
            NettyConnection c = handler.first.get(10, TimeUnit.SECONDS);
            ByteBuffer requests = ByteBuffer.allocate(64 * 1024);
            while (requests.hasRemaining()) {
                requests.putInt(12).putLong(0).putInt(0);
            }
            requests.flip();
            long offered = 0;
            boolean stalled = false;
            while (offered < offeredLimit) {
                int n = peer.write(requests);
                offered += n;
                if (!requests.hasRemaining()) {
                    requests.rewind();
                }
                if (n == 0) {
                    // The server has not read for 2 s although we have more to send: it stopped reading.
                    if (selector.select(2_000) == 0) {
                        stalled = true;
                        break;
                    }
                    selector.selectedKeys().clear();
                }
            }
            // The server's own receive buffer may hold much of what we sent: wait until it has read everything it
            // is going to, that is until every request is handled or it stopped reading.
            long requestsSent = offered / 16;
            long[] side;
            long waitUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (true) {
                side = outboundSide(c);
                if (side[1] == 0 || answered.get() + refused.get() >= requestsSent) {
                    break;
                }
                assertTrue(System.nanoTime() < waitUntil, "the server neither handled every request nor paused");
            }
            long during = directMemory();
            System.out.printf("%s: peer offered %d KiB of requests (writer stalled: %s), %d answered, %d refused;"
                    + " pending %d KiB, in the channel %d KiB (cap %d KiB), reading %s, direct memory %d -> %d MiB%n",
                    kind, offered / 1024, stalled, answered.get(), refused.get(), side[0] / 1024, side[2] / 1024,
                    cap / 1024,
                    side[1] == 1 ? "on" : "paused", before / MIB, during / MIB);
            assertTrue(side[0] <= cap, "bytes accepted and not yet written stay within the cap: " + side[0]);
            // What Netty holds for the channel (data plus its per-write bookkeeping): the cap and its overhead.
            assertTrue(side[2] <= 2 * cap, "unwritten bytes in the channel stay near the cap: " + side[2]
                    + " bytes, cap " + cap);
            assertEquals(0, side[1], "autoRead is off while the outbound side is over the cap");
            assertTrue(answered.get() + refused.get() < requestsSent, "the server stopped reading with requests left");
            assertTrue(during - before < 12 * MIB, "direct memory bounded: " + (during - before) / MIB + " MiB");

            // Once the peer reads, the outbound side drains and the server reads again.
            key.interestOps(SelectionKey.OP_READ);
            ByteBuffer sink = ByteBuffer.allocate(64 * 1024);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (outboundSide(c)[1] == 0) {
                assertTrue(System.nanoTime() < deadline, "reading resumed once the peer drained the answers");
                sink.clear();
                if (peer.read(sink) == 0) {
                    selector.select(100);
                    selector.selectedKeys().clear();
                }
            }
        }
    }

    // docs/reliability.md C18f: the read pause belongs to connections whose outbound bytes answer the peer's
    // requests. A client over its own cap must still read the answers to the requests it already sent: pausing
    // would not drain its backlog, only leave answered calls waiting for their timeouts.
    @ParameterizedTest
    @EnumSource(value = NativeTransport.class, names = {"NIO", "EPOLL"})
    void aClientOverItsOwnCapKeepsReadingTheAnswersItIsSent(NativeTransport kind) throws Exception {
        TransportTest.assumeAvailable(kind);
        long cap = MIB;
        Accepting serverSide = new Accepting();
        java.util.concurrent.CountDownLatch answers = new java.util.concurrent.CountDownLatch(100);
        TransportHandler clientSide = (connection, message) -> {
            ((ByteBuf) message).release();
            answers.countDown();
        };
        try (NettyServerTransport server = server(kind, TransportOptions.builder()
                .socketBuffers(0, 8 * 1024), serverSide);
             NettyClientTransport client = NettyClientTransport.builder().remote("127.0.0.1", server.port())
                     .options(TransportOptions.builder().nativeTransport(kind).pendingBytesCap(cap)
                             .socketBuffers(16 * 1024, 0).build())
                     .codec(TestFrames.INSTANCE).handler(clientSide).build()) {
            NettyConnection c = (NettyConnection) client.connect().get(10, TimeUnit.SECONDS);
            NettyConnection s = serverSide.first.get(10, TimeUnit.SECONDS);
            // The server is busy: it reads no more for now (a slow path upstream), so the client's requests back up.
            s.channel().eventLoop().submit(() -> s.channel().config().setAutoRead(false)).get(5, TimeUnit.SECONDS);
            byte[] request = new byte[FRAME];
            int refused = 0;
            for (int i = 0; i < 10_000 && refused == 0; i++) {
                try {
                    c.send(request, null);
                } catch (PendingBytesExceededException e) {
                    refused++;
                }
            }
            assertEquals(1, refused, "the client's backlog reached its cap");
            // The server answers the requests it read before it got busy: 100 answers of 1 KiB.
            for (int i = 0; i < 100; i++) {
                s.send(new byte[1024], null);
            }
            boolean read = answers.await(10, TimeUnit.SECONDS);
            long[] side = outboundSide(c);
            System.out.printf("%s: client backlog %d KiB (cap %d KiB), reading %s, answers read %d of 100%n", kind,
                    side[0] / 1024, cap / 1024, side[1] == 1 ? "on" : "paused", 100 - answers.getCount());
            assertTrue(read, "the client read the answers while its own backlog was over the cap; "
                    + (100 - answers.getCount()) + " of 100 read");
            assertEquals(1, side[1], "the client's autoRead stays on");
            assertTrue(side[0] > cap / 2, "its backlog was still above half the cap: " + side[0]);
            s.channel().eventLoop().submit(() -> s.channel().config().setAutoRead(true)).get(5, TimeUnit.SECONDS);
        }
    }

    /**
     * {pending bytes as the connection counts them, 1 if autoRead is on, bytes in Netty's outbound buffer (with its
     * per-write overhead)}, read on the channel's event loop.
     */
    private static long[] outboundSide(NettyConnection c) throws Exception {
        Channel ch = c.channel();
        return ch.eventLoop().submit(() -> {
            ChannelOutboundBuffer out = ch.unsafe().outboundBuffer();
            long unwritten = out == null ? 0 : out.totalPendingWriteBytes();
            return new long[] {c.pendingBytes(), ch.config().isAutoRead() ? 1 : 0, unwritten};
        }).get(5, TimeUnit.SECONDS);
    }

    private static long directMemory() {
        long used = PlatformDependent.usedDirectMemory();
        return used >= 0 ? used : PooledByteBufAllocator.DEFAULT.metric().usedDirectMemory();
    }
}
