package dev.sluice.it.reliability;

import dev.sluice.it.harness.ChildResult;
import dev.sluice.it.harness.IsolatedJvm;
import dev.sluice.it.harness.Scenario;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * F29 through the {@code sluice} Transporter: TLS from Dubbo's {@code SslConfig} against real Dubbo 3.3.6 peers on
 * Dubbo's netty4 TLS transport, both directions, and an untrusted certificate refused with an error that names it,
 * not a timeout. See {@link DubboTlsScenario}.
 */
@Timeout(value = 150, unit = TimeUnit.SECONDS)
class DubboTlsTest {

    @Test
    void sslConfigTlsWorksWithRealDubboPeersAndAnUntrustedCertificateFailsFast() throws Exception {
        ChildResult result = IsolatedJvm.of(DubboTlsScenario.class)
                .name("dubbo-tls")
                // Dubbo's netty4 TLS client needs this on Netty 4.2 (see DubboTlsScenario); Sluice sets its own.
                .systemProperty("io.netty.handler.ssl.defaultEndpointVerificationAlgorithm", "NONE")
                .timeout(Duration.ofSeconds(130))
                .run();
        System.out.println("dubbo tls: " + result);
        result.assertPassed("netty4-provider.sluice-consumer", "sluice-provider.netty4-consumer",
                "sluice-provider.sluice-consumer", "untrusted", "another-host", Scenario.LEAK_GATE);
    }
}
