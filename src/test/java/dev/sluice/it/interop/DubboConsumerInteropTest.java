package dev.sluice.it.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.it.harness.ChildResult;
import dev.sluice.it.harness.IsolatedJvm;
import dev.sluice.it.harness.Scenario;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 3, direction 1: a real Dubbo 3.3.6 consumer calling a SluiceServer. Everything runs in one child JVM inside
 * the harness's private network namespace ({@link DubboConsumerScenario}); this test starts it, waits, and requires
 * an ok line for every check: each TypesService value kind, exceptions, async, one-way, attachments both ways
 * (several value kinds), large payloads, versions and groups, Dubbo's {@code $echo}, the dubbo-benchmark UserService
 * (its four methods and 32 threads), heartbeats, and the readonly event of a graceful close.
 */
@Timeout(value = 150, unit = TimeUnit.SECONDS)
class DubboConsumerInteropTest {
    private static final int THREADS = 32;
    private static final int CALLS_PER_THREAD = 100;

    @Test
    void realDubboConsumerCallsSluiceServer() throws Exception {
        ChildResult result = IsolatedJvm.of(DubboConsumerScenario.class)
                .name("interop-dubbo-consumer")
                .args(Integer.toString(THREADS), Integer.toString(CALLS_PER_THREAD))
                .timeout(Duration.ofSeconds(120))
                .run();
        System.out.println("Dubbo consumer -> SluiceServer: " + result);

        List<String> required = new ArrayList<>(DubboConsumerScenario.CHECKS);
        required.add(Scenario.LEAK_GATE);
        result.assertPassed(required.toArray(new String[0]));
        assertFalse(result.metric(DubboConsumerScenario.START, "dubboLocalHost").startsWith("127."),
                "Dubbo resolved a loopback local address; its consumer would take the slow path");
        assertEquals(THREADS * CALLS_PER_THREAD, result.longMetric(UserServiceChecks.LOAD, "calls"));
        assertEquals(0, result.longMetric(UserServiceChecks.LOAD, "errors"));
        assertTrue(result.longMetric(DubboConsumerScenario.HEARTBEAT, "clientPort") > 0);
    }
}
