package dev.sluice.it.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.rpc.RpcException;
import dev.sluice.rpc.RpcTimeoutException;
import dev.sluice.rpc.SluiceClient;
import dev.sluice.rpc.SluiceServer;
import dev.sluice.transport.NativeTransport;
import java.net.Socket;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Issue 12 item 7: a response the server cannot deliver as produced is never dropped silently. It is counted in
 * {@link SluiceServer#stats()}, logged, and where the connection still takes one, its caller gets an error response
 * at once instead of waiting out its whole timeout.
 */
@Timeout(60)
class DroppedResponseTest {
    private static final int CAP = 64 * 1024;
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(8);

    static final class DropServiceImpl implements DropService {
        final CountDownLatch held = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);

        @Override
        public String blob(int n) {
            return "b".repeat(n);
        }

        @Override
        public CompletableFuture<String> blobAsync(int n) {
            return CompletableFuture.supplyAsync(() -> blob(n));
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

    @ParameterizedTest
    @EnumSource(value = NativeTransport.class, names = {"NIO", "EPOLL"})
    void responseOverThePendingBytesCapIsAnsweredWithAnErrorAtOnceAndCounted(NativeTransport kind) {
        try (SluiceServer server = server(new DropServiceImpl(), kind); SluiceClient client = client(server, kind)) {
            DropService s = client.proxy(DropService.class);
            long start = System.nanoTime();
            RpcException e = assertThrows(RpcException.class, () -> s.blob(4 * CAP));
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertFalse(e instanceof RpcTimeoutException, "the caller waited out its timeout: " + e);
            assertTrue(millis < CALL_TIMEOUT.toMillis() / 2, "answered after " + millis + " ms");
            assertEquals(80, e.status(), e.getMessage());
            assertFalse(e.isRetryable(), "the call ran: " + e.getMessage());
            assertTrue(e.getMessage().contains("pending-bytes cap of " + CAP) && e.getMessage().contains("executed"),
                    e.getMessage());
            assertEquals(1, server.stats().droppedResponses());
            assertEquals("b".repeat(10), s.blob(10), "the connection keeps serving");
            assertEquals(1, server.stats().droppedResponses());
        }
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
