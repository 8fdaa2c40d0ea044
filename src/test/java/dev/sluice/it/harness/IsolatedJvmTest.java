package dev.sluice.it.harness;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Tests of the harness itself with {@link HarnessProbeScenario} (plain Java, no Dubbo; each child lives ~0.5 s).
 * The test thread starts each child and waits for it.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class IsolatedJvmTest {

    @Test
    void childGetsArgsTestAddressAndLeakFlags() throws Exception {
        ChildResult result = IsolatedJvm.of(HarnessProbeScenario.class)
                .args("inspect", "a b", "c")
                .timeout(Duration.ofSeconds(60))
                .run()
                .assertPassed("inspect", Scenario.LEAK_GATE);
        assertEquals("true", result.metric("inspect", "hasAddress"), result.toString());
        assertEquals(result.testAddress(), result.metric("inspect", "address"));
        assertEquals(result.network().name().toLowerCase(), result.metric("inspect", "network"));
        assertEquals("paranoid", result.metric("inspect", "leakLevel"));
        assertEquals("a_b,c", result.metric("inspect", "args"));
        assertEquals(0, result.exitCode());
    }

    @Test
    void namespaceHoldsOnlyLoopbackAndTheTestAddress() throws Exception {
        assumeTrue(NetnsLauncher.probe().available(),
                () -> "no private network namespace on this machine:\n" + NetnsLauncher.probe().diagnosis());
        ChildResult result = IsolatedJvm.of(HarnessProbeScenario.class)
                .args("inspect")
                .network(IsolatedJvm.Network.NAMESPACE)
                .timeout(Duration.ofSeconds(60))
                .run()
                .assertPassed("inspect");
        assertEquals(IsolatedJvm.Network.NAMESPACE, result.network());
        assertEquals(NetnsLauncher.TEST_ADDRESS, result.metric("inspect", "address"));
        assertEquals(NetnsLauncher.TEST_ADDRESS + ",127.0.0.1", result.metric("inspect", "ipv4")); // sorted
        String interfaces = result.metric("inspect", "interfaces");
        assertTrue(interfaces.equals("lo,sl0,sl1") || interfaces.equals("lo,sl0"), interfaces);
    }

    @Test
    void exceptionInScenarioIsAFailedResultAndExitCodeOne() throws Exception {
        ChildResult result = IsolatedJvm.of(HarnessProbeScenario.class)
                .args("fail")
                .timeout(Duration.ofSeconds(60))
                .run();
        assertEquals(1, result.exitCode());
        assertFalse(result.timedOut());
        ChildResult.Line failure = result.result(Scenario.SCENARIO).orElseThrow();
        assertFalse(failure.ok());
        assertTrue(failure.detail().contains("deliberate failure | second line"), failure.detail());
        AssertionError error = assertThrows(AssertionError.class, result::assertPassed);
        assertTrue(error.getMessage().contains("exit code 1"), error.getMessage());
        assertTrue(error.getMessage().contains("deliberate failure"), error.getMessage());
    }

    @Test
    void hangingChildIsKilledAtTheTimeoutWithAThreadDump() throws Exception {
        ChildResult result = IsolatedJvm.of(HarnessProbeScenario.class)
                .args("hang")
                .timeout(Duration.ofSeconds(6))
                .run();
        assertTrue(result.timedOut());
        assertTrue(result.result("hanging").orElseThrow().ok());
        assertFalse(ProcessHandle.of(result.pid()).map(ProcessHandle::isAlive).orElse(false), "child still alive");
        assertNotEquals(0, result.exitCode());
        assertTrue(result.stdout().contains("Full thread dump"), "no thread dump in stdout");
        AssertionError error = assertThrows(AssertionError.class, result::assertPassed);
        assertTrue(error.getMessage().contains("timed out"), error.getMessage());
    }

    @Test
    void interruptingTheWaitingThreadKillsTheChild() throws Exception {
        CompletableFuture<ProcessHandle> started = new CompletableFuture<>();
        CompletableFuture<Throwable> outcome = new CompletableFuture<>();
        Thread runner = new Thread(() -> {
            try {
                IsolatedJvm.of(HarnessProbeScenario.class)
                        .args("hang")
                        .timeout(Duration.ofSeconds(90))
                        .onStart(started::complete)
                        .run();
                outcome.complete(null);
            } catch (Throwable t) {
                outcome.complete(t);
            }
        }, "isolated-jvm-runner");
        runner.start();
        ProcessHandle child = started.get(60, TimeUnit.SECONDS);
        assertTrue(child.isAlive());
        runner.interrupt();
        Throwable thrown = outcome.get(30, TimeUnit.SECONDS);
        assertTrue(thrown instanceof InterruptedException, "run() ended with " + thrown);
        child.onExit().get(30, TimeUnit.SECONDS);
        assertFalse(child.isAlive());
    }

    @Test
    void leakInChildFailsTheParent() throws Exception {
        ChildResult result = IsolatedJvm.of(HarnessProbeScenario.class)
                .args("leak")
                .failOnLeak(false)
                .timeout(Duration.ofSeconds(60))
                .run();
        assertFalse(result.leakReports().isEmpty(), () -> "leak not reported: " + result.stdout() + result.stderr());
        assertFalse(result.result(Scenario.LEAK_GATE).orElseThrow().ok());
        assertEquals(1, result.exitCode());
        assertThrows(AssertionError.class, result::assertNoLeaks);
        assertThrows(AssertionError.class, result::assertPassed);
    }
}
