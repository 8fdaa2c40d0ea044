package dev.sluice.it.interop;

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
 * Issue 9, item 4: a SluiceClient reads the untyped values a real Dubbo 3.3.6 provider sends — fastjson2's
 * {@code JSONObject}/{@code JSONArray} (which the provider made itself, reading untyped arguments or parsing JSON),
 * JDK collection classes and nested arrays, in {@code Object}, {@code Map<String, Object>} and {@code List<Object>}
 * positions — in fastjson2 and in hessian2, without a status 90. The provider and the clients run in one child JVM
 * inside the harness's private network namespace ({@link UntypedValuesScenario}); this test requires an ok line for
 * every check.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class UntypedValuesInteropTest {
    @Test
    void sluiceClientReadsUntypedValuesFromRealDubboProvider() throws Exception {
        ChildResult result = IsolatedJvm.of(UntypedValuesScenario.class)
                .name("interop-untyped-values")
                .timeout(Duration.ofSeconds(75))
                .run();
        System.out.println("SluiceClient <- Dubbo provider, untyped values: " + result);

        List<String> required = new ArrayList<>(UntypedValuesScenario.CHECKS);
        required.add(Scenario.LEAK_GATE);
        result.assertPassed(required.toArray(new String[0]));
    }
}
