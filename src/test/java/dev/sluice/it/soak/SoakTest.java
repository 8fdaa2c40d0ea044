package dev.sluice.it.soak;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.transport.NativeTransport;
import dev.sluice.transport.netty.EventLoops;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Runs {@link Soak} inside the test JVM (PARANOID leak detection, the leak gate) when asked to, never in CI, once on
 * NIO and once on epoll (or only on {@code -Dsoak.transport=NIO|EPOLL}):
 * <pre>
 * mvn -B -pl integration-tests -am verify -Dtest=SoakTest -Dsoak.minutes=2 -Dsurefire.failIfNoSpecifiedTests=false
 *     -DskipFuzz
 * </pre>
 * The reports go to {@code integration-tests/target/soak-report-<transport>.txt}. Optional:
 * {@code -Dsoak.threads=32 -Dsoak.eventEvery=10 -Dsoak.freezeMillis=3000 -Dsoak.downMillis=300
 * -Dsoak.timeoutMillis=1000}.
 */
@EnabledIfSystemProperty(named = "soak.minutes", matches = ".+")
@Timeout(value = 24, unit = TimeUnit.HOURS)
class SoakTest {

    @ParameterizedTest
    @EnumSource(value = NativeTransport.class, names = {"NIO", "EPOLL"})
    void soak(NativeTransport kind) throws Exception {
        String only = System.getProperty("soak.transport", "");
        Assumptions.assumeTrue(only.isEmpty() || only.equalsIgnoreCase(kind.name()), "soak.transport=" + only);
        Assumptions.assumeTrue(EventLoops.resolve(kind) == kind, kind + " is not available on this machine");
        Path directory = Files.createDirectories(Paths.get("target", "soak-" + kind.name().toLowerCase())
                .toAbsolutePath());
        Soak.Report report = Soak.run(Soak.Config.fromSystemProperties(kind), directory);
        System.out.println(report);
        Soak.write(report, Paths.get("target", "soak-report-" + kind.name().toLowerCase() + ".txt")
                .toAbsolutePath());
        assertEquals(0, report.lost(), report::toString);
        assertEquals(0, report.untyped(), report::toString);
        assertEquals(0, report.wrong(), report::toString);
        assertEquals(0, report.notSentButExecuted(), report::toString);
        assertEquals(0, report.duplicated(), report::toString);
        assertEquals(0, report.leaks(), report::toString);
        assertEquals(0, report.childFailures(), report::toString);
        assertTrue(report.kills() > 0 && report.freezes() > 0, "the server was frozen and killed at least once");
        assertTrue(report.succeeded() > 0, report::toString);
    }
}
