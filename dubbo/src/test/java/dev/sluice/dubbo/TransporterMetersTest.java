package dev.sluice.dubbo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.Metrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.dubbo.common.URL;
import org.apache.dubbo.remoting.RemotingException;
import org.apache.dubbo.remoting.exchange.ExchangeChannel;
import org.apache.dubbo.remoting.exchange.ExchangeClient;
import org.apache.dubbo.remoting.exchange.ExchangeServer;
import org.apache.dubbo.remoting.exchange.Exchangers;
import org.apache.dubbo.remoting.exchange.support.ExchangeHandlerAdapter;
import org.apache.dubbo.rpc.model.FrameworkModel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The transport meters through Dubbo's own exchange layer on the {@code sluice} Transporter: {@code sluice.metrics}
 * on the URL records them in Micrometer's global registry, counted from real requests.
 */
@Timeout(60)
class TransporterMetersTest {
    private static final int REQUESTS = 200;

    private static double count(String meter, String transport) {
        return Metrics.globalRegistry.get(meter).tag("transport", transport).counter().count();
    }

    @Test
    void sluiceMetricsRecordsTheTransportMetersOfBothEndpoints() throws Exception {
        int port;
        try (ServerSocket probe = new ServerSocket(0)) {
            port = probe.getLocalPort();
        }
        String serverName = "provider-" + UUID.randomUUID();
        String clientName = "consumer-" + UUID.randomUUID();
        // As an application's registry (Spring Boot's, Dubbo's own) would be: the global composite has none itself.
        SimpleMeterRegistry application = new SimpleMeterRegistry();
        Metrics.addRegistry(application);
        try {
            bindCallAndCheck(port, serverName, clientName);
        } finally {
            Metrics.removeRegistry(application);
        }
    }

    private static void bindCallAndCheck(int port, String serverName, String clientName) throws Exception {
        String base = "dubbo://127.0.0.1:" + port + "/meters?codec=exchange&serialization=fastjson2&heartbeat=0";
        ExchangeServer server = Exchangers.bind(URL.valueOf(base + "&server=sluice&sluice.metrics=" + serverName),
                new ExchangeHandlerAdapter(FrameworkModel.defaultModel()) {
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
                List<CompletableFuture<Object>> answers = new ArrayList<>();
                for (int i = 0; i < REQUESTS; i++) {
                    answers.add(client.request("ping-" + i, 10_000));
                }
                for (int i = 0; i < REQUESTS; i++) {
                    assertEquals("ping-" + i, answers.get(i).get(10, TimeUnit.SECONDS));
                }
                assertEquals(REQUESTS, count("sluice.transport.frames.sent", clientName));
                assertEquals(REQUESTS, count("sluice.transport.frames.received", serverName));
                assertEquals(REQUESTS, count("sluice.transport.frames.sent", serverName));
                assertEquals(REQUESTS, count("sluice.transport.frames.received", clientName));
                assertEquals(REQUESTS, Metrics.globalRegistry.get("sluice.transport.write.messages")
                        .tag("transport", clientName).summary().totalAmount(), "batches add up to the requests");
                assertEquals(count("sluice.transport.data.sent", clientName),
                        count("sluice.transport.data.received", serverName));
                assertTrue(count("sluice.transport.data.sent", clientName) > REQUESTS * 16);
                assertEquals(1, Metrics.globalRegistry.get("sluice.transport.connections")
                        .tag("transport", clientName).gauge().value());
            } finally {
                client.close();
            }
        } finally {
            server.close();
        }
    }

    @Test
    void withoutTheParameterNothingIsObserved() {
        assertEquals(null, DubboUrlOptions.client(URL.valueOf("dubbo://127.0.0.1:1/x")).observer());
        assertThrows(io.micrometer.core.instrument.search.MeterNotFoundException.class,
                () -> Metrics.globalRegistry.get("sluice.transport.frames.sent").tag("transport", "never-bound")
                        .counter());
    }
}
