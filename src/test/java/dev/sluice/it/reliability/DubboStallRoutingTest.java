package dev.sluice.it.reliability;

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
 * Issue 18, inside Dubbo end to end: with {@code sluice.stall-timeout} in the consumer config, a provider address that
 * stops answering is avoided by Dubbo's cluster once it is stalled, so after at most a call or two that wait out their
 * timeout every call is fast; without the option, round robin keeps sending every other call there.
 * See {@link DubboStallRoutingScenario}.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class DubboStallRoutingTest {
    private static ChildResult run(String stall, int maxCalls) throws Exception {
        ChildResult result = IsolatedJvm.of(DubboStallRoutingScenario.class)
                .name("stall-routing-" + stall)
                .args(stall, Integer.toString(maxCalls))
                .timeout(Duration.ofSeconds(150))
                .run();
        System.out.println("stall routing " + stall + ": " + result);
        result.assertPassed("routing", Scenario.LEAK_GATE);
        return result;
    }

    @Test
    void consumerConfigStallTimeoutRoutesAroundAProviderThatStopsAnswering() throws Exception {
        ChildResult on = run("200", DubboStallRoutingScenario.MAX_CALLS);
        assertEquals(DubboStallRoutingScenario.FAST_RUN, on.longMetric("routing", "fastRun"), on.toString());
        assertTrue(on.longMetric("routing", "slow") <= 2, "too many calls waited for the silent address: " + on);
        assertTrue(on.longMetric("routing", "heartbeats") >= 1, "no probe went out: " + on);
    }

    @Test
    void withoutTheOptionDubboKeepsSendingCallsToTheSilentAddress() throws Exception {
        ChildResult off = run("-", 10);
        assertTrue(off.longMetric("routing", "slow") >= 5, "the silent address was avoided without the option: " + off);
        assertEquals(0, off.longMetric("routing", "heartbeats"), off.toString());
    }
}
