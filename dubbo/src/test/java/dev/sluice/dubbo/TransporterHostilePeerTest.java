package dev.sluice.dubbo;

import static dev.sluice.dubbo.TransporterFramingTest.header;
import static dev.sluice.dubbo.TransporterFramingTest.heartbeat;
import static dev.sluice.dubbo.TransporterFramingTest.read;
import static dev.sluice.dubbo.TransporterFramingTest.readsEndOfStream;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.dubbo.TransporterFramingTest.Frame;
import dev.sluice.testing.LogLines;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.dubbo.common.URL;
import org.apache.dubbo.remoting.RemotingException;
import org.apache.dubbo.remoting.exchange.ExchangeChannel;
import org.apache.dubbo.remoting.exchange.ExchangeClient;
import org.apache.dubbo.remoting.exchange.ExchangeServer;
import org.apache.dubbo.remoting.exchange.Exchangers;
import org.apache.dubbo.remoting.exchange.support.ExchangeHandlerAdapter;
import org.apache.dubbo.rpc.model.FrameworkModel;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A hostile peer against a provider on the {@code sluice} Transporter ({@code server=sluice}, bound through Dubbo's
 * own exchange layer), on real sockets: what it can buy with a stream of bad headers (log lines), a trickled body (a
 * connection held), many connections from one address, and a frame whose decoding throws an {@link Error}.
 */
@Timeout(90)
class TransporterHostilePeerTest {
    private static final int READ_TIMEOUT_MILLIS = 5_000;

    private final List<Socket> sockets = new ArrayList<>();
    /** When the provider first saw a connection close ({@link System#nanoTime()}). */
    private final CompletableFuture<Long> disconnected = new CompletableFuture<>();
    private ExchangeServer server;
    private int port;

    /** Binds a provider that answers each request with its data; {@code params} go on its URL. */
    private void bind(String params) throws Exception {
        try (ServerSocket probe = new ServerSocket(0)) {
            port = probe.getLocalPort();
        }
        URL url = URL.valueOf("dubbo://127.0.0.1:" + port + "/hostile?server=sluice&codec=exchange"
                + "&serialization=fastjson2&heartbeat=0" + params);
        server = Exchangers.bind(url, new ExchangeHandlerAdapter(FrameworkModel.defaultModel()) {
            @Override
            public CompletableFuture<Object> reply(ExchangeChannel channel, Object request) throws RemotingException {
                return CompletableFuture.completedFuture(request);
            }

            @Override
            public void disconnected(org.apache.dubbo.remoting.Channel channel) {
                disconnected.complete(System.nanoTime());
            }
        });
    }

    @AfterEach
    void close() throws IOException {
        for (Socket s : sockets) {
            s.close();
        }
        if (server != null) {
            server.close();
        }
    }

    private Socket socket() throws IOException {
        return connect(sockets, port, READ_TIMEOUT_MILLIS);
    }

    /** A socket connected to the provider on {@code port}, added to {@code sockets} (closed after the test). */
    static Socket connect(List<Socket> sockets, int port, int readTimeoutMillis) throws IOException {
        Socket s = new Socket();
        sockets.add(s);
        s.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
        s.setSoTimeout(readTimeoutMillis);
        s.setTcpNoDelay(true);
        return s;
    }

    /** The connection is served: a two-way heartbeat on it is answered. */
    private static boolean served(Socket s, long id) throws IOException {
        s.getOutputStream().write(heartbeat(id));
        s.getOutputStream().flush();
        Frame answer = read(s.getInputStream());
        return answer.id == id && answer.status == 20;
    }

    @Test
    void tenThousandRefusedHeadersWriteAtMostTheLogBudgetAndTheConnectionKeepsServing() throws Exception {
        bind("");
        int headers = 10_000;
        ByteArrayOutputStream bad = new ByteArrayOutputStream(headers * 16);
        for (int i = 0; i < headers; i++) {
            bad.write(header(0x97, i, -1)); // a one-way fastjson2 request declaring a body of -1 bytes: refused
        }
        try (LogLines skipped = LogLines.capture("Skipping inbound frame")) {
            long start = System.nanoTime();
            Socket raw = socket();
            raw.setSoTimeout(60_000); // unfixed, writing ten thousand lines takes a while
            raw.getOutputStream().write(bad.toByteArray());
            // Answered only after every header before it was decoded: the log has every line they provoked.
            assertTrue(served(raw, 1_000_000), "the connection was not served after the bad headers");
            long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start);
            int lines = skipped.count();
            assertTrue(lines >= 1, "no line for the refused headers: the log capture does not see the log");
            assertTrue(lines <= 1 + seconds, lines + " log lines for " + headers + " refused headers in " + seconds
                    + " s; the budget is one a second");
        }
        Socket other = socket();
        assertTrue(served(other, 2), "another connection is served");
    }

    @Test
    void aBodyTrickledPastTheFrameTimeoutIsClosed() throws Exception {
        bind("&sluice.frame-timeout=300");
        Socket raw = socket();
        OutputStream out = raw.getOutputStream();
        out.write(header(0xd7, 5, 200)); // a two-way request whose body never arrives whole in time
        out.flush();
        ScheduledExecutorService trickler = Executors.newSingleThreadScheduledExecutor();
        AtomicInteger sent = new AtomicInteger();
        long start = System.nanoTime();
        try {
            trickler.scheduleAtFixedRate(() -> {
                if (sent.get() >= 200) {
                    return;
                }
                try {
                    out.write(0);
                    out.flush();
                    sent.incrementAndGet();
                } catch (IOException closed) {
                    sent.set(200);
                }
            }, 50, 50, TimeUnit.MILLISECONDS);
            assertTrue(readsEndOfStream(raw.getInputStream()), "a body trickled a byte each 50 ms was not closed"
                    + " within " + READ_TIMEOUT_MILLIS + " ms, with a 300 ms frame timeout");
        } finally {
            trickler.shutdownNow();
        }
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertTrue(millis >= 250, "closed after " + millis + " ms, before the frame timeout");
        assertTrue(sent.get() < 200, "the whole body was sent before the close");
        assertTrue(served(socket(), 6), "a new connection is served");
    }

    @Test
    void connectionsPastThePerAddressLimitAreRefusedAndTheOthersServed() throws Exception {
        bind("&sluice.max-connections-per-address=2");
        Socket first = socket();
        Socket second = socket();
        assertTrue(served(first, 1) && served(second, 2), "the first two connections are served");
        try (LogLines lines = LogLines.capture("Refused connection")) {
            Socket third = socket();
            assertTrue(readsEndOfStream(third.getInputStream()), "a third connection from the same address was"
                    + " kept");
            assertEquals(1, lines.count(), "the refusal is logged: " + lines.lines());
            assertNamesOnly("the sluice.max-connections-per-address URL key", lines.lines().get(0));
        }
        assertTrue(served(first, 3) && served(second, 4), "the first two are still served");
    }

    /** Inside Dubbo, a refusal's line names the URL key that raises the limit, not the standalone builder's. */
    private static void assertNamesOnly(String setting, String line) {
        assertTrue(line.contains("Raise " + setting + " if this load is expected") && !line.contains("maxConnections"),
                line);
    }

    @Test
    void connectionsPastDubboAcceptsAreRefusedOnAcceptWithinTheLogBudget() throws Exception {
        bind("&accepts=1");
        Socket first = socket();
        assertTrue(served(first, 1), "the first connection is served");
        int refused = 20;
        try (LogLines lines = LogLines.capture("Refused connection", "greater than max config")) {
            long start = System.nanoTime();
            for (int i = 0; i < refused; i++) {
                Socket over = socket();
                assertTrue(readsEndOfStream(over.getInputStream()), "connection " + (i + 2) + " past accepts=1 was"
                        + " kept");
            }
            long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start);
            assertTrue(lines.count() <= 1 + seconds, lines.count() + " log lines for " + refused
                    + " refused connections in " + seconds + " s; the budget is one a second");
            String warning = lines.lines().stream().filter(l -> l.contains("Refused connection")).findFirst()
                    .orElseThrow(() -> new AssertionError("no refusal logged: " + lines.lines()));
            assertNamesOnly("the accepts URL key", warning);
        }
        assertTrue(served(first, 2), "the first is still served");
        assertEquals(1, server.getChannels().size(), "Dubbo sees only the admitted connection");
    }

    @Test
    void aStackOverflowInTheAdaptersDecoderClosesThatConnectionAndTheNextIsServed() throws Exception {
        bind("&codec=sluice-test-overflow");
        URL clientUrl = URL.valueOf("dubbo://127.0.0.1:" + port + "/hostile?client=sluice&codec=sluice-test-overflow"
                + "&serialization=fastjson2&heartbeat=0");
        ExchangeClient victim = connect(clientUrl);
        try (LogLines closes = LogLines.capture("StackOverflowError")) {
            assertEquals("before", victim.request("before", 5_000).get(5, TimeUnit.SECONDS));
            long start = System.nanoTime();
            victim.request(OverflowingCodec.TRIGGER, 30_000);
            long closedAt;
            try {
                closedAt = disconnected.get(5, TimeUnit.SECONDS);
            } catch (java.util.concurrent.TimeoutException e) {
                throw new AssertionError("the connection whose frame overflowed the stack was neither answered nor"
                        + " closed within 5 s: it is wedged", e);
            }
            long millis = TimeUnit.NANOSECONDS.toMillis(closedAt - start);
            assertTrue(millis < 2_000, "closed only after " + millis + " ms");
            assertEquals(1, closes.count(), "the close is logged once, with its reason");
        } finally {
            victim.close();
        }
        ExchangeClient next = connect(clientUrl);
        try {
            assertEquals("next", next.request("next", 5_000).get(5, TimeUnit.SECONDS));
        } finally {
            next.close();
        }
    }

    private static ExchangeClient connect(URL url) throws RemotingException {
        return Exchangers.connect(url, new ExchangeHandlerAdapter(FrameworkModel.defaultModel()) { });
    }
}
