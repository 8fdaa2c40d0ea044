package dev.sluice.dubbo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.dubbo.common.URL;
import org.apache.dubbo.remoting.Client;
import org.apache.dubbo.remoting.transport.ChannelHandlerAdapter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 10: inside Dubbo, Dubbo's reconnect contract rules. A Dubbo client redials only from its reconnect timer
 * (every max(least-reconnect-duration, idle timeout / 3), 60 s by default); the {@code sluice} Transporter's own
 * backoff redial (jittered, 50 ms up to a ceiling doubling from 100 ms to 5 s) is an explicit option,
 * {@code sluice.reconnect=fast}. The case that made storms: a client created with {@code check=false} before its
 * server exists, whose provider then appears.
 */
@Timeout(60)
class ReconnectContractTest {
    /** Far longer than the first three backoff steps (100 + 200 + 400 ms), far shorter than Dubbo's 60 s timer. */
    private static final long WINDOW_MILLIS = 1_500;

    /** Accepts on {@code port} and records each connection it is offered, until closed. */
    private static final class CountingServer implements AutoCloseable {
        final ServerSocket socket;
        final List<Socket> accepted = new CopyOnWriteArrayList<>();
        final CountDownLatch first = new CountDownLatch(1);
        private final Thread acceptor;

        CountingServer(int port) throws Exception {
            socket = new ServerSocket();
            socket.setReuseAddress(true);
            socket.bind(new InetSocketAddress(port)); // the wildcard: Dubbo may dial a non-loopback local address
            acceptor = new Thread(() -> {
                while (!socket.isClosed()) {
                    try {
                        accepted.add(socket.accept());
                        first.countDown();
                    } catch (Exception e) {
                        return; // closed
                    }
                }
            }, "counting-acceptor");
            acceptor.setDaemon(true);
            acceptor.start();
        }

        @Override
        public void close() throws Exception {
            socket.close();
            for (Socket s : accepted) {
                s.close();
            }
            acceptor.join(5_000);
        }
    }

    private static int freePort() throws Exception {
        try (ServerSocket probe = new ServerSocket(0)) {
            return probe.getLocalPort();
        }
    }

    /** A client of the {@code sluice} Transporter to {@code port}, where nothing listens yet (check=false). */
    private static Client clientBeforeItsServer(int port, String extra) throws Exception {
        URL url = URL.valueOf("dubbo://127.0.0.1:" + port + "/contract?client=sluice&codec=exchange&check=false"
                + "&heartbeat=0&connect.timeout=500" + extra);
        return new SluiceTransporter().connect(url, new ChannelHandlerAdapter());
    }

    @Test
    void byDefaultTheTransportDoesNotRedialOnItsOwn() throws Exception {
        int port = freePort();
        Client client = clientBeforeItsServer(port, "");
        try (CountingServer provider = new CountingServer(port)) {
            assertFalse(provider.first.await(WINDOW_MILLIS, TimeUnit.MILLISECONDS),
                    "the client redialled by itself; inside Dubbo only Dubbo's reconnect timer may");
            assertFalse(client.isConnected());
            // Dubbo's timer calls reconnect(): that dials at once.
            client.reconnect();
            assertTrue(provider.first.await(5, TimeUnit.SECONDS), "reconnect() did not dial");
            assertEquals(1, provider.accepted.size());
        } finally {
            client.close();
        }
    }

    @Test
    void sluiceReconnectTrueRedialsWithBackoff() throws Exception {
        int port = freePort();
        Client client = clientBeforeItsServer(port, "&sluice.reconnect=fast");
        try (CountingServer provider = new CountingServer(port)) {
            assertTrue(provider.first.await(WINDOW_MILLIS + 5_000, TimeUnit.MILLISECONDS),
                    "with sluice.reconnect=fast the transport redials by itself");
        } finally {
            client.close();
        }
    }
}
