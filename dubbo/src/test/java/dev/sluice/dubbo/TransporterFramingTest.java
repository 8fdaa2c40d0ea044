package dev.sluice.dubbo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.dubbo.common.URL;
import org.apache.dubbo.remoting.RemotingException;
import org.apache.dubbo.remoting.exchange.ExchangeChannel;
import org.apache.dubbo.remoting.exchange.ExchangeServer;
import org.apache.dubbo.remoting.exchange.Exchangers;
import org.apache.dubbo.remoting.exchange.support.ExchangeHandlerAdapter;
import org.apache.dubbo.rpc.model.FrameworkModel;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 12 item 9, through Dubbo's own exchange layer bound on the {@code sluice} Transporter ({@code server=sluice}):
 * a plain socket plays a peer that sends garbage a byte at a time, or a header with a negative body length. The
 * provider must refuse garbage at once with a clear error and close, as the standalone server does, and must answer a
 * negative length and go on serving the same connection.
 */
@Timeout(60)
class TransporterFramingTest {
    private static final long READ_TIMEOUT_MILLIS = 5_000;

    private final CompletableFuture<Throwable> caught = new CompletableFuture<>();
    private ExchangeServer server;
    private int port;

    @BeforeEach
    void bind() throws Exception {
        try (ServerSocket probe = new ServerSocket(0)) {
            port = probe.getLocalPort();
        }
        URL url = URL.valueOf("dubbo://127.0.0.1:" + port + "/framing?server=sluice&codec=exchange"
                + "&serialization=fastjson2&heartbeat=0");
        server = Exchangers.bind(url, new ExchangeHandlerAdapter(FrameworkModel.defaultModel()) {
            @Override
            public void caught(org.apache.dubbo.remoting.Channel channel, Throwable exception) {
                caught.complete(exception);
            }

            @Override
            public CompletableFuture<Object> reply(ExchangeChannel channel, Object request) throws RemotingException {
                return CompletableFuture.completedFuture(request);
            }
        });
    }

    @AfterEach
    void close() {
        server.close();
    }

    private Socket socket() throws IOException {
        Socket s = new Socket();
        s.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
        s.setSoTimeout((int) READ_TIMEOUT_MILLIS);
        s.setTcpNoDelay(true);
        return s;
    }

    @Test
    void garbageTrickledAByteAtATimeIsRefusedAtTheFirstByteAndClosed() throws Exception {
        byte[] garbage = "GET /status HTTP/1.1 with no line end ever".getBytes(StandardCharsets.US_ASCII);
        ScheduledExecutorService trickler = Executors.newSingleThreadScheduledExecutor();
        AtomicInteger sent = new AtomicInteger();
        try (Socket raw = socket()) {
            OutputStream out = raw.getOutputStream();
            trickler.scheduleAtFixedRate(() -> {
                int i = sent.get();
                if (i >= garbage.length) {
                    return;
                }
                try {
                    out.write(garbage[i]);
                    out.flush();
                    sent.incrementAndGet();
                } catch (IOException closed) {
                    sent.set(garbage.length); // the server closed: stop trickling
                }
            }, 0, 50, TimeUnit.MILLISECONDS);
            long start = System.nanoTime();
            assertTrue(readsEndOfStream(raw.getInputStream()),
                    "the server did not close the connection within " + READ_TIMEOUT_MILLIS
                            + " ms of trickled garbage");
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertTrue(millis < 2_000, "closed only after " + millis + " ms");
        } finally {
            trickler.shutdownNow();
        }
        Throwable cause = caught.get(5, TimeUnit.SECONDS);
        DubboCodecException e = assertInstanceOf(DubboCodecException.class, cause);
        assertTrue(e.getMessage().contains("wrong magic") && e.getMessage().contains("0x47"), e.getMessage());
    }

    @Test
    void negativeBodyLengthIsAnsweredAndTheSameConnectionKeepsServing() throws Exception {
        try (Socket raw = socket()) {
            OutputStream out = raw.getOutputStream();
            out.write(header(0xd7, 77, -5)); // a two-way fastjson2 request declaring a body of -5 bytes
            out.write(heartbeat(78));
            out.flush();
            Map<Long, Frame> answers = new HashMap<>();
            for (int i = 0; i < 2; i++) {
                Frame f = read(raw.getInputStream());
                answers.put(f.id, f);
            }
            Frame refused = answers.get(77L);
            assertEquals(40, refused.status, "BAD_REQUEST for the frame with the negative length");
            assertTrue(refused.text().contains("Invalid body length -5"), refused.text());
            Frame heartbeat = answers.get(78L);
            assertEquals(20, heartbeat.status, "the next frame on the connection is served");
            assertEquals(0x20, heartbeat.flags & 0xa0, "a heartbeat response (event, not a request)");
        }
    }

    static boolean readsEndOfStream(InputStream in) throws IOException {
        try {
            return in.read() == -1;
        } catch (SocketTimeoutException timeout) {
            return false;
        } catch (IOException reset) {
            return true;
        }
    }

    static byte[] header(int flags, long id, int length) {
        return ByteBuffer.allocate(16).putShort((short) 0xdabb).put((byte) flags).put((byte) 0).putLong(id)
                .putInt(length).array();
    }

    /** A two-way fastjson2 heartbeat: an event request whose body is one JSONB null item. */
    static byte[] heartbeat(long id) {
        return ByteBuffer.allocate(21).put(header(0xf7, id, 5)).putInt(1).put((byte) 0xaf).array();
    }

    static Frame read(InputStream in) throws IOException {
        DataInputStream d = new DataInputStream(in);
        byte[] h = new byte[16];
        d.readFully(h);
        ByteBuffer b = ByteBuffer.wrap(h);
        assertEquals((short) 0xdabb, b.getShort(0));
        byte[] body = new byte[b.getInt(12)];
        d.readFully(body);
        return new Frame(h[2] & 0xff, h[3] & 0xff, b.getLong(4), body);
    }

    static final class Frame {
        final int flags;
        final int status;
        final long id;
        final byte[] body;

        Frame(int flags, int status, long id, byte[] body) {
            this.flags = flags;
            this.status = status;
            this.id = id;
            this.body = body;
        }

        /** The body as text (an error response is one JSONB string item; ASCII text stays readable). */
        String text() {
            return new String(body, StandardCharsets.UTF_8);
        }
    }
}
