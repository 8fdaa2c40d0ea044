package dev.sluice.it.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.it.rpc.model.Item;
import dev.sluice.it.rpc.model.SluiceAttachments;
import dev.sluice.it.rpc.model.TypesService;
import dev.sluice.rpc.SluiceClient;
import dev.sluice.rpc.SluiceServer;
import dev.sluice.transport.NativeTransport;
import dev.sluice.transport.PendingBytesExceededException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * docs/reliability.md C17-C18: a peer that stops reading costs at most the pending-bytes cap; senders fail fast with
 * {@link PendingBytesExceededException} instead of queueing without bound; direct memory stays bounded; and large
 * responses to a client that keeps sending neither exhaust memory nor stall the other calls.
 */
@Timeout(90)
class BackpressureTest {
    private static final long CAP = 1 << 20;
    private static final long MB = 1 << 20;
    private final ExecutorService threads = Executors.newCachedThreadPool();

    @AfterEach
    void stop() {
        threads.shutdownNow();
    }

    /** A listener whose accepted sockets are never read: the slowest consumer there is. */
    private ServerSocket deafPeer(CountDownLatch accepted, List<Socket> keep) throws IOException {
        ServerSocket listener = new ServerSocket();
        listener.setReceiveBufferSize(8 * 1024);
        listener.bind(new java.net.InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        threads.execute(() -> {
            try {
                Socket s = listener.accept();
                keep.add(s);
                accepted.countDown();
            } catch (IOException e) {
                // closed by the test
            }
        });
        return listener;
    }

    // C17: client -> a provider that stops reading.
    @ParameterizedTest
    @EnumSource(value = NativeTransport.class, names = {"NIO", "EPOLL"})
    void aPeerThatStopsReadingCostsAtMostTheCapAndSendersFailFast(NativeTransport kind) throws Exception {
        CountDownLatch accepted = new CountDownLatch(1);
        List<Socket> keep = new ArrayList<>();
        try (ServerSocket listener = deafPeer(accepted, keep)) {
            long before = Fixtures.directMemory();
            // Stall detection off: this is about the cap. With it on (the default), a deaf peer that has been silent
            // for 2 s makes sends fail as stalled instead, which a loaded machine reaches before the cap fills.
            SluiceClient client = SluiceClient.builder().address("127.0.0.1", listener.getLocalPort())
                    .failIfNotConnected(true).timeout(Duration.ofSeconds(30)).stallTimeout(Duration.ZERO)
                    .options(Fixtures.on(kind).reconnect(false).pendingBytesCap(CAP).build()).build();
            try {
                assertTrue(accepted.await(10, TimeUnit.SECONDS));
                TypesService s = client.reference(TypesService.class).oneWay("fire").proxy();
                String payload = "p".repeat(32 * 1024);
                AtomicInteger sent = new AtomicInteger();
                AtomicInteger refused = new AtomicInteger();
                AtomicLong slowestRefusalNanos = new AtomicLong();
                AtomicInteger slowRefusals = new AtomicInteger();
                AtomicLong worstPending = new AtomicLong();
                List<Future<?>> senders = new ArrayList<>();
                for (int t = 0; t < 8; t++) {
                    senders.add(threads.submit(() -> {
                        for (int i = 0; i < 800; i++) { // 8 x 800 x 32 KiB = 200 MiB offered
                            long start = System.nanoTime();
                            try {
                                s.fire(payload);
                                sent.incrementAndGet();
                            } catch (PendingBytesExceededException e) {
                                refused.incrementAndGet();
                                long took = System.nanoTime() - start;
                                slowestRefusalNanos.accumulateAndGet(took, Math::max);
                                if (took > TimeUnit.MILLISECONDS.toNanos(100)) {
                                    slowRefusals.incrementAndGet(); // a GC pause or a descheduled thread
                                }
                                worstPending.accumulateAndGet(e.pendingBytes(), Math::max);
                                assertEquals(CAP, e.cap());
                                assertTrue(e.getMessage().startsWith("Not sent"), e.getMessage());
                            }
                        }
                        return null;
                    }));
                }
                for (Future<?> f : senders) {
                    f.get(60, TimeUnit.SECONDS);
                }
                long during = Fixtures.directMemory();
                System.out.printf("slow consumer: %d sent, %d refused, worst pending %d bytes (cap %d), slowest"
                        + " refusal %.2f ms, direct memory %d -> %d MiB%n", sent.get(), refused.get(),
                        worstPending.get(), CAP, slowestRefusalNanos.get() / 1e6, before / MB, during / MB);
                assertTrue(refused.get() > 6000, "most of the 6400 sends were refused: " + refused.get());
                assertTrue(worstPending.get() <= CAP, "pending bytes never exceeded the cap: " + worstPending.get());
                // The peer never reads: a sender that waited for room would wait for ever. 8 threads share 2 cores
                // (and PARANOID leak tracking), so a refusal may still be descheduled for a while.
                assertTrue(slowestRefusalNanos.get() < TimeUnit.SECONDS.toNanos(2), "refused without waiting");
                assertTrue(slowRefusals.get() < refused.get() / 100, "refused at once: " + slowRefusals.get()
                        + " of " + refused.get() + " refusals took over 100 ms");
                // 200 MiB offered; what is held is the cap, Netty's outbound buffer and pooled-chunk rounding.
                assertTrue(during - before < 48 * MB, "direct memory bounded: " + (during - before) / MB + " MiB");
            } finally {
                client.close();
                for (Socket k : keep) {
                    k.close();
                }
            }
        }
    }

    // C17 on the server: a consumer that sends requests for large results and never reads them.
    @ParameterizedTest
    @EnumSource(value = NativeTransport.class, names = {"NIO", "EPOLL"})
    void aConsumerThatNeverReadsCannotExhaustTheServer(NativeTransport kind) throws Exception {
        try (SluiceServer server = SluiceServer.builder().port(0)
                .options(Fixtures.on(kind).pendingBytesCap(4 * MB).build())
                .register(TypesService.class, SluiceAttachments.service()).start();
             SluiceClient bystander = SluiceClient.builder().address("127.0.0.1", server.port())
                     .options(Fixtures.on(kind).build()).timeout(Duration.ofSeconds(10)).failIfNotConnected(
                             true).build()) {
            TypesService s = bystander.proxy(TypesService.class);
            assertEquals("warm", s.echo("warm"));
            long before = Fixtures.directMemory();
            try (Socket deaf = Fixtures.socket(server.port())) {
                deaf.setReceiveBufferSize(8 * 1024);
                OutputStream out = deaf.getOutputStream();
                for (int i = 0; i < 200; i++) { // 200 results of ~200 KB each, never read
                    out.write(Wire.request(1000 + i, TypesService.class, "items", 5000));
                }
                out.flush();
                // Meanwhile the server keeps answering everybody else, well within the bystander's 10 s timeout (a
                // server whose pool or loop waited on the deaf consumer would make these calls time out). The bound
                // is 5 s, not less: the pool encodes ~40 MiB of results for the deaf consumer on the same 2 cores,
                // and at load averages of 28-62 a 2 s bound failed on calls that were merely descheduled.
                for (int i = 0; i < 50; i++) {
                    long start = System.nanoTime();
                    assertEquals("still " + i, s.echo("still " + i));
                    long tookNanos = System.nanoTime() - start;
                    assertTrue(tookNanos < TimeUnit.SECONDS.toNanos(5), "served promptly: call " + i + " took "
                            + TimeUnit.NANOSECONDS.toMillis(tookNanos) + " ms");
                }
                Await.until(() -> server.inFlight() == 0, Duration.ofSeconds(30), "every request handled");
                long during = Fixtures.directMemory();
                System.out.printf("%s: deaf consumer: direct memory %d -> %d MiB while ~40 MiB of results were due%n",
                        kind, before / MB, during / MB);
                assertTrue(during - before < 48 * MB, "bounded by the cap: " + (during - before) / MB + " MiB");
            }
            assertEquals("after", s.echo("after"));
        }
    }

    // C18: results larger than the socket buffers while the client keeps sending.
    @ParameterizedTest
    @EnumSource(value = NativeTransport.class, names = {"NIO", "EPOLL"})
    void largeResultsWhileTheClientKeepsSendingAllComplete(NativeTransport kind) throws Exception {
        try (SluiceServer server = SluiceServer.builder().port(0).options(Fixtures.on(kind).build())
                .register(TypesService.class, SluiceAttachments.service()).start();
             SluiceClient client = SluiceClient.builder().address("127.0.0.1", server.port())
                     .options(Fixtures.on(kind).build()).timeout(Duration.ofSeconds(30)).failIfNotConnected(
                             true).build()) {
            TypesService s = client.proxy(TypesService.class);
            long before = Fixtures.directMemory();
            List<Future<Integer>> bulk = new ArrayList<>();
            for (int t = 0; t < 6; t++) {
                bulk.add(threads.submit(() -> {
                    int n = 0;
                    for (int i = 0; i < 8; i++) {
                        List<Item> items = s.items(20_000); // about 1 MB per result
                        assertEquals(20_000, items.size());
                        n++;
                    }
                    return n;
                }));
            }
            // Small calls keep flowing on the same connection while the large results stream back.
            long worst = 0;
            int small = 0;
            while (!bulk.stream().allMatch(Future::isDone)) {
                long start = System.nanoTime();
                assertEquals("ping" + small, s.echo("ping" + small));
                worst = Math.max(worst, System.nanoTime() - start);
                small++;
            }
            int results = 0;
            for (Future<Integer> f : bulk) {
                results += f.get(60, TimeUnit.SECONDS);
            }
            assertEquals(48, results);
            long after = Fixtures.directMemory();
            System.out.printf("large results: 48 x ~1 MB plus %d small calls (slowest %.0f ms), direct memory %d -> %d"
                    + " MiB%n", small, worst / 1e6, before / MB, after / MB);
            assertTrue(small > 0);
            assertTrue(worst < TimeUnit.SECONDS.toNanos(10), "no livelock: small calls kept completing");
            assertTrue(after - before < 128 * MB, "no runaway memory: " + (after - before) / MB + " MiB");
        }
    }
}
