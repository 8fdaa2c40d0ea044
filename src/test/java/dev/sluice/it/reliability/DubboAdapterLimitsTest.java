package dev.sluice.it.reliability;

import dev.sluice.it.harness.ChildResult;
import dev.sluice.it.harness.IsolatedJvm;
import dev.sluice.it.harness.Scenario;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * E25b end to end: a real Dubbo 3.3.6 provider on {@code server=sluice}, with {@code sluice.frame-timeout} and
 * {@code sluice.max-connections-per-address} set on its {@code ProtocolConfig} as Dubbo users set them, and a real
 * Dubbo consumer, in a child JVM: a trickled body is closed after the frame timeout, a connection past the per-address
 * limit is refused, and the consumer is served throughout. See {@link DubboAdapterScenario} ({@code limits}).
 */
@Timeout(value = 150, unit = TimeUnit.SECONDS)
class DubboAdapterLimitsTest {

    @Test
    void protocolConfigLimitsCloseATrickledBodyAndRefuseConnectionsPastThePerAddressLimit() throws Exception {
        ChildResult result = IsolatedJvm.of(DubboAdapterScenario.class)
                .name("adapter-limits")
                .args("limits")
                .timeout(Duration.ofSeconds(120))
                .run();
        System.out.println("adapter limits: " + result);
        result.assertPassed("limits", Scenario.LEAK_GATE);
    }
}
