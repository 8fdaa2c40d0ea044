package dev.sluice.it.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
 * Issue 3, direction 2: a SluiceClient calling a real Dubbo 3.3.6 provider ({@code server=netty4},
 * {@code serialization=fastjson2}). Everything runs in one child JVM inside the harness's private network namespace
 * ({@link SluiceClientScenario}); this test starts it, waits, and requires an ok line for every check.
 */
@Timeout(value = 150, unit = TimeUnit.SECONDS)
class SluiceClientInteropTest {
    private static final int THREADS = 32;
    private static final int CALLS_PER_THREAD = 100;

    @Test
    void sluiceClientCallsRealDubboProvider() throws Exception {
        ChildResult result = IsolatedJvm.of(SluiceClientScenario.class)
                .name("interop-sluice-client")
                .args(Integer.toString(THREADS), Integer.toString(CALLS_PER_THREAD))
                .timeout(Duration.ofSeconds(120))
                .run();
        System.out.println("SluiceClient -> Dubbo provider: " + result);

        List<String> required = new ArrayList<>(SluiceClientScenario.CHECKS);
        required.add(Scenario.LEAK_GATE);
        result.assertPassed(required.toArray(new String[0]));
        assertEquals(THREADS * CALLS_PER_THREAD, result.longMetric(UserServiceChecks.LOAD, "calls"));
        assertEquals(0, result.longMetric(UserServiceChecks.LOAD, "errors"));
        assertTrue(result.longMetric(SluiceClientScenario.HEARTBEAT, "clientPort") > 0);
    }
}
