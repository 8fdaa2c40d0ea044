package dev.sluice.it.soak;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Paths;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Runs {@link Soak} inside the test JVM (PARANOID leak detection, the leak gate) when asked to, never in CI:
 * <pre>
 * mvn -B -pl integration-tests test -Dtest=SoakTest -Dsoak.minutes=2 -Dsurefire.failIfNoSpecifiedTests=false
 * </pre>
 * The report goes to {@code integration-tests/target/soak-report.txt} (and the test's output file). Optional:
 * {@code -Dsoak.threads=32 -Dsoak.killEvery=10 -Dsoak.downMillis=300 -Dsoak.timeoutMillis=1000}.
 */
@EnabledIfSystemProperty(named = "soak.minutes", matches = ".+")
@Timeout(value = 24, unit = TimeUnit.HOURS)
class SoakTest {

    @Test
    void soak() throws Exception {
        Soak.Report report = Soak.run(Soak.Config.fromSystemProperties());
        System.out.println(report);
        Soak.write(report, Paths.get("target", "soak-report.txt").toAbsolutePath());
        assertEquals(0, report.lost(), report::toString);
        assertEquals(0, report.untyped(), report::toString);
        assertEquals(0, report.wrong(), report::toString);
        assertTrue(report.leaks() <= 0, report::toString);
        assertTrue(report.kills() > 0, "the server was killed at least once");
    }
}
