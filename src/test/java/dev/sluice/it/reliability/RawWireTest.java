package dev.sluice.it.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.alibaba.fastjson2.JSONB;
import dev.sluice.codec.dubbo.TestBytes;
import dev.sluice.it.rpc.model.SluiceAttachments;
import dev.sluice.it.rpc.model.TypesService;
import dev.sluice.rpc.RpcException;
import dev.sluice.rpc.SluiceClient;
import dev.sluice.rpc.SluiceServer;
import dev.sluice.transport.ConnectionClosedException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * docs/reliability.md section A through the real endpoints, with a plain socket playing a broken consumer against a
 * {@link SluiceServer}, and a {@link ScriptedServer} playing a broken provider against a {@link SluiceClient}. The
 * codec's own tests prove the decoder; these prove what a peer sees on the wire and that the endpoint keeps serving.
 */
@Timeout(60)
class RawWireTest {
    private static final int LIMIT = 4096;
    private SluiceServer server;

    @BeforeEach
    void start() {
        server = SluiceServer.builder().port(0).payloadLimit(LIMIT)
                .register(TypesService.class, SluiceAttachments.service())
                .start();
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private SluiceClient client(int port) {
        return SluiceClient.builder().address("127.0.0.1", port).payloadLimit(LIMIT).timeout(Duration.ofSeconds(5))
                .failIfNotConnected(true).build();
    }

    // A1: wrong magic closes that connection, with no busy loop, and only that one.
    @Test
    void wrongMagicClosesThatConnectionAndOnlyThatOne() throws Exception {
        try (SluiceClient bystander = client(server.port())) {
            TypesService s = bystander.proxy(TypesService.class);
            assertEquals("before", s.echo("before"));
            byte[][] garbage = {
                "GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII),
                new byte[32],                                                              // zero bytes
                {(byte) 0xda, 0x00, 1, 2},                                                 // one wrong byte
                TestBytes.concat("junk".getBytes(StandardCharsets.US_ASCII), Wire.request(1, TypesService.class,
                        "echo", "x")),                                                     // magic in the middle
            };
            for (byte[] bytes : garbage) {
                try (Socket raw = Fixtures.socket(server.port())) {
                    raw.getOutputStream().write(bytes);
                    raw.getOutputStream().flush();
                    assertTrue(Fixtures.readsEndOfStream(raw.getInputStream()), "the server closed the connection");
                }
            }
            assertEquals("after", s.echo("after"));
            assertTrue(bystander.isConnected());
        }
    }

    // A4, A5: oversized request then a valid one on the same connection.
    @Test
    void oversizedRequestGetsAnErrorWithItsIdAndTheNextRequestIsServed() throws Exception {
        byte[] big = Wire.request(41, TypesService.class, "echo", "x".repeat(3 * LIMIT));
        byte[] small = Wire.request(42, TypesService.class, "echo", "served");
        try (Socket raw = Fixtures.socket(server.port())) {
            OutputStream out = raw.getOutputStream();
            // The oversized frame in three writes, the valid one glued to its tail: the body is skipped as it comes.
            int third = big.length / 3;
            out.write(big, 0, third);
            out.flush();
            InputStream in = raw.getInputStream();
            Wire.Frame error = Wire.read(in); // answered from the header alone, before the rest of the body
            out.write(big, third, third);
            out.write(TestBytes.concat(java.util.Arrays.copyOfRange(big, 2 * third, big.length), small));
            out.flush();
            Wire.Frame ok = Wire.read(in);

            assertEquals(41, error.id());
            assertEquals(40, error.status());
            int bodyLength = big.length - Wire.HEADER;
            assertTrue(error.text().contains(String.valueOf(bodyLength))
                    && error.text().contains(String.valueOf(LIMIT)),
                    "size and limit in the text: " + error.text());
            assertEquals(42, ok.id());
            assertEquals(20, ok.status());
            assertEquals("served", ok.item(1));
        }
    }

    // A4: a huge declared length is answered from the header, before any body byte.
    @Test
    void hugeDeclaredLengthIsAnsweredFromTheHeader() throws Exception {
        try (Socket raw = Fixtures.socket(server.port())) {
            raw.getOutputStream().write(Wire.header(0xd7, 0, 43, Integer.MAX_VALUE));
            raw.getOutputStream().flush();
            Wire.Frame error = Wire.read(raw.getInputStream());
            assertEquals(43, error.id());
            assertEquals(40, error.status());
            assertTrue(error.text().contains("2147483647"), error.text());
        }
        try (Socket raw = Fixtures.socket(server.port())) {
            raw.getOutputStream().write(TestBytes.concat(Wire.header(0xd7, 0, 44, -5), Wire.request(45,
                    TypesService.class, "echo", "after a negative length")));
            Wire.Frame negative = Wire.read(raw.getInputStream());
            assertEquals(44, negative.id());
            assertEquals(40, negative.status());
            Wire.Frame next = Wire.read(raw.getInputStream());
            assertEquals(45, next.id());
            assertEquals("after a negative length", next.item(1));
        }
    }

    // A6, A7: bytes past the last item, corrupt fastjson2 or hessian2 bodies: 40 with the id, connection up.
    @Test
    void undecodableRequestsGetBadRequestWithTheirIdAndTheConnectionStaysUp() throws Exception {
        byte[] echo = Wire.request(50, TypesService.class, "echo", "x");
        byte[] corruptArgument = Wire.replaceItem(echo, 5, new byte[] {(byte) 0x8f, 1, 2});
        byte[] gadgetArgument = Wire.replaceItem(Wire.request(51, TypesService.class, "echo", "x"), 5,
                Wire.typedValue("com.sun.rowset.JdbcRowSetImpl"));
        byte[] hessian = Wire.request(52, TypesService.class, "echo", "x");
        hessian[2] = (byte) 0xc2; // serialization id 2 (hessian2) on a fastjson2 body
        byte[] unknownMethod = Wire.request(53, TypesService.class, "echo", "x");
        unknownMethod = Wire.replaceItem(unknownMethod, 3, JSONB.toBytes("noSuchMethod"));
        byte[] padded = Wire.request(54, TypesService.class, "echo", "padded");
        padded = TestBytes.concat(padded, new byte[7]);
        java.nio.ByteBuffer.wrap(padded).putInt(12, padded.length - Wire.HEADER); // 7 bytes after the last item
        try (Socket raw = Fixtures.socket(server.port())) {
            OutputStream out = raw.getOutputStream();
            out.write(TestBytes.concat(corruptArgument, gadgetArgument, hessian, unknownMethod, padded,
                    Wire.request(55, TypesService.class, "echo", "still up")));
            out.flush();
            InputStream in = raw.getInputStream();
            String[] expected = {"JSONB", "Refused to deserialize type 'com.sun.rowset.JdbcRowSetImpl'",
                "hessian2", "Service not found"}; // hessian2 is spoken: that body is a corrupt hessian2 body
            for (int i = 0; i < expected.length; i++) {
                Wire.Frame f = Wire.read(in);
                assertEquals(50 + i, f.id());
                assertEquals(40, f.status(), f.text());
                assertTrue(f.text().contains(expected[i]), f.text());
            }
            // Both run on the service pool, so they may be answered in either order.
            java.util.Map<Long, Object> answers = new java.util.HashMap<>();
            for (int i = 0; i < 2; i++) {
                Wire.Frame f = Wire.read(in);
                assertEquals(20, f.status());
                answers.put(f.id(), f.item(1));
            }
            assertEquals("padded", answers.get(54L), "bytes after the last item are skipped");
            assertEquals("still up", answers.get(55L));
        }
    }

    // D23 (in part): a Dubbo peer's hessian2 heartbeat is answered in kind.
    @Test
    void hessian2HeartbeatIsAnsweredInKind() throws Exception {
        try (Socket raw = Fixtures.socket(server.port())) {
            raw.getOutputStream().write(TestBytes.concat(Wire.header(0xe2, 0, 60, 1), new byte[] {0x4e}));
            Wire.Frame pong = Wire.read(raw.getInputStream());
            assertEquals(60, pong.id());
            assertEquals(0x22, pong.flags(), "response, event, hessian2");
            assertEquals(20, pong.status());
            assertEquals(1, pong.body().length);
            assertEquals(0x4e, pong.body()[0]);
        }
    }

    // A7 on the consumer side: an unknown result flag fails the call at once with 90; the connection stays up.
    @Test
    void unreadableResponsesFailTheCallAtOnceAndTheClientKeepsWorking() throws Exception {
        try (ScriptedServer provider = ScriptedServer.start((c, request) -> {
            String arg = request.item(5).toString();
            byte[] reply;
            switch (arg) {
                case "bad flag":
                    reply = TestBytes.concat(Wire.header(0x17, 20, request.id(), 6), new byte[] {0, 0, 0, 2,
                            (byte) 0xbd, 9});
                    break;
                case "too big": // over the client's payload limit: refused from the header, body skipped
                    reply = TestBytes.concat(Wire.header(0x17, 20, request.id(), 3 * LIMIT), new byte[3 * LIMIT]);
                    break;
                case "gadget":
                    reply = Wire.valueResponse(request.id(), Wire.typedValue("com.sun.rowset.JdbcRowSetImpl"));
                    break;
                default:
                    reply = Wire.valueResponse(request.id(), JSONB.toBytes("echo:" + arg));
                    break;
            }
            c.send(reply);
        });
             SluiceClient client = client(provider.port())) {
            TypesService s = client.proxy(TypesService.class);
            for (String[] c : new String[][] {{"bad flag", "Unknown result flag"}, {"too big", "Data length too large"},
                {"gadget", "Refused to deserialize type"}}) {
                long start = System.nanoTime();
                RpcException e = assertThrows(RpcException.class, () -> s.echo(c[0]));
                assertEquals(90, e.status(), e.getMessage());
                assertTrue(e.getMessage().contains(c[1]), e.getMessage());
                assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(4), "failed at once, not by timeout");
                assertEquals("echo:next", s.echo("next"), "the stream is still in sync");
            }
            assertEquals(1, provider.accepted.size(), "one connection throughout");
        }
    }

    // A1 on the consumer side: garbage from the provider closes the connection; the waiting call fails at once.
    @Test
    void garbageFromTheProviderFailsTheWaitingCallAtOnce() throws Exception {
        try (ScriptedServer provider = ScriptedServer.start((c, request) ->
                c.send("HTTP/1.1 400 Bad Request\r\n\r\n".getBytes(StandardCharsets.US_ASCII)));
             SluiceClient client = client(provider.port())) {
            TypesService s = client.reference(TypesService.class).timeout(Duration.ofSeconds(20)).proxy();
            long start = System.nanoTime();
            ConnectionClosedException e = assertThrows(ConnectionClosedException.class, () -> s.echo("x"));
            assertTrue(e.wasSent(), e.getMessage());
            assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(5), "failed at once, not by timeout");
            assertEquals(0, client.pendingCalls());
            assertInstanceOf(ConnectionClosedException.class, e);
        }
    }
}
