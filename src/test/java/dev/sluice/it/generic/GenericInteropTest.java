package dev.sluice.it.generic;

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
 * Issue 34: generic invocation both ways with real Dubbo 3.3.6 peers, in hessian2 and fastjson2 — a Dubbo generic
 * consumer ({@code generic=true}) calls a {@code SluiceServer}, and {@code SluiceClient.generic(...)} calls a Dubbo
 * provider — for every case of {@link GenericCases#CASES}. The peers run in one child JVM in the harness's
 * private network namespace; this test requires an ok line for every check, including that the class named by the
 * refused-class case was never initialized.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class GenericInteropTest {
    @Test
    void genericCallsBetweenSluiceAndDubbo336InBothSerializations() throws Exception {
        ChildResult result = IsolatedJvm.of(GenericInteropScenario.class)
                .name("interop-generic")
                .timeout(Duration.ofSeconds(100))
                .run();
        System.out.println("generic calls, Dubbo 3.3.6 <-> Sluice: " + result);

        List<String> required = new ArrayList<>(GenericInteropScenario.CHECKS);
        required.add(Scenario.LEAK_GATE);
        result.assertPassed(required.toArray(new String[0]));
    }
}
