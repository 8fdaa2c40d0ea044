package dev.sluice.it.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.it.harness.ChildResult;
import dev.sluice.it.harness.IsolatedJvm;
import dev.sluice.it.harness.Scenario;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Runs the examples under {@code examples/} as the guides tell a user to: the packaged jars, started with
 * {@code java -cp}/{@code java -jar}, a server or provider as a long-running process and a client or consumer calling
 * it from a second process. Both run inside the harness's private network namespace ({@link IsolatedJvm} starts
 * {@link ExamplesScenario} there, which starts the programs), since a Dubbo consumer on a loopback-only machine
 * re-resolves its address on every call.
 *
 * <p>The jars come from the examples' own build ({@code mvn package}); the full build packages the examples before
 * this module (they are listed before it in the parent pom). The directory is the system property
 * {@value #EXAMPLES_DIR}, set in this module's pom.
 *
 * <p>The test thread only starts the scenario and checks what it reported.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ExamplesTest {
    static final String EXAMPLES_DIR = "sluice.examples.dir";

    private static Path examples() {
        String dir = System.getProperty(EXAMPLES_DIR);
        if (dir == null || dir.isBlank()) {
            throw new IllegalStateException("system property " + EXAMPLES_DIR
                    + " is not set (integration-tests/pom.xml "
                    + "sets it for surefire)");
        }
        return Paths.get(dir).toAbsolutePath().normalize();
    }

    /** {@code SluiceServerMain} in one process, {@code SluiceClientMain} calling it from another. */
    @Test
    void standaloneServerAnswersStandaloneClient() throws Exception {
        Path jar = examples().resolve("standalone/target/greeter.jar");
        ChildResult result = IsolatedJvm.of(ExamplesScenario.class)
                .name("example-standalone")
                .args("standalone", jar.toString())
                .timeout(Duration.ofSeconds(150))
                .run();
        System.out.println("standalone example: " + result);

        result.assertPassed("server-started", "client-calls", "server-stopped", Scenario.LEAK_GATE);
        // Two calls per name: greet and greetLater, each answered by the server's sluice-service pool.
        assertEquals(2L * ExamplesScenario.NAMES.size(), result.longMetric("client-calls", "answers"));
    }

    /**
     * The published sluice-dubbo jar on its own: a plain Dubbo program on that jar, Dubbo and Spring Boot's Netty 4.1
     * (the Spring Boot provider's jars, less Spring) serves over {@code server=sluice} on the relocated epoll where
     * the machine has it, and answers Sluice's client and Dubbo's own netty4 client (Netty 4.1) in the same JVM.
     */
    @Test
    void shadedJarServesBesideTheApplicationsNetty41() throws Exception {
        Path target = examples().resolve("spring-boot-dubbo/target");
        ChildResult result = IsolatedJvm.of(ExamplesScenario.class)
                .name("example-shaded-jar")
                .args("shaded-jar", target.resolve("greeter-provider.jar").toString())
                .timeout(Duration.ofSeconds(150))
                .run();
        System.out.println("shaded jar: " + result);

        result.assertPassed("provider-netty", "shaded-jar-calls", Scenario.LEAK_GATE);
        assertTrue(result.metric("shaded-jar-facts", "nettyCommon").startsWith("4.1."), result.toString());
    }

    /**
     * The Spring Boot provider and consumer, switched to Sluice by their application.yml: the consumer's calls are
     * answered, Dubbo logs that it started a {@code SluiceDubboServer} and connected with a {@code SluiceDubboClient}
     * (never its netty4 {@code NettyServer}/{@code NettyClient}), and the provider's I/O threads are Sluice's
     * {@code sluice-server-*} event loops. The example keeps Spring Boot's own Netty 4.1 ({@code io.netty.util.Version}
     * on its class path); Sluice's loops run on the Netty relocated into the sluice-dubbo jar, on epoll where the
     * machine has it, and Dubbo's own QoS server on Netty 4.1 answers in the same provider JVM. The provider's
     * {@code /actuator/prometheus} has Sluice's meters with Dubbo's tag keys under the names its application.yml sets
     * with {@code sluice.*} keys among the protocol's {@code parameters}, and the consumer prints its own, named by
     * its {@code dubbo.consumer.parameters}; the provider's YAML limit of connections per address refuses the 21st.
     */
    @Test
    @Timeout(value = 480, unit = TimeUnit.SECONDS) // two Spring Boot JVMs with web servers, each up to START
    void springBootConsumerCallsSpringBootProviderOverSluice() throws Exception {
        Path target = examples().resolve("spring-boot-dubbo/target");
        ChildResult result = IsolatedJvm.of(ExamplesScenario.class)
                .name("example-spring-boot")
                .args("spring-boot", target.resolve("greeter-provider.jar").toString(),
                        target.resolve("greeter-consumer.jar").toString())
                .timeout(Duration.ofSeconds(420))
                .run();
        System.out.println("spring boot example: " + result);

        result.assertPassed("provider-netty", "provider-started", "consumer-calls", "consumer-transport",
                "consumer-meters", "provider-health", "provider-prometheus", "provider-connection-limit",
                "provider-threads", "provider-epoll", "provider-dubbo-netty", "provider-stopped", Scenario.LEAK_GATE);
        // The application keeps Spring Boot's Netty 4.1; Sluice runs on the Netty 4.2 relocated into its jar.
        assertTrue(result.metric("provider-netty-versions", "nettyCommon").startsWith("4.1."), result.toString());
        assertTrue(result.metric("provider-netty-versions", "shadedNettyCommon").startsWith("4.2."),
                result.toString());
        assertEquals(ExamplesScenario.NAMES.size(), result.longMetric("consumer-calls", "answers"));
        assertTrue(result.longMetric("provider-loops", "sluiceLoops") > 0, result.toString());
        assertEquals(0, result.longMetric("provider-loops", "nettyWorkers"));
    }
}
