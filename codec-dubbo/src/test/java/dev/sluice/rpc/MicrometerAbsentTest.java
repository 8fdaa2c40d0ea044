package dev.sluice.rpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Micrometer is optional: a SluiceServer and a SluiceClient, with an interceptor, make a call in a child JVM whose
 * class path is this test's minus every Micrometer jar.
 */
@Timeout(60)
class MicrometerAbsentTest {
    @Test
    void clientAndServerWorkWithoutMicrometerOnTheClassPath() throws Exception {
        String cp = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        List<String> kept = new ArrayList<>();
        int dropped = 0;
        for (String entry : cp.split(File.pathSeparator)) {
            if (entry.contains("micrometer")) {
                dropped++;
            } else if (!entry.isEmpty()) {
                kept.add(entry);
            }
        }
        assertTrue(dropped > 0, "the test class path has Micrometer to leave out: " + cp);
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process child = new ProcessBuilder(java, "-Dio.netty.leakDetection.level=paranoid", "-cp",
                String.join(File.pathSeparator, kept), Scenario.class.getName()).redirectErrorStream(true).start();
        String output;
        try (InputStream in = child.getInputStream()) {
            output = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } finally {
            if (!child.waitFor(60, TimeUnit.SECONDS)) {
                child.destroyForcibly();
            }
        }
        assertEquals(0, child.exitValue(), output);
        assertTrue(output.contains("RESULT no micrometer; hello ann; intercepted 1"), output);
        assertFalse(output.contains("LEAK:"), output);
    }

    /** Runs in the child JVM. */
    public static final class Scenario {
        public static void main(String[] args) throws Exception {
            System.out.println("RESULT " + call());
            System.gc();
        }

        static String call() throws Exception {
            StringBuilder out = new StringBuilder();
            try {
                Class.forName("io.micrometer.core.instrument.MeterRegistry");
                out.append("micrometer present");
            } catch (ClassNotFoundException expected) {
                out.append("no micrometer");
            }
            java.util.concurrent.atomic.AtomicInteger seen = new java.util.concurrent.atomic.AtomicInteger();
            SluiceInterceptor count = new SluiceInterceptor() {
                @Override
                public void onComplete(Invocation inv, Outcome outcome) {
                    seen.incrementAndGet();
                }
            };
            try (SluiceServer server = SluiceServer.builder().port(0)
                    .register(InterceptorTest.Greeter.class, new InterceptorTest.GreeterImpl()).start();
                 SluiceClient client = SluiceClient.builder().address("127.0.0.1", server.port())
                         .timeout(Duration.ofSeconds(10)).failIfNotConnected(true).intercept(count).build()) {
                out.append("; ").append(client.proxy(InterceptorTest.Greeter.class).greet("ann"));
            }
            return out.append("; intercepted ").append(seen.get()).toString();
        }
    }
}
