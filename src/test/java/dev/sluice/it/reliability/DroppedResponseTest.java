package dev.sluice.it.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.sluice.rpc.RpcException;
import dev.sluice.rpc.RpcTimeoutException;
import dev.sluice.rpc.SluiceClient;
import dev.sluice.rpc.SluiceServer;
import dev.sluice.transport.NativeTransport;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Issue 12 item 7, docs/reliability.md C17 and C18c: a response the server cannot deliver as produced is never
 * dropped silently. It is counted in {@link SluiceServer#stats()}, logged, and where the connection still takes one,
 * its caller gets an error response instead of waiting out its whole timeout: at once, or, when the pending-bytes cap
 * that refused the response refuses the error too, as soon as the backlog drains.
 */
@Timeout(60)
class DroppedResponseTest {
    private static final int CAP = 64 * 1024;
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(8);
    /** Calls in the burst of a consumer that stops reading: their answers are 4 caps in all. */
    private static final int BURST = 32;
    /**
     * Characters of each answer: 48 bytes of header, flag, string prefix and attachments make its frame 8 KiB, an
     * eighth of the cap, so the queue fills to the byte of the cap and no short error fits beside it.
     */
    private static final int ANSWER = 8 * 1024 - 48;

    static final class DropServiceImpl implements DropService {
        final CountDownLatch held = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        final AtomicInteger blobs = new AtomicInteger();
        /** Opened by the test: every {@link #gatedAsync} call so far is answered then, on the opening thread. */
        final CompletableFuture<Void> gate = new CompletableFuture<>();
        final AtomicInteger gated = new AtomicInteger();

        @Override
        public String blob(int n) {
            blobs.incrementAndGet();
            return "b".repeat(n);
        }

        @Override
        public CompletableFuture<String> blobAsync(int n) {
            return CompletableFuture.supplyAsync(() -> blob(n));
        }

        @Override
        public CompletableFuture<String> gatedAsync(int n) {
            gated.incrementAndGet();
            return gate.thenApply(v -> "b".repeat(n));
        }

        @Override
        public CompletableFuture<Unwritable> unwritableAsync() {
            return CompletableFuture.supplyAsync(Unwritable::new);
        }

        @Override
        public CompletableFuture<Fragile> fragileAsync() {
            return CompletableFuture.failedFuture(
                    new UnsupportedOperationException("only a scripted provider sends one"));
        }

        @Override
        public int length(String s) {
            return s.length();
        }

        @Override
        public String hold(String tag) {
            held.countDown();
            try {
                release.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return tag;
        }
    }

    private static SluiceServer server(DropServiceImpl impl, NativeTransport kind) {
        return SluiceServer.builder().port(0)
                .options(Fixtures.on(kind).pendingBytesCap(CAP).build())
                .register(DropService.class, impl).start();
    }

    private static SluiceClient client(SluiceServer server, NativeTransport kind) {
        return SluiceClient.builder().address("127.0.0.1", server.port()).timeout(CALL_TIMEOUT)
                .options(Fixtures.on(kind).build())
                .failIfNotConnected(true).build();
    }

    /**
     * A consumer that stops reading while its answers pile up: the server queues answers up to its pending-bytes cap
     * and drops the rest, and the status-80 substitutes for those meet the same full queue. Each waits for the backlog
     * to drain; once the consumer reads again, every call has its answer (the value or the substitute) at once,
     * well within its timeout, not by it.
     */
    @ParameterizedTest
    @EnumSource(value = NativeTransport.class, names = {"NIO", "EPOLL"})
    void answersDroppedAtAFullBacklogReachTheirCallersAsSoonAsItDrains(NativeTransport kind) throws Exception {
        DropServiceImpl impl = new DropServiceImpl();
        try (SluiceServer server = smallBuffersServer(impl, kind);
             Socket peer = burst(server, BURST, "blob")) { // then reads nothing until every call has run
            Await.until(() -> impl.blobs.get() == BURST && server.inFlight() == 0, Duration.ofSeconds(30),
                    "every call ran and its answer was queued or dropped; " + server.stats());
            long dropped = server.stats().droppedResponses();
            assertTrue(dropped > 0, "the backlog reached the cap: " + server.stats());
            assertTrue(dropped < BURST, "some answers were queued: " + server.stats());

            long start = System.nanoTime();
            Map<Long, Wire.Frame> answers = new HashMap<>();
            try {
                while (answers.size() < BURST) {
                    Wire.Frame f = Wire.read(peer.getInputStream());
                    assertNull(answers.put(f.id(), f), "answered twice: " + f.id());
                }
            } catch (SocketTimeoutException e) {
                fail("only " + answers.size() + " of " + BURST + " calls were answered within " + CALL_TIMEOUT
                        + "; missing " + missing(answers.keySet()) + "; " + server.stats());
            }
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertTrue(millis < CALL_TIMEOUT.toMillis() / 4, "answered " + millis + " ms after reading began");
            int substitutes = 0;
            for (Wire.Frame f : answers.values()) {
                if (f.status() == 80) {
                    substitutes++;
                    String text = f.text();
                    assertTrue(text.contains("pending-bytes cap of " + CAP) && text.contains("executed"), text);
                } else {
                    assertEquals(20, f.status(), "call " + f.id());
                }
            }
            assertEquals(dropped, substitutes, "each dropped answer was replaced by one status-80 error");
            assertEquals(dropped, server.stats().droppedResponses(), "a substitute is not dropped in turn");

            peer.getOutputStream().write(Wire.request(BURST + 1, DropService.class, "blob", 10));
            Wire.Frame after = Wire.read(peer.getInputStream());
            assertEquals(20, after.status(), "the connection keeps serving");
            assertEquals(BURST + 1, after.id());
        }
    }

    /**
     * A peer that stops reading, with more calls outstanding than one connection may hold substitute answers for
     * (docs/reliability.md C18c): its answers fill the small socket buffers and then the cap, every later answer is
     * dropped and its status-80 substitute waits, and once more than {@code Replies.MAX_WAITING} (256) wait the server
     * closes the connection. The peer, reading again, reaches the end of the stream at once instead of waiting out
     * its call timeout. Every call is read before any is answered (the service holds its answers until the test opens
     * its gate), so no read pause cuts the burst short: far more answers are dropped than the kernel buffers and the
     * cap can take, on every run.
     */
    @ParameterizedTest
    @EnumSource(value = NativeTransport.class, names = {"NIO", "EPOLL"})
    void aPeerThatStopsReadingIsDisconnectedOnceMoreAnswersWaitThanOneConnectionMayHold(NativeTransport kind)
            throws Exception {
        int calls = 600; // 256 substitutes may wait; the buffers and the cap hold a few dozen of these answers
        DropServiceImpl impl = new DropServiceImpl();
        try (SluiceServer server = smallBuffersServer(impl, kind);
             Socket peer = burst(server, calls, "gatedAsync")) { // then reads nothing until every call is answered
            Await.until(() -> impl.gated.get() == calls, Duration.ofSeconds(30),
                    "the server read every call before answering any");
            assertEquals(0, server.stats().droppedResponses(), "nothing answered yet: " + server.stats());

            impl.gate.complete(null); // answers every call on this thread before it returns
            long dropped = server.stats().droppedResponses();
            assertTrue(dropped > 256, "more answers dropped than substitutes may wait: " + server.stats());

            long start = System.nanoTime();
            long bytes = 0;
            byte[] buf = new byte[64 * 1024];
            try {
                for (int n; (n = peer.getInputStream().read(buf)) != -1; ) {
                    bytes += n;
                }
            } catch (SocketTimeoutException e) {
                fail("the connection was still open " + CALL_TIMEOUT + " (the call timeout) after " + dropped
                        + " answers were dropped; read " + bytes + " bytes; " + server.stats());
            } catch (IOException reset) {
                // closed with a reset: as prompt as a FIN
            }
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertTrue(millis < CALL_TIMEOUT.toMillis() / 4, "closed " + millis + " ms after reading began");
            Await.until(() -> server.inFlight() == 0 && server.stats().connections() == 0, Duration.ofSeconds(10),
                    "the calls finished and the connection is gone");
            assertTrue(server.stats().droppedResponses() >= dropped, server.stats()::toString);

            try (Socket next = Fixtures.socket(server.port())) {
                next.getOutputStream().write(Wire.request(1, DropService.class, "blob", 10));
                Wire.Frame f = Wire.read(next.getInputStream());
                assertEquals(20, f.status(), "a new connection is served");
                assertEquals(1, f.id());
            }
        }
        // The leak gate checks, after the class, that every frame the close failed was released.
    }

    /** Small fixed socket buffers on both sides, so a backlog builds in the server's queue, not the kernel. */
    private static SluiceServer smallBuffersServer(DropServiceImpl impl, NativeTransport kind) {
        return SluiceServer.builder().port(0)
                .options(Fixtures.on(kind).pendingBytesCap(CAP).socketBuffers(16 * 1024, 0).build())
                .register(DropService.class, impl).start();
    }

    /**
     * A raw peer with a small receive buffer that sends calls 1 to {@code calls} of {@code method(ANSWER)} in one
     * write and reads nothing yet.
     */
    private static Socket burst(SluiceServer server, int calls, String method) throws IOException {
        Socket peer = new Socket();
        try {
            peer.setReceiveBufferSize(16 * 1024);
            peer.connect(new InetSocketAddress("127.0.0.1", server.port()), 5_000);
            peer.setSoTimeout((int) CALL_TIMEOUT.toMillis());
            ByteArrayOutputStream burst = new ByteArrayOutputStream();
            for (int id = 1; id <= calls; id++) {
                burst.write(Wire.request(id, DropService.class, method, ANSWER));
            }
            peer.getOutputStream().write(burst.toByteArray());
            peer.getOutputStream().flush();
            return peer;
        } catch (IOException | RuntimeException e) {
            peer.close();
            throw e;
        }
    }

    private static List<Long> missing(Set<Long> answered) {
        List<Long> ids = new ArrayList<>();
        for (long id = 1; id <= BURST; id++) {
            if (!answered.contains(id)) {
                ids.add(id);
            }
        }
        return ids;
    }

    @ParameterizedTest
    @EnumSource(value = NativeTransport.class, names = {"NIO", "EPOLL"})
    void errorWhileEncodingAnAsyncResultIsAnsweredWithBadResponseAndCounted(NativeTransport kind) throws Exception {
        try (SluiceServer server = server(new DropServiceImpl(), kind); SluiceClient client = client(server, kind)) {
            DropService s = client.proxy(DropService.class);
            CompletableFuture<DropService.Unwritable> f = s.unwritableAsync();
            ExecutionException e = assertThrows(ExecutionException.class,
                    () -> f.get(CALL_TIMEOUT.toMillis() / 2, TimeUnit.MILLISECONDS));
            RpcException rpc = assertInstanceOf(RpcException.class, e.getCause());
            assertFalse(rpc instanceof RpcTimeoutException, rpc.toString());
            assertEquals(50, rpc.status(), rpc.getMessage());
            assertTrue(rpc.getMessage().contains("StackOverflowError"), rpc.getMessage());
            assertEquals(1, server.stats().droppedResponses());
            assertEquals("b", s.blobAsync(1).get(5, TimeUnit.SECONDS), "the connection keeps serving");
        }
    }

    @ParameterizedTest
    @EnumSource(value = NativeTransport.class, names = {"NIO", "EPOLL"})
    void responseToAConnectionThatClosedIsCounted(NativeTransport kind) throws Exception {
        DropServiceImpl impl = new DropServiceImpl();
        try (SluiceServer server = server(impl, kind)) {
            try (Socket raw = Fixtures.socket(server.port())) {
                raw.getOutputStream().write(Wire.request(7, DropService.class, "hold", "late"));
                raw.getOutputStream().flush();
                assertTrue(impl.held.await(10, TimeUnit.SECONDS), "the call started");
            }
            Await.until(() -> server.stats().connections() == 0, Duration.ofSeconds(10), "server saw the close");
            impl.release.countDown();
            Await.until(() -> server.stats().droppedResponses() == 1, Duration.ofSeconds(10),
                    "the response to the closed connection is counted");
        }
    }
}
