package dev.sluice.it.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sluice.it.harness.ChildResult;
import dev.sluice.it.harness.IsolatedJvm;
import dev.sluice.it.harness.Scenario;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * E25 and C17 through the {@code sluice} Transporter, with a real Dubbo 3.3.6 provider on it and real Dubbo
 * consumers (Dubbo's netty4 client): a graceful stop delivers every answer still queued behind a consumer that had
 * stopped reading, and a consumer process frozen with SIGSTOP costs the provider no more than its pending-bytes cap
 * while the other consumers are served. See {@link DubboAdapterScenario}.
 */
@Timeout(value = 150, unit = TimeUnit.SECONDS)
class DubboAdapterShutdownTest {

    @Test
    void gracefulStopDeliversEveryAnswerQueuedBehindAConsumerThatStoppedReading() throws Exception {
        ChildResult result = IsolatedJvm.of(DubboAdapterScenario.class)
                .name("adapter-graceful")
                .args("graceful")
                .timeout(Duration.ofSeconds(120))
                .run();
        System.out.println("adapter graceful: " + result);
        result.assertPassed("graceful", Scenario.LEAK_GATE);
        assertEquals(DubboAdapterScenario.GRACEFUL_CALLS, result.longMetric("graceful", "calls"));
    }

    @Test
    void aFrozenConsumerCostsTheProviderAtMostItsCapAndTheOthersAreServed() throws Exception {
        ChildResult result;
        try {
            result = IsolatedJvm.of(DubboAdapterScenario.class)
                    .name("adapter-frozen")
                    .args("frozen")
                    .network(IsolatedJvm.Network.NAMESPACE) // it shrinks the socket buffers of its own namespace
                    .timeout(Duration.ofSeconds(120))
                    .run();
        } catch (IllegalStateException e) {
            Assumptions.abort("no private network namespace on this machine: " + e.getMessage());
            return;
        }
        System.out.println("adapter frozen consumer: " + result);
        result.assertPassed("frozen", Scenario.LEAK_GATE);
    }
}
