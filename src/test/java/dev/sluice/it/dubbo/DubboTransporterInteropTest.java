package dev.sluice.it.dubbo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.it.harness.ChildResult;
import dev.sluice.it.harness.IsolatedJvm;
import dev.sluice.it.harness.Scenario;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The {@code sluice} Transporter against real Dubbo 3.3.6, in every pairing with Dubbo's own netty4 transport. Each
 * test runs {@link DubboTransportScenario} in a child JVM inside a private network namespace (Dubbo consumers are
 * unusable on a loopback-only machine, docs/wire-format.md §10.1), with several checks grouped per child to keep the
 * suite short. The test thread only starts the child and checks what it printed.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class DubboTransporterInteropTest {
    private static final int CALLS_PER_THREAD = 40;

    private static ChildResult run(String name, String server, String client, String steps) throws Exception {
        ChildResult result = IsolatedJvm.of(DubboTransportScenario.class)
                .name(name)
                .args(server, client, Integer.toString(CALLS_PER_THREAD), steps)
                .timeout(Duration.ofSeconds(100))
                .run();
        System.out.println(name + ": " + result);
        return result;
    }

    private static void assertLoad(ChildResult result) {
        assertEquals(32L * CALLS_PER_THREAD, result.longMetric("load", "count"));
        assertEquals(0, result.longMetric("load", "errors"));
        assertTrue(result.longMetric("load", "p50us") < 100_000, "median call too slow: " + result);
    }

    @Test
    void sluiceServerAndSluiceClient() throws Exception {
        ChildResult result = run("dubbo-sluice-sluice", "sluice", "sluice",
                "load,payload,client-limit,heartbeat,shutdown,restart");
        result.assertPassed("start", "load", "payload", "client-limit", "heartbeat", "shutdown", "restart", "stop",
                Scenario.LEAK_GATE);
        assertLoad(result);
        assertTrue(result.longMetric("heartbeat", "heartbeats") >= 3);
        assertEquals(8, result.longMetric("shutdown", "completed"));
        // The transport reconnects by itself: no waiting for Dubbo's 60 s reconnect tick.
        assertTrue(result.longMetric("restart", "recoverMs") < 10_000, "slow recovery: " + result);
    }

    /** Our server under Dubbo's own netty4 consumer (whose reconnect waits for Dubbo's 60 s tick: not run here). */
    @Test
    void sluiceServerAndNetty4Client() throws Exception {
        ChildResult result = run("dubbo-sluice-netty4", "sluice", "netty4", "load,payload,heartbeat,shutdown");
        result.assertPassed("start", "load", "payload", "heartbeat", "shutdown", "stop", Scenario.LEAK_GATE);
        assertLoad(result);
        assertTrue(result.longMetric("heartbeat", "heartbeats") >= 3);
        assertEquals(8, result.longMetric("shutdown", "completed"));
    }

    /**
     * Our client against Dubbo's own netty4 provider, including its readonly event and a provider restart; selected
     * as the README says, with {@code dubbo.consumer.client=sluice}.
     */
    @Test
    void netty4ServerAndSluiceClient() throws Exception {
        ChildResult result = run("dubbo-netty4-sluice", "netty4", DubboTransportScenario.CLIENT_BY_PROPERTY,
                "load,payload,client-limit,heartbeat,shutdown,restart");
        result.assertPassed("start", "load", "payload", "client-limit", "heartbeat", "shutdown", "restart", "stop",
                Scenario.LEAK_GATE);
        assertLoad(result);
        assertTrue(result.longMetric("heartbeat", "heartbeats") >= 3);
        assertEquals(8, result.longMetric("shutdown", "completed"));
        assertTrue(result.longMetric("restart", "recoverMs") < 10_000, "slow recovery: " + result);
    }
}
