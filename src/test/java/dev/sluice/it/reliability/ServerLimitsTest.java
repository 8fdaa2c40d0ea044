package dev.sluice.it.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.rpc.SluiceClient;
import dev.sluice.rpc.SluiceServer;
import dev.sluice.transport.NativeTransport;
import dev.sluice.transport.TransportOptions;
import dev.sluice.transport.netty.EventLoops;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Issue 12 item 6: the limits a server needs against floods and slow senders, each refusal a clear error (a close
 * with a logged reason, or status 100) counted in {@link SluiceServer#stats()}, and the server still serving within
 * its limits.
 */
@Timeout(90)
class ServerLimitsTest {
    private static SluiceServer.Builder server(DroppedResponseTest.DropServiceImpl impl) {
        return SluiceServer.builder().port(0).register(DropService.class, impl);
    }

    private static SluiceServer.Builder server(DroppedResponseTest.DropServiceImpl impl, NativeTransport kind) {
        Assumptions.assumeTrue(EventLoops.resolve(kind) == kind, kind + " is not available on this machine");
        return server(impl).options(TransportOptions.builder().nativeTransport(kind).build());
    }

    private static Socket connect(String localAddress, int port) throws IOException {
        Socket s = new Socket();
        s.bind(new InetSocketAddress(localAddress, 0));
        s.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
        s.setTcpNoDelay(true);
        return s;
    }

    /** True when the server closed {@code s}; false when it is still open after {@code millis} of silence. */
    private static boolean closedByServer(Socket s, int millis) throws IOException {
        s.setSoTimeout(millis);
        try {
            return s.getInputStream().read() == -1;
        } catch (SocketTimeoutException open) {
            return false;
        } catch (IOException reset) {
            return true;
        }
    }

    private static void closeAll(List<Socket> sockets) {
        for (Socket s : sockets) {
            try {
                s.close();
            } catch (IOException ignored) {
                // closing a socket the server already closed
            }
        }
    }

    private static void assertServes(SluiceServer server) {
        try (SluiceClient client = SluiceClient.builder().address("127.0.0.1", server.port())
                .timeout(Duration.ofSeconds(5)).failIfNotConnected(true).build()) {
            assertEquals(3, client.proxy(DropService.class).length("abc"));
        }
    }

    @ParameterizedTest
    @EnumSource(value = NativeTransport.class, names = {"NIO", "EPOLL"})
    void connectionFloodPastTheTotalLimitIsRefusedAndCounted(NativeTransport kind) throws Exception {
        int limit = 5;
        int flood = 40;
        try (SluiceServer server = server(new DroppedResponseTest.DropServiceImpl(), kind).maxConnections(limit, 0)
                .start()) {
            List<Socket> sockets = new ArrayList<>();
            try {
                for (int i = 0; i < flood; i++) {
                    sockets.add(connect("127.0.0." + (1 + i % 8), server.port())); // several source addresses
                }
                Await.until(() -> server.stats().refusedConnections() == flood - limit, Duration.ofSeconds(10),
                        "refusals counted: " + server.stats());
                int open = 0;
                for (Socket s : sockets) {
                    if (!closedByServer(s, 200)) {
                        open++;
                    }
                }
                assertEquals(limit, open, "connections the server kept");
                assertEquals(limit, server.stats().connections());
            } finally {
                closeAll(sockets);
            }
            Await.until(() -> server.stats().connections() == 0, Duration.ofSeconds(10), "flood connections closed");
            assertServes(server); // the closed connections no longer count
        }
    }

    @ParameterizedTest
    @EnumSource(value = NativeTransport.class, names = {"NIO", "EPOLL"})
    void connectionFloodFromOneAddressIsLimitedAndOtherAddressesAreServed(NativeTransport kind) throws Exception {
        int perAddress = 3;
        try (SluiceServer server =
                server(new DroppedResponseTest.DropServiceImpl(), kind).maxConnections(100, perAddress)
                .start()) {
            List<Socket> flood = new ArrayList<>();
            List<Socket> others = new ArrayList<>();
            try {
                for (int i = 0; i < 20; i++) {
                    flood.add(connect("127.0.0.2", server.port()));
                }
                Await.until(() -> server.stats().refusedConnections() == 20 - perAddress, Duration.ofSeconds(10),
                        "refusals counted: " + server.stats());
                for (int i = 0; i < perAddress; i++) {
                    others.add(connect("127.0.0.3", server.port()));
                }
                int open = 0;
                for (Socket s : flood) {
                    if (!closedByServer(s, 200)) {
                        open++;
                    }
                }
                assertEquals(perAddress, open, "connections kept from the flooding address");
                for (Socket s : others) {
                    assertTrue(!closedByServer(s, 200), "a connection from another address was refused");
                }
                assertEquals(20 - perAddress, server.stats().refusedConnections());
                assertServes(server); // from 127.0.0.1
            } finally {
                closeAll(flood);
                closeAll(others);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = NativeTransport.class, names = {"NIO", "EPOLL"})
    void bodyTrickledPastTheFrameTimeoutClosesTheConnection(NativeTransport kind) throws Exception {
        Duration frameTimeout = Duration.ofMillis(600);
        byte[] request = Wire.request(9, DropService.class, "length", "t".repeat(2_000));
        ScheduledExecutorService trickler = Executors.newSingleThreadScheduledExecutor();
        try (SluiceServer server = server(new DroppedResponseTest.DropServiceImpl(), kind).frameTimeout(frameTimeout)
                .start();
             Socket raw = connect("127.0.0.1", server.port())) {
            OutputStream out = raw.getOutputStream();
            out.write(request, 0, Wire.HEADER + 10); // the header and a little of the body at once
            out.flush();
            AtomicInteger next = new AtomicInteger(Wire.HEADER + 10);
            long start = System.nanoTime();
            trickler.scheduleAtFixedRate(() -> { // then one byte every 50 ms: ~100 s for the whole body
                int i = next.getAndIncrement();
                try {
                    out.write(request[i]);
                    out.flush();
                } catch (IOException closed) {
                    throw new IllegalStateException("stop trickling", closed);
                }
            }, 50, 50, TimeUnit.MILLISECONDS);
            assertTrue(closedByServer(raw, 10_000), "the connection trickling a body was not closed");
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertTrue(millis >= frameTimeout.toMillis() - 50 && millis < frameTimeout.toMillis() + 3_000,
                    "closed after " + millis + " ms");
            assertEquals(1, server.stats().frameTimeouts());
            assertServes(server);
        } finally {
            trickler.shutdownNow();
        }
    }

    @ParameterizedTest
    @EnumSource(value = NativeTransport.class, names = {"NIO", "EPOLL"})
    void steadyStreamOfSplitFramesIsNotMistakenForATrickle(NativeTransport kind) throws Exception {
        Duration frameTimeout = Duration.ofMillis(300);
        try (SluiceServer server = server(new DroppedResponseTest.DropServiceImpl(), kind).frameTimeout(frameTimeout)
                .start();
             Socket raw = connect("127.0.0.1", server.port())) {
            raw.setSoTimeout(10_000);
            // Requests written back to back for several frame timeouts, every write ending inside a frame: a frame
            // is always pending, but each completes quickly.
            int count = 60;
            ByteArrayBuilder stream = new ByteArrayBuilder();
            for (int i = 0; i < count; i++) {
                stream.add(Wire.request(100 + i, DropService.class, "length", "s".repeat(500 + i)));
            }
            byte[] all = stream.bytes();
            int writes = count * 2 / 3; // about 1.5 frames per write
            int chunk = all.length / writes + 1;
            long period = frameTimeout.multipliedBy(4).toMillis() / writes; // spread over four frame timeouts
            OutputStream out = raw.getOutputStream();
            AtomicInteger pos = new AtomicInteger();
            CompletableFuture<Void> written = new CompletableFuture<>();
            ScheduledExecutorService writer = Executors.newSingleThreadScheduledExecutor();
            try {
                writer.scheduleAtFixedRate(() -> {
                    int from = pos.get();
                    int n = Math.min(chunk, all.length - from);
                    try {
                        out.write(all, from, n);
                        out.flush();
                    } catch (IOException e) {
                        written.completeExceptionally(e);
                        throw new IllegalStateException(e);
                    }
                    if (pos.addAndGet(n) == all.length) {
                        written.complete(null);
                        throw new IllegalStateException("done"); // ends the schedule
                    }
                }, 0, Math.max(1, period), TimeUnit.MILLISECONDS);
                written.get(30, TimeUnit.SECONDS);
            } finally {
                writer.shutdownNow();
            }
            InputStream in = raw.getInputStream();
            Map<Long, Integer> answers = new HashMap<>();
            for (int i = 0; i < count; i++) {
                Wire.Frame f = Wire.read(in);
                answers.put(f.id(), f.status());
            }
            assertEquals(count, answers.size());
            assertTrue(answers.values().stream().allMatch(s -> s == 20), answers.toString());
            assertEquals(0, server.stats().frameTimeouts());
        }
    }

    @ParameterizedTest
    @EnumSource(value = NativeTransport.class, names = {"NIO", "EPOLL"})
    void requestBytesPastTheQueueBudgetAreRefusedWithStatus100(NativeTransport kind) throws Exception {
        DroppedResponseTest.DropServiceImpl impl = new DroppedResponseTest.DropServiceImpl();
        int budget = 64 * 1024;
        int argument = 20_000;
        try (SluiceServer server = server(impl, kind).threads(1, 1_000).queuedRequestBytes(budget).start();
             Socket raw = connect("127.0.0.1", server.port())) {
            raw.setSoTimeout(10_000);
            OutputStream out = raw.getOutputStream();
            out.write(Wire.request(1, DropService.class, "hold", "first"));
            out.flush();
            assertTrue(impl.held.await(10, TimeUnit.SECONDS), "the pool's only thread is busy");
            int sent = 10;
            for (int i = 0; i < sent; i++) {
                out.write(Wire.request(10 + i, DropService.class, "length", "q".repeat(argument)));
            }
            out.flush();
            int fit = (int) (budget / Wire.request(10, DropService.class, "length", "q".repeat(argument)).length);
            InputStream in = raw.getInputStream();
            // The refusals come at once, while the pool is still busy.
            for (int i = fit; i < sent; i++) {
                Wire.Frame f = Wire.read(in);
                assertEquals(10 + i, f.id());
                assertEquals(100, f.status(), f.text());
                assertTrue(f.text().contains("budget of " + budget) && f.text().contains("not executed"), f.text());
            }
            assertEquals(sent - fit, server.stats().refusedRequests());
            assertTrue(server.stats().queuedRequestBytes() > 0 && server.stats().queuedRequestBytes() <= budget,
                    server.stats().toString());
            impl.release.countDown();
            List<Long> served = new ArrayList<>();
            for (int i = 0; i <= fit; i++) {
                Wire.Frame f = Wire.read(in);
                assertEquals(20, f.status(), "response " + f.id());
                served.add(f.id());
            }
            List<Long> expected = new ArrayList<>(List.of(1L));
            for (int i = 0; i < fit; i++) {
                expected.add(10L + i);
            }
            assertEquals(expected, served);
            Await.until(() -> server.stats().queuedRequestBytes() == 0, Duration.ofSeconds(5), "budget released");
        }
    }

    /** Concatenates byte arrays. */
    private static final class ByteArrayBuilder {
        private byte[] bytes = new byte[0];

        void add(byte[] more) {
            byte[] b = Arrays.copyOf(bytes, bytes.length + more.length);
            System.arraycopy(more, 0, b, bytes.length, more.length);
            bytes = b;
        }

        byte[] bytes() {
            return bytes;
        }
    }
}
