package dev.sluice.transport.netty;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.transport.NativeTransport;
import dev.sluice.transport.TransportOptions;
import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * docs/reliability.md D21a: a connection that closed before its connect listener ran is redialled. A server that
 * refuses connections by accepting and closing them at once (as one over its connection limit does) makes that
 * interleaving likely: the close can be read before the listener, added after the connect was issued, runs on the
 * loop. Hundreds of such connections in a row; once the server keeps one, the client must be connected, never stuck
 * "not connected (reconnecting)" with nothing scheduled.
 */
@Timeout(120)
class RedialRaceTest {
    private static final int REFUSED = 300;

    @ParameterizedTest
    @EnumSource(value = NativeTransport.class, names = {"NIO", "EPOLL"})
    void aConnectionClosedBeforeItsConnectListenerRanIsRedialled(NativeTransport kind) throws Exception {
        TransportTest.assumeAvailable(kind);
        AtomicInteger accepted = new AtomicInteger();
        CountDownLatch kept = new CountDownLatch(1);
        List<Socket> keep = new ArrayList<>();
        try (ServerSocket refusing = new ServerSocket()) {
            refusing.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            Thread acceptor = new Thread(() -> {
                try {
                    while (true) {
                        Socket s = refusing.accept();
                        if (accepted.incrementAndGet() <= REFUSED) {
                            s.setSoLinger(true, 0); // a reset at once, as a server over its limit closes
                            s.close();
                        } else {
                            synchronized (keep) {
                                keep.add(s);
                            }
                            kept.countDown();
                        }
                    }
                } catch (IOException e) {
                    // closed by the test
                }
            }, "refusing-acceptor");
            acceptor.setDaemon(true);
            acceptor.start();
            try (NettyClientTransport client = NettyClientTransport.builder()
                    .remote("127.0.0.1", refusing.getLocalPort())
                    .options(TransportOptions.builder().nativeTransport(kind).ioThreads(4)
                            .reconnectBackoff(Duration.ofMillis(1), Duration.ofMillis(2)).build())
                    .codec(TestFrames.INSTANCE).handler((connection, message) -> ((ByteBuf) message).release())
                    .build()) {
                client.connect();
                assertTrue(kept.await(30, TimeUnit.SECONDS), "the client kept redialling: "
                        + accepted.get() + " of " + (REFUSED + 1) + " connections accepted");
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (!client.isConnected() && System.nanoTime() < deadline) {
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
                }
                assertTrue(client.isConnected(), "connected once the server kept the connection");
            } finally {
                synchronized (keep) {
                    for (Socket s : keep) {
                        s.close();
                    }
                }
            }
        }
    }
}
