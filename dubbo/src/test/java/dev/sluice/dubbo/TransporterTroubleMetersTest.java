package dev.sluice.dubbo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Metrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.apache.dubbo.common.URL;
import org.apache.dubbo.remoting.Channel;
import org.apache.dubbo.remoting.RemotingException;
import org.apache.dubbo.remoting.exchange.ExchangeChannel;
import org.apache.dubbo.remoting.exchange.ExchangeClient;
import org.apache.dubbo.remoting.exchange.ExchangeServer;
import org.apache.dubbo.remoting.exchange.Exchangers;
import org.apache.dubbo.remoting.exchange.support.ExchangeHandlerAdapter;
import org.apache.dubbo.rpc.model.FrameworkModel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The transport meters of the Dubbo {@code sluice} Transporter beyond plain traffic, bound with
 * {@code sluice.metrics} as a Dubbo user would and read from the application's registry: queue wait per request,
 * pending bytes back to 0, a frame over the provider's {@code payload} (FrameRejected, no decode error), garbage
 * (one decode error), and a connection the provider closed that Dubbo's reconnect restores (one reconnect).
 */
@Timeout(60)
class TransporterTroubleMetersTest {
    private static final int REQUESTS = 50;

    @TempDir
    Path dir;

    private static double count(MeterRegistry registry, String meter, String transport) {
        return registry.get(meter).tag("transport", transport).counter().count();
    }

    @Test
    void queueWaitRejectionDecodeErrorAndReconnectThroughDubbo() throws Exception {
        int port;
        try (ServerSocket probe = new ServerSocket(0)) {
            port = probe.getLocalPort();
        }
        String serverName = "provider-" + UUID.randomUUID();
        String clientName = "consumer-" + UUID.randomUUID();
        SimpleMeterRegistry application = new SimpleMeterRegistry();
        Metrics.addRegistry(application);
        Path file = dir.resolve("dubbo.jfr");
        try (Recording recording = new Recording()) {
            recording.enable("dev.sluice.FrameRejected");
            recording.start();
            String base = "dubbo://127.0.0.1:" + port + "/meters?codec=exchange&serialization=fastjson2&heartbeat=0";
            ExchangeServer server = Exchangers.bind(URL.valueOf(base + "&server=sluice&payload=1024&sluice.metrics="
                    + serverName), new ExchangeHandlerAdapter(FrameworkModel.defaultModel()) {
                        @Override
                        public CompletableFuture<Object> reply(ExchangeChannel channel, Object request)
                                throws RemotingException {
                            return CompletableFuture.completedFuture(request);
                        }
                    });
            try {
                ExchangeClient client = Exchangers.connect(URL.valueOf(base + "&client=sluice&sluice.metrics="
                        + clientName), new ExchangeHandlerAdapter(FrameworkModel.defaultModel()) { });
                try {
                    exercise(application, server, client, port, serverName, clientName);
                } finally {
                    client.close();
                }
            } finally {
                server.close();
                Metrics.removeRegistry(application);
            }
            recording.stop();
            recording.dump(file);
        }
        List<RecordedEvent> rejected = new ArrayList<>();
        for (RecordedEvent e : RecordingFile.readAllEvents(file)) {
            if (e.getEventType().getName().equals("dev.sluice.FrameRejected")) {
                rejected.add(e);
            }
        }
        assertEquals(1, rejected.size(), rejected.toString());
        assertEquals(1024, rejected.get(0).getLong("limit"));
        assertTrue(rejected.get(0).getLong("size") > 4096, rejected.toString());
    }

    private static void exercise(MeterRegistry registry, ExchangeServer server, ExchangeClient client, int port,
                                 String serverName, String clientName) throws Exception {
        List<CompletableFuture<Object>> answers = new ArrayList<>();
        for (int i = 0; i < REQUESTS; i++) {
            answers.add(client.request("ping-" + i, 10_000));
        }
        for (int i = 0; i < REQUESTS; i++) {
            assertEquals("ping-" + i, answers.get(i).get(10, TimeUnit.SECONDS));
        }
        assertEquals(REQUESTS, registry.get("sluice.transport.queue.wait").tag("transport", clientName).timer()
                .count(), "each request sent from the caller's thread waited in the queue, and was timed");
        assertEquals(0, registry.get("sluice.transport.write.pending").tag("transport", clientName).gauge().value());
        assertEquals(REQUESTS, registry.get("sluice.transport.write.messages").tag("transport", clientName)
                .summary().totalAmount());

        // Over the provider's payload: refused from its header and answered with an error; the connection stays.
        CompletableFuture<Object> big = client.request("x".repeat(8 * 1024), 10_000);
        ExecutionException refused = assertThrows(ExecutionException.class, () -> big.get(10, TimeUnit.SECONDS));
        assertTrue(String.valueOf(refused.getCause()).contains("1024"), String.valueOf(refused.getCause()));
        assertEquals("still-up", client.request("still-up", 10_000).get(10, TimeUnit.SECONDS));
        assertEquals(0, count(registry, "sluice.transport.decode.errors", serverName));

        // Garbage from another peer closes only that connection: one decode error.
        try (Socket garbage = new Socket("127.0.0.1", port)) {
            garbage.getOutputStream().write("GET / HTTP/1.1\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            assertEquals(-1, garbage.getInputStream().read());
        }
        assertEquals(1, count(registry, "sluice.transport.decode.errors", serverName));

        // The provider closes the consumer's connection; Dubbo's reconnect (its timer's call) dials again.
        assertEquals(0, count(registry, "sluice.transport.reconnects", clientName));
        for (Channel c : server.getChannels()) {
            c.close();
        }
        while (client.isConnected()) {
            Thread.onSpinWait();
        }
        client.reconnect();
        assertEquals("again", client.request("again", 10_000).get(10, TimeUnit.SECONDS));
        assertEquals(1, count(registry, "sluice.transport.reconnects", clientName));
        assertEquals(1, registry.get("sluice.transport.connections").tag("transport", clientName).gauge().value());
    }
}
