package dev.sluice.it.harness;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Proves the harness fixes Dubbo's slow-address problem (docs/wire-format.md §10.1): a real Dubbo 3.3.6 provider and
 * consumer ({@link DubboSmokeScenario}) run in a child JVM inside a private network namespace (or on the host
 * network when it has a non-loopback address and namespaces are unavailable) and make 400 calls from 8 threads.
 * On a loopback-only machine without the namespace each call would take seconds; here the median must stay far
 * below 100 ms.
 *
 * <p>The test thread starts the child and waits; everything Dubbo runs in the child.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class NetnsDubboSmokeTest {
    private static final int THREADS = 8;
    private static final int CALLS_PER_THREAD = 50;

    @Test
    void realDubboProviderAndConsumerTalkFastInIsolatedJvm() throws Exception {
        ChildResult result = IsolatedJvm.of(DubboSmokeScenario.class)
                .name("dubbo-smoke")
                .args(Integer.toString(THREADS), Integer.toString(CALLS_PER_THREAD))
                .timeout(Duration.ofSeconds(100))
                .run();
        System.out.println("dubbo smoke: " + result);

        result.assertPassed("dubbo-start", "first-call", "calls", "dubbo-stop", Scenario.LEAK_GATE);
        assertEquals(THREADS * CALLS_PER_THREAD, result.longMetric("calls", "count"));
        assertEquals(0, result.longMetric("calls", "errors"));
        // The provider saw the consumer at the test address: the calls crossed a real socket, not an in-JVM shortcut.
        assertEquals(result.testAddress(), result.metric("calls", "seenFrom"));
        // The deterministic part of the proof: Dubbo found a non-loopback local address (on a loopback-only machine it
        // gets 127.0.0.1 and re-resolves on every call). In the namespace it can only be the test address.
        String dubboLocalHost = result.metric("dubbo-start", "dubboLocalHost");
        assertFalse(dubboLocalHost.startsWith("127."), "Dubbo's local address is " + dubboLocalHost);
        if (result.network() == IsolatedJvm.Network.NAMESPACE) {
            assertEquals(NetnsLauncher.TEST_ADDRESS, result.testAddress());
            assertEquals(NetnsLauncher.TEST_ADDRESS, dubboLocalHost);
        }

        long p50us = result.longMetric("calls", "p50us");
        assertTrue(p50us < 100_000, "median call " + p50us + " us; Dubbo's slow local-address path is back?");
        // Loose bound on the whole call phase: 400 calls at the slow path's ~12 s each would take over an hour.
        assertTrue(result.longMetric("calls", "wallms") < 30_000, "call phase too slow: " + result);
        assertTrue(result.longMetric("first-call", "ms") < 10_000, "first call too slow: " + result);
    }
}
