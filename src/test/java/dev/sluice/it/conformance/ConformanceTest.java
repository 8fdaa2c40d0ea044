package dev.sluice.it.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.it.harness.ChildResult;
import dev.sluice.it.harness.IsolatedJvm;
import dev.sluice.it.harness.Scenario;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The interop conformance suite (issue 3; issue 19): one list of {@link Check}s, run against every {@link Pairing}
 * of the standalone client and server with real Dubbo 3.3.6 peers, and of Dubbo consumers and providers over the
 * {@code sluice} Transporter (with Dubbo's own netty4 on the other end as the control). Each pairing runs in one
 * child JVM inside the harness's private network namespace ({@link ConformanceScenario}), because a Dubbo consumer
 * on a loopback-only machine re-resolves its address on every call; this test starts it, waits, and requires an ok
 * line for every check that applies to the pairing: each TypesService value kind, exceptions, async, one-way,
 * attachments both ways (several value kinds), large payloads, versions and groups, the dubbo-benchmark UserService
 * (its four methods and 32 threads), heartbeats, readonly events and graceful close, and for Dubbo on both ends
 * Dubbo's payload limits and a provider restart.
 *
 * <p>The test thread only starts the child and checks what it printed.
 */
@Timeout(value = 150, unit = TimeUnit.SECONDS)
class ConformanceTest {

    @ParameterizedTest(name = "{0}")
    @EnumSource(Pairing.class)
    void pairingPassesEveryCheckThatAppliesToIt(Pairing pairing) throws Exception {
        // -Dit.pairings=A,B runs only those pairings (each is a child JVM of a minute or more); absent: every one.
        String only = System.getProperty("it.pairings", "");
        Assumptions.assumeTrue(only.isBlank() || List.of(only.split(",")).contains(pairing.name()),
                () -> pairing + " not in -Dit.pairings=" + only);
        ChildResult result = IsolatedJvm.of(ConformanceScenario.class)
                .name("conformance-" + pairing.name().toLowerCase(Locale.ROOT))
                .args(pairing.name())
                .timeout(Duration.ofSeconds(120))
                .run();
        System.out.println(pairing + ": " + result);
        List<Check> skipped = new ArrayList<>(List.of(Check.values()));
        skipped.removeAll(pairing.checks());
        System.out.println(pairing + ": checks that do not apply (see Check): " + skipped);

        List<String> required = new ArrayList<>(pairing.resultNames());
        required.add(Scenario.LEAK_GATE);
        result.assertPassed(required.toArray(new String[0]));
        assertFalse(result.metric(Check.START.resultName(), "dubboLocalHost").startsWith("127."),
                "Dubbo resolved a loopback local address; its consumer would take the slow path");
        assertEquals((long) Pairing.LOAD_THREADS * pairing.loadCallsPerThread(),
                result.longMetric(UserServiceChecks.LOAD, "calls"));
        assertEquals(0, result.longMetric(UserServiceChecks.LOAD, "errors"));
        assertTrue(result.longMetric(UserServiceChecks.LOAD, "p50us") < 100_000, "median call too slow: " + result);
        assertTrue(result.longMetric(Check.HEARTBEAT.resultName(), "clientPort") > 0);
        if (pairing.dubboProvider()) {
            assertTrue(result.longMetric(Check.HEARTBEAT.resultName(), "heartbeats") >= 3);
        }
        if (Check.GRACEFUL_CLOSE.appliesTo(pairing)) {
            assertEquals(8, result.longMetric(Check.GRACEFUL_CLOSE.resultNames().get(2), "completed"));
        }
        if (Check.RESTART.appliesTo(pairing)) {
            // The transport reconnects by itself: no waiting for Dubbo's 60 s reconnect tick.
            assertTrue(result.longMetric(Check.RESTART.resultName(), "recoverMs") < 10_000, "slow recovery: "
                    + result);
        }
    }
}
