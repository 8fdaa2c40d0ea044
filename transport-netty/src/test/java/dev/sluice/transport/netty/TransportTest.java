package dev.sluice.transport.netty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.transport.ConnectFailedException;
import dev.sluice.transport.Connection;
import dev.sluice.transport.ConnectionClosedException;
import dev.sluice.transport.IdleState;
import dev.sluice.transport.NativeTransport;
import dev.sluice.transport.TransportClosedException;
import dev.sluice.transport.TransportHandler;
import dev.sluice.transport.TransportOptions;
import io.netty.buffer.ByteBuf;
import io.netty.channel.epoll.Epoll;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Client and server transports over real TCP loopback sockets, on NIO and on epoll (and io_uring where the kernel
 * allows): echo with many threads over one connection, idle hooks, reconnect with backoff, close semantics.
 */
@Timeout(120)
class TransportTest {

    /** Echoes every frame back on the same connection. */
    static final class EchoHandler implements TransportHandler {
        final AtomicInteger connections = new AtomicInteger();

        @Override
        public void connected(Connection connection) {
            connections.incrementAndGet();
        }

        @Override
        public void received(Connection connection, Object message) {
            ByteBuf payload = (ByteBuf) message;
            ByteBuf frame = null;
            try {
                frame = payload.alloc().ioBuffer(4 + payload.readableBytes());
                frame.writeInt(payload.readableBytes());
                frame.writeBytes(payload);
                connection.send(frame, null);
                frame = null;
            } catch (ConnectionClosedException e) {
                // peer went away
            } finally {
                payload.release();
                if (frame != null) {
                    frame.release();
                }
            }
        }
    }

    static NettyServerTransport echoServer(TransportOptions options, EchoHandler handler) {
        return NettyServerTransport.builder().port(0).options(options).codec(TestFrames.INSTANCE)
                .handler(handler).bind();
    }

    static void assumeAvailable(NativeTransport kind) {
        if (kind == NativeTransport.EPOLL) {
            Assumptions.assumeTrue(Epoll.isAvailable(), "epoll not available here");
        }
        if (kind == NativeTransport.IO_URING) {
            Assumptions.assumeTrue(EventLoops.resolve(kind) == NativeTransport.IO_URING, "io_uring not available here");
        }
    }

    @ParameterizedTest
    @EnumSource(value = NativeTransport.class, names = {"NIO", "EPOLL", "IO_URING"})
    void echoWithManyThreadsOverOneConnection(NativeTransport kind) throws Exception {
        assumeAvailable(kind);
        TransportOptions options = TransportOptions.builder().nativeTransport(kind).ioThreads(2).build();
        int threads = 16;
        int perThread = 2_000;
        AtomicIntegerArray nextSeq = new AtomicIntegerArray(threads);
        AtomicInteger outOfOrder = new AtomicInteger();
        CountDownLatch all = new CountDownLatch(threads * perThread);
        TransportHandler clientHandler = (connection, message) -> {
            ByteBuf b = (ByteBuf) message;
            try {
                int t = b.readInt();
                int seq = b.readInt();
                if (nextSeq.getAndIncrement(t) != seq) {
                    outOfOrder.incrementAndGet();
                }
                all.countDown();
            } finally {
                b.release();
            }
        };
        try (NettyServerTransport server = echoServer(options, new EchoHandler());
             NettyClientTransport client = NettyClientTransport.builder().remote("127.0.0.1", server.port())
                     .options(options).codec(TestFrames.INSTANCE).handler(clientHandler).build()) {
            assertEquals(kind, server.eventLoops().kind());
            Connection c = client.connect().get(10, TimeUnit.SECONDS);
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            try {
                List<Future<?>> fs = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    int id = t;
                    fs.add(pool.submit(() -> {
                        for (int i = 0; i < perThread; i++) {
                            byte[] msg = new byte[8 + (i % 64)];
                            msg[0] = 0;
                            msg[1] = 0;
                            msg[2] = 0;
                            msg[3] = (byte) id;
                            msg[4] = (byte) (i >>> 24);
                            msg[5] = (byte) (i >>> 16);
                            msg[6] = (byte) (i >>> 8);
                            msg[7] = (byte) i;
                            c.send(msg, null);
                        }
                        return null;
                    }));
                }
                for (Future<?> f : fs) {
                    f.get(60, TimeUnit.SECONDS);
                }
                assertTrue(all.await(60, TimeUnit.SECONDS), "echoes missing: " + all.getCount());
            } finally {
                pool.shutdownNow();
            }
            assertEquals(0, outOfOrder.get(), "per-thread order kept end to end");
        }
    }

    @ParameterizedTest
    @EnumSource(value = NativeTransport.class, names = {"NIO", "EPOLL"})
    void readerIdleHookFiresOnAQuietConnection(NativeTransport kind) throws Exception {
        assumeAvailable(kind);
        CountDownLatch idle = new CountDownLatch(1);
        TransportHandler clientHandler = new TransportHandler() {
            @Override
            public void received(Connection connection, Object message) {
                ((ByteBuf) message).release();
            }

            @Override
            public void idle(Connection connection, IdleState state) {
                if (state == IdleState.READER_IDLE) {
                    idle.countDown();
                }
            }
        };
        TransportOptions serverOptions = TransportOptions.builder().nativeTransport(kind).build();
        TransportOptions clientOptions = serverOptions.toBuilder().readerIdle(Duration.ofMillis(200)).build();
        try (NettyServerTransport server = echoServer(serverOptions, new EchoHandler());
             NettyClientTransport client = NettyClientTransport.builder().remote("127.0.0.1", server.port())
                     .options(clientOptions).codec(TestFrames.INSTANCE).handler(clientHandler).build()) {
            client.connect().get(10, TimeUnit.SECONDS);
            assertTrue(idle.await(10, TimeUnit.SECONDS), "reader-idle hook fired");
        }
    }

    @Test
    void clientStartedBeforeServerConnectsOnceItIsUpAndReconnectsAfterRestart() throws Exception {
        int port = freePort();
        TransportOptions options = TransportOptions.builder()
                .reconnectBackoff(Duration.ofMillis(50), Duration.ofMillis(200)).build();
        AtomicInteger disconnects = new AtomicInteger();
        java.util.concurrent.BlockingQueue<String> echoes = new java.util.concurrent.LinkedBlockingQueue<>();
        TransportHandler clientHandler = new TransportHandler() {
            @Override
            public void received(Connection connection, Object message) {
                ByteBuf b = (ByteBuf) message;
                try {
                    echoes.add(b.toString(java.nio.charset.StandardCharsets.UTF_8));
                } finally {
                    b.release();
                }
            }

            @Override
            public void disconnected(Connection connection, Throwable cause) {
                disconnects.incrementAndGet();
            }
        };
        try (NettyClientTransport client = NettyClientTransport.builder().remote("127.0.0.1", port).options(options)
                .codec(TestFrames.INSTANCE).handler(clientHandler).build()) {
            ExecutionException first = assertThrows(ExecutionException.class,
                    () -> client.connect().get(10, TimeUnit.SECONDS));
            assertInstanceOf(ConnectFailedException.class, first.getCause());
            assertTrue(first.getCause().getMessage().contains(String.valueOf(port)), first.getCause().getMessage());
            assertThrows(ConnectionClosedException.class, client::connection);

            EchoHandler echo = new EchoHandler();
            NettyServerTransport server = NettyServerTransport.builder().port(port).options(options)
                    .codec(TestFrames.INSTANCE).handler(echo).bind();
            awaitConnected(client);
            assertEquals("pong", roundTrip(client, echoes, "pong"));

            server.close();
            assertThrows(ConnectionClosedException.class, () -> awaitDisconnectedThenSend(client));
            server = NettyServerTransport.builder().port(port).options(options)
                    .codec(TestFrames.INSTANCE).handler(echo).bind();
            try {
                awaitConnected(client);
                assertEquals("again", roundTrip(client, echoes, "again"));
                assertTrue(disconnects.get() >= 1);
            } finally {
                server.close();
            }
        }
    }

    @Test
    void closingTheClientCancelsReconnecting() throws Exception {
        int port = freePort();
        TransportOptions options = TransportOptions.builder()
                .reconnectBackoff(Duration.ofMillis(20), Duration.ofMillis(40)).build();
        NettyClientTransport client = NettyClientTransport.builder().remote("127.0.0.1", port).options(options)
                .codec(TestFrames.INSTANCE).handler((c, m) -> ((ByteBuf) m).release()).build();
        assertThrows(ExecutionException.class, () -> client.connect().get(10, TimeUnit.SECONDS));
        client.close();
        assertThrows(TransportClosedException.class, client::connection);
        EchoHandler echo = new EchoHandler();
        try (NettyServerTransport server = NettyServerTransport.builder().port(port).options(options)
                .codec(TestFrames.INSTANCE).handler(echo).bind()) {
            // Several backoff periods pass: a cancelled client must never show up.
            CountDownLatch never = new CountDownLatch(1);
            assertFalse(never.await(300, TimeUnit.MILLISECONDS));
            assertEquals(0, echo.connections.get(), "no reconnect after close()");
        }
    }

    // D19/B16: the sends are really queued when the server closes. The server reads nothing (autoRead off, a 4 KiB
    // receive buffer), so the client's socket buffers fill, its channel goes unwritable and the drain leaves the
    // next sends in the write queue; then the server closes the connection.
    @ParameterizedTest
    @EnumSource(value = NativeTransport.class, names = {"NIO", "EPOLL"})
    void everyQueuedSendFailsAtOnceWhenTheServerCloses(NativeTransport kind) throws Exception {
        assumeAvailable(kind);
        CompletableFuture<NettyConnection> serverSide = new CompletableFuture<>();
        TransportHandler deaf = new TransportHandler() {
            @Override
            public void connected(Connection connection) {
                NettyConnection c = (NettyConnection) connection;
                c.channel().config().setAutoRead(false);
                serverSide.complete(c);
            }

            @Override
            public void received(Connection connection, Object message) {
                ((ByteBuf) message).release();
            }
        };
        try (NettyServerTransport server = NettyServerTransport.builder().port(0).codec(TestFrames.INSTANCE)
                .options(TransportOptions.builder().nativeTransport(kind).socketBuffers(0, 4096).build())
                .handler(deaf).bind();
             NettyClientTransport client = NettyClientTransport.builder().remote("127.0.0.1", server.port())
                     .options(TransportOptions.builder().nativeTransport(kind).reconnect(false).build())
                     .codec(TestFrames.INSTANCE).handler((c, m) -> ((ByteBuf) m).release()).build()) {
            NettyConnection c = (NettyConnection) client.connect().get(10, TimeUnit.SECONDS);
            NettyConnection onServer = serverSide.get(10, TimeUnit.SECONDS);
            List<WriteQueueTest.Probe> handedOver = StuckPeerTest.fillUntilUnwritable(c);
            List<WriteQueueTest.Probe> queued = StuckPeerTest.queueBehind(c, 20);

            long start = System.nanoTime();
            onServer.close().get(5, TimeUnit.SECONDS);
            c.closeFuture().get(5, TimeUnit.SECONDS);
            for (WriteQueueTest.Probe p : queued) {
                assertTrue(p.done.await(5, TimeUnit.SECONDS), "no queued send left pending");
                assertInstanceOf(ConnectionClosedException.class, p.failure.get());
                assertFalse(((ConnectionClosedException) p.failure.get()).wasSent(), "still queued: not sent");
                assertFalse(p.outcomeUnknown);
            }
            long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertTrue(tookMillis < 3_000, "failed at once, not by a timeout: " + tookMillis + " ms");
            for (WriteQueueTest.Probe p : handedOver) {
                assertTrue(p.done.await(5, TimeUnit.SECONDS), "no listener left pending");
                if (p.failure.get() != null) {
                    assertTrue(p.outcomeUnknown, "handed to the socket, then failed: unknown, never 'not sent'");
                }
            }
            assertEquals(0, c.pendingBytes());
            ConnectionClosedException e = assertThrows(ConnectionClosedException.class, () -> c.send("late"));
            assertFalse(e.wasSent());
            assertThrows(ConnectionClosedException.class, client::connection);
        }
    }

    @Test
    void gracefulServerCloseStopsAcceptingAndClosesConnections() throws Exception {
        NettyServerTransport server = echoServer(TransportOptions.defaults(), new EchoHandler());
        int port = server.port();
        try (NettyClientTransport client = NettyClientTransport.builder().remote("127.0.0.1", port)
                .options(TransportOptions.builder().reconnect(false).build())
                .codec(TestFrames.INSTANCE).handler((c, m) -> ((ByteBuf) m).release()).build()) {
            Connection c = client.connect().get(10, TimeUnit.SECONDS);
            assertEquals(1, awaitConnections(server, 1));
            server.close(Duration.ofSeconds(5)).get(10, TimeUnit.SECONDS);
            c.closeFuture().get(5, TimeUnit.SECONDS);
            assertSame(server.close(Duration.ofSeconds(1)), server.close(Duration.ofSeconds(1)),
                    "second close is harmless");
            assertThrows(ExecutionException.class, () -> client.connect().get(10, TimeUnit.SECONDS));
        }
    }

    private static int awaitConnections(NettyServerTransport server, int n) throws Exception {
        for (int i = 0; i < 1000 && server.connections().size() < n; i++) {
            server.eventLoops().group().next().submit(() -> { }).get(5, TimeUnit.SECONDS);
        }
        return server.connections().size();
    }

    private static String roundTrip(NettyClientTransport client, java.util.concurrent.BlockingQueue<String> echoes,
                                    String text) throws Exception {
        client.connection().send(text).get(5, TimeUnit.SECONDS);
        return echoes.poll(5, TimeUnit.SECONDS);
    }

    // docs/reliability.md B16a: an observer that throws when a connection closes must not keep the handler from
    // hearing of the close: the calls waiting on that connection fail at once, not by their timeouts.
    @Test
    void anObserverThatThrowsOnCloseStillLetsTheHandlerFailWaitingCalls() throws Exception {
        WriteQueueTest.ThrowingObserver observer = new WriteQueueTest.ThrowingObserver();
        StuckPeerTest.Accepting serverSide = new StuckPeerTest.Accepting();
        CompletableFuture<Throwable> disconnected = new CompletableFuture<>();
        TransportHandler clientSide = new TransportHandler() {
            @Override
            public void received(Connection connection, Object message) {
                ((ByteBuf) message).release();
            }

            @Override
            public void disconnected(Connection connection, Throwable cause) {
                disconnected.complete(cause);
            }
        };
        try (NettyServerTransport server = NettyServerTransport.builder().port(0).codec(TestFrames.INSTANCE)
                .handler(serverSide).bind();
             NettyClientTransport client = NettyClientTransport.builder().remote("127.0.0.1", server.port())
                     .options(TransportOptions.builder().reconnect(false).observer(observer).build())
                     .codec(TestFrames.INSTANCE).handler(clientSide).build()) {
            client.connect().get(10, TimeUnit.SECONDS);
            serverSide.first.get(10, TimeUnit.SECONDS).close(Duration.ZERO);
            Throwable cause = disconnected.get(5, TimeUnit.SECONDS);
            assertTrue(cause instanceof ConnectionClosedException, "told of the close: " + cause);
            assertTrue(observer.calls.get() > 0, "the observer was called (and threw)");
        }
    }

    private static void awaitConnected(NettyClientTransport client) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!client.isConnected()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("client did not reconnect");
            }
            try {
                client.connect().get(5, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                // server not up yet: the client keeps retrying with backoff
            }
        }
    }

    private static void awaitDisconnectedThenSend(NettyClientTransport client) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (client.isConnected() && System.nanoTime() < deadline) {
            client.eventLoops().group().next().submit(() -> { }).get(5, TimeUnit.SECONDS);
        }
        client.connection();
    }

    private static int freePort() throws Exception {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
