package dev.sluice.it.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.it.rpc.model.SluiceAttachments;
import dev.sluice.it.rpc.model.TypesService;
import dev.sluice.rpc.SluiceClient;
import dev.sluice.rpc.SluiceServer;
import dev.sluice.transport.ConnectionClosedException;
import dev.sluice.transport.PendingBytesExceededException;
import dev.sluice.transport.TransportOptions;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
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
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * docs/reliability.md D19-D21 and E27 on {@link SluiceClient}: whatever way the connection goes, every waiting call
 * completes at once with {@link ConnectionClosedException} (not by its timeout), the client reconnects when it
 * should and stops when closed, and closing with writes still queued neither hangs nor leaks.
 */
@Timeout(60)
class ConnectionLossTest {
    private static final Duration LONG = Duration.ofSeconds(30);
    /** The close timeout of the client that closes with writes queued (E27). */
    private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(1);
    /**
     * How long that close may take: the close timeout, the event loops' shutdown and slack for a busy machine, well
     * below the 10 s after which {@code SluiceClient.close} stops waiting, so a close that hangs fails the test.
     */
    private static final Duration CLOSE_BOUND = Duration.ofSeconds(6);
    private final ExecutorService peers = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "raw-peer");
        t.setDaemon(true);
        return t;
    });

    @AfterEach
    void stopPeers() {
        peers.shutdownNow();
    }

    private static SluiceClient client(int port, boolean reconnect) {
        return SluiceClient.builder().address("127.0.0.1", port).timeout(LONG).failIfNotConnected(true)
                .options(TransportOptions.builder().reconnect(reconnect)
                        .reconnectBackoff(Duration.ofMillis(20), Duration.ofMillis(100)).build())
                .build();
    }

    /** Starts {@code n} async calls; a call refused on the spot counts as a failed future. */
    private static List<CompletableFuture<String>> calls(TypesService s, int n) {
        List<CompletableFuture<String>> calls = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            try {
                calls.add(s.async("call" + i, 0));
            } catch (RuntimeException e) {
                calls.add(CompletableFuture.failedFuture(e));
            }
        }
        return calls;
    }

    private static void assertAllClosed(List<CompletableFuture<String>> calls, long startNanos) throws Exception {
        for (CompletableFuture<String> call : calls) {
            ExecutionException e = assertThrows(ExecutionException.class, () -> call.get(10, TimeUnit.SECONDS));
            ConnectionClosedException closed = assertInstanceOf(ConnectionClosedException.class, e.getCause());
            assertTrue(closed.getMessage().contains("closed") || closed.getMessage().contains("not connected"),
                    closed.getMessage());
        }
        long elapsed = System.nanoTime() - startNanos;
        assertTrue(elapsed < TimeUnit.SECONDS.toNanos(5), "failed at once, not after the " + LONG.toSeconds()
                + " s timeout (" + TimeUnit.NANOSECONDS.toMillis(elapsed) + " ms)");
    }

    // D19
    @Test
    void serverClosingAfterReadingARequestFailsEveryWaitingCallAtOnce() throws Exception {
        CountDownLatch read = new CountDownLatch(1);
        try (ScriptedServer closer = ScriptedServer.start((c, request) -> {
            read.countDown();
            c.close();
        });
             SluiceClient client = client(closer.port(), false)) {
            TypesService s = client.proxy(TypesService.class);
            long start = System.nanoTime();
            List<CompletableFuture<String>> calls = calls(s, 16);
            assertTrue(read.await(10, TimeUnit.SECONDS));
            assertAllClosed(calls, start);
            assertEquals(0, client.pendingCalls());
        }
    }

    /** A plain-socket peer: accepts one connection, reads one request, then does {@code then} with the socket. */
    private int rawPeer(ServerSocket listener, Consumer<Socket> then) {
        peers.execute(() -> {
            try (Socket s = listener.accept()) {
                s.setSoTimeout(20_000);
                Wire.read(s.getInputStream());
                then.accept(s);
            } catch (IOException e) {
                // the test sees the outcome on the client side
            }
        });
        return listener.getLocalPort();
    }

    // D20: reset
    @Test
    void peerResetFailsEveryWaitingCallAtOnce() throws Exception {
        try (ServerSocket listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            int port = rawPeer(listener, s -> {
                try {
                    s.setSoLinger(true, 0); // close sends RST
                } catch (IOException e) {
                    throw new IllegalStateException(e);
                }
            });
            try (SluiceClient client = client(port, false)) {
                long start = System.nanoTime();
                assertAllClosed(calls(client.proxy(TypesService.class), 8), start);
            }
        }
    }

    // D20: half-close
    @Test
    void peerHalfCloseFailsEveryWaitingCallAtOnce() throws Exception {
        CountDownLatch clientClosed = new CountDownLatch(1);
        try (ServerSocket listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            int port = rawPeer(listener, s -> {
                try {
                    s.shutdownOutput(); // FIN: no more data from us, but we keep reading
                    InputStream in = s.getInputStream();
                    while (in.read() != -1) {
                        // drain until the client closes its side
                    }
                    clientClosed.countDown();
                } catch (IOException e) {
                    clientClosed.countDown();
                }
            });
            try (SluiceClient client = client(port, false)) {
                long start = System.nanoTime();
                assertAllClosed(calls(client.proxy(TypesService.class), 8), start);
                assertTrue(clientClosed.await(10, TimeUnit.SECONDS), "the client closed its side in turn");
            }
        }
    }

    // D21
    @Test
    void clientStartedFirstConnectsReconnectsAfterAKillAndStopsWhenClosed() throws Exception {
        int port = Fixtures.freePort();
        SluiceClient client = SluiceClient.builder().address("127.0.0.1", port).timeout(Duration.ofSeconds(5))
                .options(TransportOptions.builder().connectTimeout(Duration.ofSeconds(1))
                        .reconnectBackoff(Duration.ofMillis(20), Duration.ofMillis(100)).build())
                .build();
        try {
            TypesService s = client.proxy(TypesService.class);
            assertFalse(client.isConnected());
            ConnectionClosedException early = assertThrows(ConnectionClosedException.class, () -> s.echo("early"));
            assertFalse(early.wasSent());
            assertTrue(early.getMessage().contains("not connected"), early.getMessage());

            SluiceServer first = SluiceServer.builder().port(port)
                    .register(TypesService.class, SluiceAttachments.service()).start();
            Await.until(client::isConnected, Duration.ofSeconds(10), "connected once the server is up");
            assertEquals("one", s.echo("one"));

            first.closeNow().get(10, TimeUnit.SECONDS); // killed
            Await.until(() -> !client.isConnected(), Duration.ofSeconds(10), "the client saw the kill");
            SluiceServer second = SluiceServer.builder().port(port)
                    .register(TypesService.class, SluiceAttachments.service())
                    .start();
            try {
                Await.until(client::isConnected, Duration.ofSeconds(10), "reconnected after the restart");
                assertEquals("two", s.echo("two"));
            } finally {
                second.closeNow().get(10, TimeUnit.SECONDS);
            }
            Await.until(() -> !client.isConnected(), Duration.ofSeconds(10), "disconnected again");
        } finally {
            client.close(); // while it is reconnecting
        }
        try (ScriptedServer listener = ScriptedServer.start(port, dev.sluice.transport.NativeTransport.NIO,
                (c, f) -> { })) {
            // Many backoff periods (at most 100 ms each) pass: a closed client must never connect again.
            assertFalse(new CountDownLatch(1).await(600, TimeUnit.MILLISECONDS));
            assertEquals(0, listener.accepted.size(), "closing the client cancelled reconnecting");
        }
    }

    // E27: close with writes queued behind a peer that does not read.
    @Test
    void closingTheClientWithQueuedWritesFailsThemPromptlyAndLeaksNothing() throws Exception {
        CountDownLatch accepted = new CountDownLatch(1);
        try (ServerSocket listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            listener.setReceiveBufferSize(4096);
            peers.execute(() -> {
                try (Socket s = listener.accept()) {
                    accepted.countDown();
                    s.setSoTimeout(30_000);
                    // Never read; wait for the client to go away (a read returns once it closes or resets).
                    new CountDownLatch(1).await(30, TimeUnit.SECONDS);
                } catch (IOException | InterruptedException e) {
                    // done
                }
            });
            SluiceClient client = SluiceClient.builder().address("127.0.0.1", listener.getLocalPort())
                    .timeout(LONG).failIfNotConnected(true)
                    .options(TransportOptions.builder().reconnect(false).pendingBytesCap(4L << 20)
                            .closeTimeout(CLOSE_TIMEOUT).build())
                    .build();
            TypesService s = client.proxy(TypesService.class);
            assertTrue(accepted.await(10, TimeUnit.SECONDS));
            String chunk = "q".repeat(64 * 1024);
            List<CompletableFuture<String>> calls = new ArrayList<>();
            int refused = 0;
            for (int i = 0; i < 200; i++) { // ~13 MB against a peer that reads nothing
                try {
                    calls.add(s.async(chunk, 0));
                } catch (PendingBytesExceededException e) {
                    refused++;
                }
            }
            assertTrue(refused > 0, "the pending-bytes cap refused some sends");
            ExecutorService closer = Executors.newSingleThreadExecutor();
            try {
                long start = System.nanoTime();
                Future<?> closed = closer.submit(client::close);
                closed.get(20, TimeUnit.SECONDS);
                long closeMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                // The close timeout forces the connection shut; a close that merely ran into the client's own
                // give-up (SluiceClient.close stops waiting after 10 s) has hung, and must fail here.
                assertTrue(closeMillis < CLOSE_BOUND.toMillis(), "close hung: it took " + closeMillis + " ms with a "
                        + CLOSE_TIMEOUT.toMillis() + " ms close timeout");
                for (CompletableFuture<String> call : calls) {
                    // Failed by the close itself (on the callback executor), not by their 30 s timeouts.
                    ExecutionException e = assertThrows(ExecutionException.class, () -> call.get(5, TimeUnit.SECONDS));
                    // Still queued, or handed to Netty but not flushed: either way the connection's close.
                    assertInstanceOf(ConnectionClosedException.class, e.getCause(), e.getCause()::toString);
                }
                assertEquals(0, client.pendingCalls());
            } finally {
                closer.shutdownNow();
            }
        }
        // The leak gate checks, after the class, that every queued frame was released.
    }
}
