package dev.sluice.rpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.transport.testing.WithoutMicrometer;
import java.time.Duration;
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
        WithoutMicrometer.Result child = WithoutMicrometer.run(Scenario.class);
        String output = child.output();
        assertEquals(0, child.exitCode(), output);
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
            StringBuilder out = new StringBuilder(WithoutMicrometer.presence());
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
