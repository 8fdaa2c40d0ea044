package dev.sluice.dubbo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.transport.testing.WithoutMicrometer;
import java.net.ServerSocket;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.dubbo.common.URL;
import org.apache.dubbo.remoting.exchange.ExchangeChannel;
import org.apache.dubbo.remoting.exchange.ExchangeClient;
import org.apache.dubbo.remoting.exchange.ExchangeServer;
import org.apache.dubbo.remoting.exchange.Exchangers;
import org.apache.dubbo.remoting.exchange.support.ExchangeHandlerAdapter;
import org.apache.dubbo.rpc.model.FrameworkModel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Micrometer stays optional for the Dubbo {@code sluice} Transporter: in a child JVM whose class path is this test's
 * minus every Micrometer jar, a provider and a consumer on the transporter exchange a request (no Micrometer class
 * is loaded for it, per-call clocks included), and {@code sluice.metrics} fails the bind with a clear error.
 */
@Timeout(60)
class TransporterMicrometerAbsentTest {
    @Test
    void theTransporterWorksWithoutMicrometerOnTheClassPath() throws Exception {
        WithoutMicrometer.Result child = WithoutMicrometer.run(Scenario.class, "-Ddubbo.application.qos-enable=false");
        String output = child.output();
        assertEquals(0, child.exitCode(), output);
        assertTrue(output.contains("RESULT no micrometer; answer ping; sluice.metrics refused: "
                + "io.micrometer:micrometer-core is not on the class path"), output);
        assertFalse(output.contains("LEAK:"), output);
    }

    /** Runs in the child JVM. */
    public static final class Scenario {
        public static void main(String[] args) throws Exception {
            System.out.println("RESULT " + call());
            System.gc();
            System.exit(0); // Dubbo's non-daemon threads must not keep the child alive
        }

        static String call() throws Exception {
            StringBuilder out = new StringBuilder(WithoutMicrometer.presence());
            int port;
            try (ServerSocket probe = new ServerSocket(0)) {
                port = probe.getLocalPort();
            }
            String base = "dubbo://127.0.0.1:" + port + "/absent?codec=exchange&serialization=fastjson2&heartbeat=0";
            ExchangeHandlerAdapter echo = new ExchangeHandlerAdapter(FrameworkModel.defaultModel()) {
                @Override
                public CompletableFuture<Object> reply(ExchangeChannel channel, Object request) {
                    return CompletableFuture.completedFuture(request);
                }
            };
            ExchangeServer server = Exchangers.bind(URL.valueOf(base + "&server=sluice"), echo);
            try {
                ExchangeClient client = Exchangers.connect(URL.valueOf(base + "&client=sluice"),
                        new ExchangeHandlerAdapter(FrameworkModel.defaultModel()) { });
                try {
                    out.append("; answer ").append(client.request("ping", 10_000).get(10, TimeUnit.SECONDS));
                } finally {
                    client.close();
                }
            } finally {
                server.close();
            }
            try (ServerSocket probe = new ServerSocket(0)) {
                port = probe.getLocalPort();
            }
            try {
                Exchangers.bind(URL.valueOf("dubbo://127.0.0.1:" + port + "/absent?codec=exchange&server=sluice"
                        + "&sluice.metrics=absent"), echo).close();
                out.append("; sluice.metrics accepted");
            } catch (Exception e) {
                Throwable t = e;
                while (t != null && !(t instanceof IllegalStateException)) {
                    t = t.getCause();
                }
                String m = t == null ? String.valueOf(e) : t.getMessage();
                out.append("; sluice.metrics refused: ")
                        .append(m.contains("io.micrometer:micrometer-core is not on the class path")
                                ? "io.micrometer:micrometer-core is not on the class path" : m);
            }
            return out.toString();
        }
    }
}
