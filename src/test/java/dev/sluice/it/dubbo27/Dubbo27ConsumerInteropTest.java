package dev.sluice.it.dubbo27;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sluice.it.harness.ChildResult;
import dev.sluice.it.harness.IsolatedJvm;
import dev.sluice.it.harness.PeerClasspath;
import dev.sluice.it.harness.Scenario;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 9, item 3: a real Dubbo 2.7.23 consumer, left at its defaults (so hessian2), calls a {@code SluiceServer}.
 * Every value kind of the type suite ({@code TypesChecks}), attachments both ways, versions and groups, large payloads,
 * one-way, {@code $echo}, dubbo-benchmark's UserService, generic calls ({@code GenericService.$invoke},
 * {@code generic=true}; issue 34's cases, {@code GenericCases}), and the readonly event of a graceful close.
 *
 * <p>Two JVMs in one private network namespace: {@link Dubbo27HostScenario} (test classpath: Sluice, Netty 4.2) runs
 * the servers and starts {@link Dubbo27ConsumerScenario} on Dubbo 2.7.23's own runtime classpath (Netty 4.1; module
 * {@code dubbo27-classpath} copies it to its {@code target/lib}, system property {@value #LIB_PROPERTY}) plus only
 * the test classes the consumer needs, copied here into {@code target/dubbo27-consumer-classes}, and the JUnit
 * assertion jars {@code TypesChecks} uses. The consumer checks that it runs Dubbo 2.7.23 on Netty 4.1 with neither
 * Sluice nor Dubbo 3 classes loadable.
 *
 * <p>Checks that cannot pass on Dubbo 2.7 for a reason outside Sluice are declared, with the reason, in
 * {@link Dubbo27Checks#NOT_ON_DUBBO_27}; this test prints them.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class Dubbo27ConsumerInteropTest {
    static final String LIB_PROPERTY = "sluice.dubbo27.lib";

    /** Test classes the consumer JVM loads: a class, its nested and anonymous classes. */
    private static final List<String> CONSUMER_CLASSES = List.of(
            "dev/sluice/it/dubbo27/Dubbo27ConsumerScenario",
            "dev/sluice/it/dubbo27/Dubbo27Checks",
            "dev/sluice/it/harness/Scenario",
            "dev/sluice/testing/LeakGate",
            "dev/sluice/it/rpc/model/TypesService",
            "dev/sluice/it/rpc/model/TypesChecks",
            "dev/sluice/it/rpc/model/Item",
            "dev/sluice/it/rpc/model/Box",
            "dev/sluice/it/rpc/model/Color",
            "dev/sluice/it/rpc/model/InsufficientFundsException",
            "dev/sluice/it/rpc/model/UserServiceAnswers",
            "dev/sluice/it/generic/GenericCases",
            "dev/sluice/codec/dubbo/model/GenericTarget",
            "org/apache/dubbo/benchmark/service/UserService",
            "org/apache/dubbo/benchmark/service/UserServiceServerImpl",
            "org/apache/dubbo/benchmark/bean/User",
            "org/apache/dubbo/benchmark/bean/Page");
    /** Jars of the test classpath the consumer needs: JUnit's assertions, for TypesChecks. */
    private static final List<String> CONSUMER_JARS = List.of("junit-jupiter-api-", "opentest4j-", "apiguardian-api-");

    @Test
    void dubbo27ConsumerCallsSluiceServer() throws Exception {
        ChildResult result = IsolatedJvm.of(Dubbo27HostScenario.class)
                .name("interop-dubbo27-consumer")
                .args(consumerClasspath())
                .timeout(Duration.ofSeconds(100))
                .run();
        System.out.println("Dubbo 2.7.23 consumer -> SluiceServer: " + result);
        Dubbo27Checks.NOT_ON_DUBBO_27.forEach((check, reason) ->
                System.out.println("not checked on Dubbo 2.7 (declared): " + check + ": " + reason));

        List<String> required = new ArrayList<>(Dubbo27Checks.ALL);
        required.add(Scenario.LEAK_GATE);
        result.assertPassed(required.toArray(new String[0]));
        assertEquals("2.7.23", result.metric(Dubbo27Checks.CONSUMER + Dubbo27Checks.START, "dubbo"));
        for (String check : Dubbo27Checks.NOT_ON_DUBBO_27.keySet()) {
            assertEquals("declared", result.metric(Dubbo27Checks.CONSUMER + check, "skipped"), check);
        }
    }

    /** Dubbo 2.7.23's jars, then a directory holding only {@link #CONSUMER_CLASSES}, then {@link #CONSUMER_JARS}. */
    private static String consumerClasspath() throws IOException {
        return PeerClasspath.build(LIB_PROPERTY, "dubbo-2.7.23.jar", "dubbo27-classpath", "dubbo27-consumer-classes",
                CONSUMER_CLASSES, CONSUMER_JARS);
    }
}
