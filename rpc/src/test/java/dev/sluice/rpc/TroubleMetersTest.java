package dev.sluice.rpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.codec.dubbo.internal.DubboConstants;
import dev.sluice.rpc.micrometer.MicrometerInterceptor;
import dev.sluice.transport.SendState;
import dev.sluice.transport.TransportOptions;
import dev.sluice.transport.micrometer.MicrometerTransportObserver;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.search.Search;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.DataInputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Meters and events of a SluiceServer and a SluiceClient forced by trouble on real sockets: an oversized and a
 * garbled inbound frame, calls that time out sent and not sent, calls to a service the server does not have.
 */
@Timeout(60)
class TroubleMetersTest {
    @TempDir
    Path dir;

    private static double counter(MeterRegistry r, String name, String transport) {
        return r.get(name).tag("transport", transport).counter().count();
    }

    private static List<RecordedEvent> events(Path file, String name) throws Exception {
        List<RecordedEvent> found = new ArrayList<>();
        for (RecordedEvent e : RecordingFile.readAllEvents(file)) {
            if (e.getEventType().getName().equals(name)) {
                found.add(e);
            }
        }
        return found;
    }

    private static byte[] header(int flags, long id, int bodyLength) {
        return ByteBuffer.allocate(DubboConstants.HEADER_LENGTH).put(DubboConstants.MAGIC_HIGH)
                .put(DubboConstants.MAGIC_LOW).put((byte) flags).put((byte) 0).putLong(id).putInt(bodyLength)
                .array();
    }

    /**
     * A request declaring 2,000 body bytes against a 1,024-byte limit is refused from its header (FrameRejected, an
     * error answer, the connection kept, no decode error); then bytes without the Dubbo magic close the connection
     * (one decode error).
     */
    @Test
    void anOversizedFrameIsRejectedAndAGarbledOneIsADecodeError() throws Exception {
        MeterRegistry registry = new SimpleMeterRegistry();
        Path file = dir.resolve("inbound.jfr");
        try (Recording recording = new Recording()) {
            recording.enable("dev.sluice.FrameRejected");
            recording.start();
            try (SluiceServer server = SluiceServer.builder().port(0).payloadLimit(1024)
                    .options(TransportOptions.builder().payloadLimit(1024)
                            .observer(MicrometerTransportObserver.create(registry, "server")).build())
                    .register(InterceptorTest.Greeter.class, new InterceptorTest.GreeterImpl()).start();
                 Socket socket = new Socket("127.0.0.1", server.port())) {
                OutputStream out = socket.getOutputStream();
                int flags = DubboConstants.FLAG_REQUEST | DubboConstants.FLAG_TWO_WAY
                        | DubboConstants.SERIALIZATION_HESSIAN2;
                out.write(header(flags, 7, 2000));
                out.write(new byte[2000]);
                out.flush();
                DataInputStream in = new DataInputStream(socket.getInputStream());
                byte[] answer = new byte[DubboConstants.HEADER_LENGTH];
                in.readFully(answer);
                ByteBuffer h = ByteBuffer.wrap(answer);
                assertEquals(DubboConstants.MAGIC, h.getShort(0));
                assertEquals(DubboConstants.STATUS_BAD_REQUEST, h.get(3), "an error answer, not a closed socket");
                assertEquals(7, h.getLong(4));
                in.readFully(new byte[h.getInt(12)]);
                assertEquals(0, counter(registry, "sluice.transport.decode.errors", "server"),
                        "a refused size keeps the stream in sync");

                out.write("GET / HTTP/1.1\r\n\r\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
                out.flush();
                assertEquals(-1, in.read(), "garbage closes the connection");
            }
            recording.stop();
            recording.dump(file);
        }
        assertEquals(1, counter(registry, "sluice.transport.decode.errors", "server"));
        assertEquals(DubboConstants.HEADER_LENGTH + 2000 + 18,
                counter(registry, "sluice.transport.data.received", "server"));
        List<RecordedEvent> rejected = events(file, "dev.sluice.FrameRejected");
        assertEquals(1, rejected.size(), rejected.toString());
        assertEquals(2000, rejected.get(0).getLong("size"));
        assertEquals(1024, rejected.get(0).getLong("limit"));
    }

    /**
     * A provider that accepts the connection and never reads: the first requests fill the socket buffers (sent), the
     * rest stay queued and are withdrawn when their time runs out (not sent). The timeout counters per send state
     * match the exceptions the calls ended with and the CallTimeout events; the frames written match the requests
     * that were not withdrawn.
     */
    @Test
    void timeoutsAreCountedSentAndNotSentAsTheCallsEnded() throws Exception {
        MeterRegistry registry = new SimpleMeterRegistry();
        int calls = 200;
        String big = "x".repeat(8 * 1024);
        Map<SendState, Integer> ended = new EnumMap<>(SendState.class);
        Path file = dir.resolve("timeouts.jfr");
        try (ServerSocket peer = new ServerSocket()) {
            peer.setReceiveBufferSize(4096);
            peer.bind(new InetSocketAddress("127.0.0.1", 0));
            try (Recording recording = new Recording()) {
                recording.enable("dev.sluice.CallTimeout");
                recording.start();
                try (SluiceClient client = SluiceClient.builder().address("127.0.0.1", peer.getLocalPort())
                        .options(TransportOptions.builder().socketBuffers(4096, 4096)
                                .observer(MicrometerTransportObserver.create(registry, "client")).build())
                        .timeout(Duration.ofMillis(500)).stallTimeout(Duration.ZERO).failIfNotConnected(true)
                        .intercept(MicrometerInterceptor.create(registry)).build();
                     Socket accepted = peer.accept()) {
                    InterceptorTest.Greeter g = client.proxy(InterceptorTest.Greeter.class);
                    List<CompletableFuture<String>> futures = new ArrayList<>();
                    for (int i = 0; i < calls; i++) {
                        futures.add(g.greetAsync(big));
                    }
                    for (CompletableFuture<String> f : futures) {
                        ExecutionException e = assertThrows(ExecutionException.class,
                                () -> f.get(10, TimeUnit.SECONDS));
                        RpcTimeoutException t = assertInstanceOf(RpcTimeoutException.class, e.getCause());
                        ended.merge(t.sendState(), 1, Integer::sum);
                    }
                    assertTrue(accepted.isConnected());
                }
                recording.stop();
                recording.dump(file);
            }
        }
        int notSent = ended.getOrDefault(SendState.NOT_SENT, 0);
        int sent = ended.getOrDefault(SendState.SENT, 0);
        int unknown = ended.getOrDefault(SendState.UNKNOWN, 0);
        assertTrue(notSent > 0, "requests queued behind a full socket were withdrawn: " + ended);
        assertTrue(sent + unknown > 0, "the first requests reached the socket: " + ended);
        String service = InterceptorTest.Greeter.class.getName();
        for (SendState state : SendState.values()) {
            int expected = ended.getOrDefault(state, 0);
            Search counters = registry.find("sluice.calls.timeouts").tags("side", "client", "interface", service,
                    "method", "greetAsync", "sent", state.name().toLowerCase(Locale.ROOT));
            assertEquals(expected, counters.counter() == null ? 0 : counters.counter().count(), state.name());
        }
        assertEquals(sent + unknown, counter(registry, "sluice.transport.frames.sent", "client"),
                "every request not withdrawn was written, none of the withdrawn ones");
        List<RecordedEvent> timeouts = events(file, "dev.sluice.CallTimeout");
        assertEquals(calls, timeouts.size());
        Map<SendState, Integer> recorded = new EnumMap<>(SendState.class);
        for (RecordedEvent e : timeouts) {
            recorded.merge(SendState.valueOf(e.getString("sendState")), 1, Integer::sum);
        }
        assertEquals(ended, recorded);
    }

    /**
     * Calls to a service the server does not register add no server-side meter: tag values come from what the
     * server registered, not from what peers send.
     */
    @Test
    void callsToAnUnknownServiceAddNoServerMeter() throws Exception {
        MeterRegistry registry = new SimpleMeterRegistry();
        try (SluiceServer server = SluiceServer.builder().port(0)
                .register(InterceptorTest.Greeter.class, new InterceptorTest.GreeterImpl())
                .intercept(MicrometerInterceptor.create(registry)).start();
             SluiceClient client = SluiceClient.builder().address("127.0.0.1", server.port())
                     .timeout(Duration.ofSeconds(10)).failIfNotConnected(true).build()) {
            assertEquals("hello a", client.proxy(InterceptorTest.Greeter.class).greet("a"));
            int meters = registry.getMeters().size();
            Unregistered stranger = client.proxy(Unregistered.class);
            for (int i = 0; i < 20; i++) {
                assertThrows(RpcException.class, stranger::first);
                assertThrows(RpcException.class, stranger::second);
            }
            assertEquals(meters, registry.getMeters().size(), "no meter for a service the server lacks");
            for (Meter m : registry.getMeters()) {
                assertEquals(InterceptorTest.Greeter.class.getName(), m.getId().getTag("interface"), m.getId()
                        .toString());
            }
        }
    }

    /** Not registered on the server. */
    public interface Unregistered {
        String first();

        String second();
    }
}
