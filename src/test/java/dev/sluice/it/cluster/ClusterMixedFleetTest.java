package dev.sluice.it.cluster;

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
 * A provider fleet switched to Sluice and back, provider by provider, under the calls of a consumer that does not have
 * the Sluice jar (and sets no {@code client}) and of one that has it and sets {@code client=sluice}
 * ({@link ClusterMixedFleetScenario}: ZooKeeper, two providers, two consumers, each its own JVM, inside a private
 * network namespace). What must hold for both consumers: no failed call, no lost call, and calls answered while only
 * Sluice providers ran. What makes it hold is that a {@code server=sluice} provider does not register
 * {@code server=sluice} ({@code SluiceRegistryUrlCustomizer}); without it the consumer without the jar refuses the
 * switched providers, "Unsupported client type: sluice".
 */
@Timeout(value = 480, unit = TimeUnit.SECONDS)
class ClusterMixedFleetTest {
    @Test
    void consumersWithAndWithoutTheJarKeepCallingThroughRolloutAndRollback() throws Exception {
        check(run("interface"));
    }

    /**
     * The same with Dubbo 3's application-level discovery: providers register their instance, and consumers take the
     * service URLs from the providers' metadata, which Dubbo builds from the URL the provider registers.
     */
    @Test
    void theSameWithApplicationLevelDiscovery() throws Exception {
        check(run("instance"));
    }

    private static ChildResult run(String discovery) throws InterruptedException {
        ChildResult r = IsolatedJvm.of(ClusterMixedFleetScenario.class)
                .name("cluster-mixed-fleet-" + discovery)
                .systemProperty(ClusterDubbo.DISCOVERY_PROPERTY, discovery)
                .timeout(Duration.ofSeconds(450))
                .run();
        System.out.println("mixed fleet, " + discovery + " discovery: " + r);
        return r;
    }

    private static void check(ChildResult r) {
        String noJar = "consumer-" + ClusterMixedFleetScenario.NO_JAR;
        String withJar = "consumer-" + ClusterMixedFleetScenario.WITH_JAR;
        r.assertPassed(noJar, withJar, "fleet", Scenario.LEAK_GATE);

        assertEquals("false", r.metric(noJar, "sluiceJar"), "the consumer without the jar could load Sluice");
        assertEquals("true", r.metric(noJar, "nettyClient"), "the consumer without the jar ran no netty4 client");
        assertEquals("true", r.metric(withJar, "sluiceJar"));
        assertEquals("true", r.metric(withJar, "sluiceClient"), "the consumer with client=sluice ran no Sluice client");
        for (String c : new String[] {noJar, withJar}) {
            assertTrue(r.longMetric(c, "sent") > 0, c + ": no call was sent");
            assertEquals(0, r.longMetric(c, "failed"), c + ": failed calls " + r.metric(c, "failures") + "\n" + r);
            assertEquals(0, r.longMetric(c, "lost"), c + ": calls lost\n" + r);
            assertTrue(r.longMetric(c, "succeededWhileAllSluice") > 0,
                    c + ": no call answered while only Sluice providers ran\n" + r);
        }
    }
}
