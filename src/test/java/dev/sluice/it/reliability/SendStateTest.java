package dev.sluice.it.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.it.rpc.model.TypesService;
import dev.sluice.rpc.RpcTimeoutException;
import dev.sluice.rpc.SluiceClient;
import dev.sluice.transport.ConnectionClosedException;
import dev.sluice.transport.NativeTransport;
import dev.sluice.transport.SendState;
import dev.sluice.transport.TransportOptions;
import dev.sluice.transport.netty.EventLoops;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * docs/reliability.md D24 / issue 12 item 2: what a failed call says about its request is true. "Not sent" only
 * when the provider cannot have seen it (proved in StandaloneFeaturesTest: the server never runs it); "maybe sent"
 * when it had been handed to the socket; "sent, no response" once written. Here the two "maybe sent" cases, each
 * against a peer that has really received part of the request.
 */
@Timeout(60)
class SendStateTest {
    /** Larger than any socket buffer this machine grows (tcp_wmem max 4 MiB): it cannot leave in one write. */
    private static final String LARGE = "x".repeat(6 << 20);
    private final ExecutorService threads = Executors.newCachedThreadPool();

    @AfterEach
    void stop() {
        threads.shutdownNow();
    }

    private static TransportOptions on(NativeTransport kind) {
        Assumptions.assumeTrue(EventLoops.resolve(kind) == kind, kind + " is not available on this machine");
        return TransportOptions.builder().nativeTransport(kind).reconnect(false).build();
    }

    private static ServerSocket listener() throws IOException {
        ServerSocket listener = new ServerSocket();
        listener.setReceiveBufferSize(4096);
        listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        return listener;
    }

    // The timeout fires while the drain has handed the request to the socket and the socket is still taking it.
    @ParameterizedTest
    @EnumSource(value = NativeTransport.class, names = {"NIO", "EPOLL"})
    void aTimeoutWhileTheRequestIsBeingWrittenSaysMaybeSent(NativeTransport kind) throws Exception {
        TransportOptions options = on(kind);
        try (ServerSocket listener = listener()) {
            CompletableFuture<Socket> accepted = CompletableFuture.supplyAsync(() -> {
                try {
                    return listener.accept(); // never reads: the request stays half-written
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            }, threads);
            try (SluiceClient client = SluiceClient.builder().address("127.0.0.1", listener.getLocalPort())
                    .options(options).failIfNotConnected(true).build();
                 Socket peer = accepted.get(10, TimeUnit.SECONDS)) {
                TypesService s = client.reference(TypesService.class).timeout(Duration.ofMillis(500)).proxy();
                RpcTimeoutException e = assertThrows(RpcTimeoutException.class, () -> s.echo(LARGE));
                assertEquals(SendState.UNKNOWN, e.sendState(), e.getMessage());
                assertTrue(e.wasSent(), "never 'not sent' once the request was handed to the socket");
                assertFalse(e.isRetryable());
                assertTrue(e.getMessage().startsWith("Maybe sent"), e.getMessage());
                // And indeed the peer has part of it: the frame's magic is waiting in its socket.
                peer.setSoTimeout(5_000);
                InputStream in = peer.getInputStream();
                assertEquals(0xda, in.read());
                assertEquals(0xbb, in.read());
            }
        }
    }

    // The write fails part way: the peer reads the start of the request, then resets the connection.
    @ParameterizedTest
    @EnumSource(value = NativeTransport.class, names = {"NIO", "EPOLL"})
    void aWriteThatFailsAfterPartOfTheRequestLeftSaysMaybeSent(NativeTransport kind) throws Exception {
        TransportOptions options = on(kind);
        try (ServerSocket listener = listener()) {
            CompletableFuture<Integer> readThenReset = CompletableFuture.supplyAsync(() -> {
                try (Socket peer = listener.accept()) {
                    peer.setSoTimeout(10_000);
                    byte[] start = peer.getInputStream().readNBytes(64 * 1024);
                    peer.setSoLinger(true, 0); // close with a reset, the rest of the request unread
                    return start.length;
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            }, threads);
            try (SluiceClient client = SluiceClient.builder().address("127.0.0.1", listener.getLocalPort())
                    .options(options).failIfNotConnected(true).timeout(Duration.ofSeconds(20)).build()) {
                TypesService s = client.proxy(TypesService.class);
                ConnectionClosedException e = assertThrows(ConnectionClosedException.class, () -> s.echo(LARGE));
                assertEquals(64 * 1024, readThenReset.get(10, TimeUnit.SECONDS), "the peer read part of the request");
                assertEquals(SendState.UNKNOWN, e.sendState(), e.getMessage());
                assertTrue(e.wasSent(), "part of it left: never 'not sent'");
                assertTrue(e.getMessage().toLowerCase(java.util.Locale.ROOT).contains("maybe sent"), e.getMessage());
            }
        }
    }
}
