package dev.sluice.it.dubbo32;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.it.harness.ChildResult;
import dev.sluice.it.harness.IsolatedJvm;
import dev.sluice.it.harness.PeerClasspath;
import dev.sluice.it.harness.Scenario;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 32, item 3: the {@code sluice} Transporter with Dubbo 3.2. A Dubbo 3.2.19 provider ({@code server=sluice})
 * and a Dubbo 3.2.19 consumer ({@code client=sluice}), each a JVM on a Dubbo 3.2.19 application's own class path
 * (its Netty 4.1, and the published shaded {@code sluice-dubbo} jar: module {@code dubbo32-classpath}, system property
 * {@value #LIB_PROPERTY}), in hessian2 and in fastjson2; and the same 3.2.19 consumer against a Dubbo 3.3.6 provider
 * on {@code server=sluice} (the test classpath). Every call's answer is checked, and each 3.2 JVM checks that
 * Sluice's threads carried its calls and that Dubbo's netty4 threads did not exist.
 *
 * <p>All of it runs in one private network namespace: {@link Dubbo32HostScenario} (the 3.3.6 provider) starts the
 * two 3.2.19 JVMs ({@link Dubbo32PeerScenario}).
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class Dubbo32InteropTest {
    static final String LIB_PROPERTY = "sluice.dubbo32.lib";

    /** Test classes the Dubbo 3.2 JVMs load: a class, its nested and anonymous classes. */
    private static final List<String> PEER_CLASSES = List.of(
            "dev/sluice/it/dubbo32/Dubbo32PeerScenario",
            "dev/sluice/it/harness/Scenario",
            "dev/sluice/it/harness/DubboPeers",
            "dev/sluice/it/harness/CallLoad",
            "dev/sluice/it/harness/DubboSmokeScenario",
            "dev/sluice/it/harness/EchoService",
            "dev/sluice/it/harness/EchoServiceImpl",
            "dev/sluice/it/harness/EchoRequest",
            "dev/sluice/it/harness/EchoReply",
            "dev/sluice/testing/LeakGate");
    /**
     * Jars of the test classpath the 3.2 JVMs need besides Dubbo's: a logger, so that Netty's LEAK: reports show, and
     * the JUnit API LeakGate implements.
     */
    private static final List<String> PEER_JARS = List.of("slf4j-simple-", "junit-jupiter-api-");

    @Test
    void dubbo32ProviderAndConsumerOnSluiceAndA32ConsumerOfA33Provider() throws Exception {
        String classpath = PeerClasspath.build(LIB_PROPERTY, "dubbo-3.2.19.jar", "dubbo32-classpath",
                "dubbo32-peer-classes", PEER_CLASSES, PEER_JARS);
        ChildResult result = IsolatedJvm.of(Dubbo32HostScenario.class)
                .name("interop-dubbo32")
                .args(classpath)
                .timeout(Duration.ofSeconds(220)) // three Dubbo JVMs start one after another
                .run();
        System.out.println("Dubbo 3.2.19 on sluice: " + result);

        List<String> required = new ArrayList<>(List.of(Dubbo32HostScenario.HOST_START,
                Dubbo32HostScenario.PEERS_EXITED, Dubbo32HostScenario.PEER_LEAKS, Scenario.LEAK_GATE));
        for (String peer : List.of(Dubbo32HostScenario.PROVIDER, Dubbo32HostScenario.CONSUMER)) {
            required.add(peer + Dubbo32PeerScenario.START);
            required.add(peer + Dubbo32PeerScenario.SLUICE_THREADS);
            required.add(peer + Scenario.LEAK_GATE);
        }
        required.add(Dubbo32HostScenario.PROVIDER + Dubbo32PeerScenario.PROVIDER_START);
        Dubbo32HostScenario.TARGETS.forEach(t -> required.add(Dubbo32HostScenario.CONSUMER + t));
        result.assertPassed(required.toArray(new String[0]));

        for (String peer : List.of(Dubbo32HostScenario.PROVIDER, Dubbo32HostScenario.CONSUMER)) {
            assertEquals("3.2.19", result.metric(peer + Dubbo32PeerScenario.START, "dubbo"), peer);
            assertTrue(result.metric(peer + Dubbo32PeerScenario.START, "netty").startsWith("4.1."), peer);
        }
        assertEquals("3.3.6", result.metric(Dubbo32HostScenario.HOST_START, "dubbo"));
        for (String target : Dubbo32HostScenario.TARGETS) {
            assertEquals(target.substring(target.indexOf('-') + 1),
                    result.metric(Dubbo32HostScenario.CONSUMER + target, "serialization"), target);
            assertEquals(100L, result.longMetric(Dubbo32HostScenario.CONSUMER + target, "calls"), target);
        }
    }
}
