package dev.sluice.it.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.codec.dubbo.DubboRequest;
import dev.sluice.codec.dubbo.TestBytes;
import dev.sluice.it.harness.ChildResult;
import dev.sluice.it.harness.IsolatedJvm;
import dev.sluice.it.rpc.model.SluiceAttachments;
import dev.sluice.it.rpc.model.TypesService;
import dev.sluice.it.rpc.model.TypesServiceImpl;
import dev.sluice.rpc.SluiceClient;
import dev.sluice.rpc.SluiceServer;
import dev.sluice.transport.NativeTransport;
import dev.sluice.transport.PendingBytesExceededException;
import dev.sluice.transport.TransportOptions;
import dev.sluice.transport.netty.EventLoops;
import java.io.EOFException;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * docs/reliability.md C18a, C18b, D22 and E25 / issue 12 items 1, 3 and 4, through SluiceClient and SluiceServer: peers
 * whose socket stops being read, made real with plain sockets that have small receive buffers and do not read.
 */
@Timeout(120)
class PeerStopsReadingTest {
    private static final long MIB = 1 << 20;
    /**
     * What a server may hold for a peer that never reads beyond its pending-bytes cap, in heap and in direct memory
     * each: the pooled allocator's chunk granularity and caches, one answer being encoded per service thread, and the
     * classes and caches the first answers load.
     */
    private static final long HELD_BEYOND_CAP = 4 * MIB;
    private final ExecutorService threads = Executors.newCachedThreadPool();

    @AfterEach
    void stop() {
        threads.shutdownNow();
    }

    private static TransportOptions on(NativeTransport kind) {
        Assumptions.assumeTrue(EventLoops.resolve(kind) == kind, kind + " is not available on this machine");
        return TransportOptions.builder().nativeTransport(kind).build();
    }

    // Item 1 (C18b, D22): the provider freezes while calls flow. The client's idle check closes the connection;
    // the close must happen although nothing can be flushed, and the client must reconnect.
    @ParameterizedTest
    @EnumSource(value = NativeTransport.class, names = {"NIO", "EPOLL"})
    void aClientWhoseProviderStopsReadingMidStreamClosesTheConnectionAndReconnects(NativeTransport kind)
            throws Exception {
        TransportOptions options = on(kind).toBuilder().pendingBytesCap(MIB).closeTimeout(Duration.ofMillis(500))
                .reconnectBackoff(Duration.ofMillis(50), Duration.ofMillis(100)).build();
        BlockingQueue<Socket> accepted = new LinkedBlockingQueue<>();
        List<Socket> keep = new ArrayList<>(); // referenced until the end: a collected Socket closes its connection
        try (ServerSocket frozen = new ServerSocket()) {
            frozen.setReceiveBufferSize(4096);
            frozen.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            threads.execute(() -> {
                try {
                    while (true) {
                        accepted.add(frozen.accept()); // accepts, never reads, never answers
                    }
                } catch (IOException e) {
                    // closed by the test
                }
            });
            try (SluiceClient client = SluiceClient.builder().address("127.0.0.1", frozen.getLocalPort())
                    .options(options).heartbeat(Duration.ofMillis(500), Duration.ofMillis(3000))
                    .failIfNotConnected(true).build()) {
                keep.add(accepted.poll(10, TimeUnit.SECONDS));
                assertNotNull(keep.get(0));
                TypesService s = client.reference(TypesService.class).oneWay("fire").proxy();
                String payload = "p".repeat(32 * 1024);
                int refused = 0;
                for (int i = 0; i < 2000 && refused == 0; i++) {
                    try {
                        s.fire(payload); // until the socket buffers and the 1 MiB cap are full
                    } catch (PendingBytesExceededException e) {
                        refused++;
                    }
                }
                assertEquals(1, refused, "the socket buffers and the cap filled up: the provider is not reading");
                // No reads for 3 s: the idle check closes the connection; with nothing flushable it must close
                // within its 500 ms bound, and the client must connect again.
                keep.add(accepted.poll(15, TimeUnit.SECONDS));
                assertNotNull(keep.get(1), "the client reconnected");
            } finally {
                keep.addAll(accepted);
                for (Socket k : keep) {
                    if (k != null) {
                        k.close();
                    }
                }
            }
        }
    }

    // Item 4 (E25): a graceful stop while responses wait for a slow reader delivers every one of them. Many 1 KB
    // responses, 3 MB in all, behind a 16 KiB server send buffer: the write queue drains them in chunks of up to
    // 128, so the close is drained together with the last of them, and a close right after that flush would drop
    // what the socket had not taken yet.
    @ParameterizedTest
    @EnumSource(value = NativeTransport.class, names = {"NIO", "EPOLL"})
    void aGracefulStopDeliversEveryResponseToASlowReader(NativeTransport kind) throws Exception {
        java.util.concurrent.atomic.AtomicInteger ran = new java.util.concurrent.atomic.AtomicInteger();
        TypesServiceImpl impl = new TypesServiceImpl(SluiceAttachments.INSTANCE, Runnable::run) {
            @Override
            public String echo(String s) {
                ran.incrementAndGet();
                return s;
            }
        };
        int calls = 3000;
        String payload = "r".repeat(1000);
        SluiceServer server = SluiceServer.builder().port(0)
                .options(on(kind).toBuilder().socketBuffers(16 * 1024, 0).build())
                .register(TypesService.class, impl).start();
        int port = server.port();
        try (Socket reader = new Socket()) {
            reader.setReceiveBufferSize(8 * 1024);
            reader.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
            reader.setSoTimeout(20_000);
            List<byte[]> requests = new ArrayList<>();
            for (int i = 0; i < calls; i++) {
                requests.add(Wire.request(1000 + i, TypesService.class, "echo", payload));
            }
            OutputStream out = reader.getOutputStream();
            out.write(TestBytes.concat(requests.toArray(new byte[0][])));
            out.flush();
            Await.until(() -> ran.get() == calls && server.inFlight() == 0, Duration.ofSeconds(60),
                    "every call ran (the reader has not read yet)");
            CompletableFuture<Void> closed = server.close(Duration.ofSeconds(60));
            Await.until(() -> refusesConnections(port), Duration.ofSeconds(10), "the server stopped accepting");
            // Now read, slowly: 8 KiB a millisecond.
            InputStream in = new SlowInputStream(reader.getInputStream());
            Set<Long> answered = new HashSet<>();
            boolean readonly = false;
            try {
                while (true) {
                    Wire.Frame f = Wire.read(in);
                    if (f.isResponse()) {
                        assertEquals(20, f.status(), "response " + f.id());
                        answered.add(f.id());
                    } else if ((f.flags() & 0x20) != 0) {
                        readonly = true; // the readonly event
                    }
                }
            } catch (EOFException | SocketException end) {
                // the server closed the connection
            }
            assertEquals(calls, answered.size(), "every call that ran was answered before the close");
            assertTrue(readonly, "the readonly event was sent");
            closed.get(30, TimeUnit.SECONDS);
        } finally {
            server.close();
        }
    }

    // Item 3 (C18a): a peer streams two-way heartbeats and bad requests, all answered on the event loop, and never
    // reads the answers. The server must stop reading it rather than buffer answers without bound.
    @ParameterizedTest
    @EnumSource(value = NativeTransport.class, names = {"NIO", "EPOLL"})
    void aPeerThatNeverReadsWhileStreamingHeartbeatsAndBadRequestsCannotGrowTheServer(NativeTransport kind)
            throws Exception {
        long cap = 128 * 1024;
        List<String> served = Collections.synchronizedList(new ArrayList<>());
        TypesServiceImpl impl = new TypesServiceImpl(SluiceAttachments.INSTANCE, Runnable::run) {
            @Override
            public String echo(String s) {
                served.add(s);
                return s;
            }
        };
        // One block: 16 two-way heartbeats, a request in a serialization we do not speak, and a call of a method
        // that is not there, with a 16 KiB name the "not found" answer repeats. Each is answered on the event loop
        // (heartbeat, status 40, status 40), and the answers are as large as the requests.
        byte[] unknownSerialization = Wire.request(2, TypesService.class, "echo", "x");
        unknownSerialization[2] = (byte) 0xc2;
        java.util.Map<String, Object> attachments = new java.util.HashMap<>();
        attachments.put("path", TypesService.class.getName());
        attachments.put("interface", TypesService.class.getName());
        attachments.put("version", "0.0.0");
        byte[] unknownMethod = TestBytes.frame(DubboRequest.invocation(3, dev.sluice.codec.dubbo.DubboMethod.of(
                TypesService.class.getName(), null, "m".repeat(16 * 1024), "Ljava/lang/String;"),
                new Object[] {"x"}, attachments));
        List<byte[]> parts = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
            parts.add(TestBytes.frame(DubboRequest.heartbeat(i)));
        }
        parts.add(unknownSerialization);
        parts.add(unknownMethod);
        byte[] block = TestBytes.concat(parts.toArray(new byte[0][]));
        // 24 MiB of requests: the server's socket buffer (it grows to a few MiB) takes the first answers; the rest,
        // some 20 MiB, would wait in the server if nothing stopped the peer.
        long blocks = (24 * MIB) / block.length;
        try (SluiceServer server = SluiceServer.builder().port(0).options(on(kind).toBuilder().pendingBytesCap(cap)
                .build()).register(TypesService.class, impl).start();
             SluiceClient bystander = SluiceClient.builder().address("127.0.0.1", server.port()).options(on(kind))
                     .timeout(Duration.ofSeconds(10)).failIfNotConnected(true).build();
             Socket peer = new Socket()) {
            TypesService s = bystander.proxy(TypesService.class);
            assertEquals("warm", s.echo("warm"));
            long before = Fixtures.directMemory();
            long heapBefore = DeafPeerScenario.heapAfterGc();
            peer.setReceiveBufferSize(4096);
            peer.connect(new InetSocketAddress("127.0.0.1", server.port()), 5_000);
            // The writer blocks for good once the server stops reading; closing the socket ends it.
            java.util.concurrent.atomic.AtomicLong sent = new java.util.concurrent.atomic.AtomicLong();
            CompletableFuture<Void> written = CompletableFuture.runAsync(() -> {
                try {
                    OutputStream out = peer.getOutputStream();
                    for (long b = 0; b < blocks; b++) {
                        out.write(block);
                        sent.addAndGet(block.length);
                    }
                    out.write(Wire.request(4, TypesService.class, "echo", "marker")); // runs once all was read
                    out.flush();
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            }, threads);
            // Watch until the writer is stuck (the server refused an answer for the cap, and a whole second passed
            // without one more block leaving the writer), or it is done.
            long worst = 0;
            long last = -1;
            long lastChange = System.nanoTime();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!written.isDone() && System.nanoTime() < deadline) {
                long now = sent.get();
                if (now != last) {
                    last = now;
                    lastChange = System.nanoTime();
                } else if (System.nanoTime() - lastChange > TimeUnit.SECONDS.toNanos(1)
                        && server.stats().droppedResponses() > 0) {
                    break;
                }
                worst = Math.max(worst, Fixtures.directMemory() - before);
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
            }
            worst = Math.max(worst, Fixtures.directMemory() - before);
            long heap = DeafPeerScenario.heapAfterGc() - heapBefore;
            System.out.printf("%s: deaf peer streaming heartbeats and bad requests: sent %d KiB of %d, writer done: %s,"
                    + " all read: %s, direct memory grew at most %d MiB, heap held %d KiB (cap %d KiB)%n", kind,
                    sent.get() / 1024, blocks * block.length / 1024, written.isDone(), served.contains("marker"),
                    worst / MIB, heap / 1024, cap / 1024);
            assertFalse(written.isDone(), "the server stopped reading the peer that does not read: its writes block");
            assertFalse(served.contains("marker"), "the server did not read everything");
            assertTrue(worst < 12 * MIB, "direct memory bounded: grew " + worst / MIB + " MiB");
            // The test JVM tracks every buffer for leaks (a stack trace each): a heap bound here is loose, the exact
            // one is aPeerThatNeverReadsHoldsAtMostTheCapPlusAConstantOfHeapAndDirectMemory's.
            assertTrue(heap < 16 * MIB, "heap held bounded: " + heap / 1024 + " KiB for " + sent.get() / 1024
                    + " KiB sent");
            long start = System.nanoTime();
            assertEquals("others are served", s.echo("others are served"));
            assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(2), "promptly");
        }
    }

    // Item 4 of issue 30 (C18c): every queued answer charges what it holds, not only its wire bytes. A peer with a
    // small receive buffer never reads and streams requests at a server with a 1 MiB cap until its writes block:
    // 16-byte two-way heartbeats (each answer a 16-byte frame, answered on the event loop), or small calls each
    // answered with 256 KiB. The server, in a JVM of its own (see DeafPeerScenario), holds at most the cap plus a
    // small constant of heap and of direct memory, however many answers the peer provoked.
    @ParameterizedTest
    @CsvSource({"NIO, heartbeats", "EPOLL, heartbeats", "NIO, blobs", "EPOLL, blobs"})
    void aPeerThatNeverReadsHoldsAtMostTheCapPlusAConstantOfHeapAndDirectMemory(NativeTransport kind, String attack)
            throws Exception {
        on(kind);
        long cap = MIB;
        ChildResult result = IsolatedJvm.of(DeafPeerScenario.class).name("deaf-peer-" + kind + "-" + attack)
                .network(IsolatedJvm.Network.HOST).timeout(Duration.ofSeconds(100))
                .jvmFlags("-Dio.netty.leakDetection.level=simple")
                .args(kind.name(), attack, Long.toString(cap)).run()
                .assertPassed(DeafPeerScenario.RESULT);
        long sent = result.longMetric(DeafPeerScenario.RESULT, "sent");
        long heap = result.longMetric(DeafPeerScenario.RESULT, "heapHeld");
        long direct = result.longMetric(DeafPeerScenario.RESULT, "directHeld");
        System.out.printf("%s %s: the deaf peer sent %d KiB; the server holds %d KiB of heap and %d KiB of direct"
                + " memory in buffers (%d KiB more reserved by the allocator; cap %d KiB)%n", kind, attack,
                sent / 1024, heap / 1024, direct / 1024,
                result.longMetric(DeafPeerScenario.RESULT, "directReserved") / 1024, cap / 1024);
        // Stopped either way: reading paused, so the peer's writes block; or, with more answers waiting for the cap
        // than a connection may hold back, the connection closed by the server.
        assertTrue("true".equals(result.metric(DeafPeerScenario.RESULT, "writerStopped"))
                || "true".equals(result.metric(DeafPeerScenario.RESULT, "serverClosed")),
                "the server stopped the peer: its writes block, or the server closed it; "
                        + result.metric(DeafPeerScenario.RESULT, "writerEnd"));
        assertTrue(sent > 2 * cap, "the peer sent more than the cap before it was stopped: " + sent);
        assertTrue(heap < cap + HELD_BEYOND_CAP, "heap held: " + heap / 1024 + " KiB for " + sent / 1024
                + " KiB sent; cap " + cap / 1024 + " KiB");
        assertTrue(direct < cap + HELD_BEYOND_CAP, "direct memory held: " + direct / 1024 + " KiB for "
                + sent / 1024 + " KiB sent; cap " + cap / 1024 + " KiB");
    }

    private static boolean refusesConnections(int port) {
        try (Socket probe = new Socket()) {
            probe.connect(new InetSocketAddress("127.0.0.1", port), 1_000);
            return false;
        } catch (IOException refused) {
            return true;
        }
    }

    /** Pauses a millisecond after every 8 KiB it hands out: a reader slower than the server, about 8 MB/s. */
    private static final class SlowInputStream extends FilterInputStream {
        private int sincePause;

        SlowInputStream(InputStream in) {
            super(in);
        }

        @Override
        public int read() throws IOException {
            int b = super.read();
            paced(1);
            return b;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            int n = super.read(b, off, Math.min(len, 8 * 1024));
            paced(n);
            return n;
        }

        private void paced(int n) {
            sincePause += Math.max(n, 0);
            if (sincePause >= 8 * 1024) {
                sincePause = 0;
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
            }
        }
    }
}
