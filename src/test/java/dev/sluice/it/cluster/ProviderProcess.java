package dev.sluice.it.cluster;

import dev.sluice.it.harness.ChildProcess;
import dev.sluice.it.harness.ChildResult;
import dev.sluice.it.harness.IsolatedJvm;
import dev.sluice.it.harness.Scenario;
import java.nio.file.Path;
import java.time.Duration;

/**
 * One provider JVM ({@link ClusterProvider}) of the cluster scenario, seen from the scenario's JVM: started with
 * {@link IsolatedJvm} on a thread of its own, in the same network namespace as the scenario (a plain child of a
 * process inside the namespace stays inside it, so {@link IsolatedJvm.Network#HOST} here means "this namespace"),
 * and driven by signals: {@link #kill()} (SIGKILL), {@link #freeze()} / {@link #thaw()} (SIGSTOP / SIGCONT),
 * {@link #terminate()} (SIGTERM: Dubbo's graceful shutdown hook) and {@link #requestStop()} (an orderly stop that
 * ends with the harness's leak gate).
 *
 * <p>Used by the scenario's main thread; {@link ChildProcess} holds the child JVM.
 */
final class ProviderProcess {
    private final String name;
    private final int port;
    private final Path executionLog;
    private final ChildProcess child;

    private ProviderProcess(String name, int port, Path executionLog, ChildProcess child) {
        this.name = name;
        this.port = port;
        this.executionLog = executionLog;
        this.child = child;
    }

    /**
     * Starts provider {@code name} ({@code server=transport}, on {@code port}, registered in {@code zookeeper}); its
     * execution log and stop file live in {@code directory}. Returns at once: see {@link ClusterScenario} for how the
     * scenario waits until the consumer can call it.
     */
    static ProviderProcess start(String name, String transport, int port, String zookeeper, Path directory,
            Duration timeout) {
        Path executionLog = directory.resolve(name + ".executions");
        Path stopFile = directory.resolve(name + ".stop");
        IsolatedJvm jvm = IsolatedJvm.of(ClusterProvider.class)
                .name("cluster-" + transport + "-" + name)
                .network(IsolatedJvm.Network.HOST)
                .systemProperty(IsolatedJvm.ADDRESS_PROPERTY, Scenario.testAddress())
                .systemProperty(ClusterDubbo.DISCOVERY_PROPERTY, ClusterDubbo.discovery())
                .jvmFlags("-Xmx256m")
                .timeout(timeout)
                .args(transport, Integer.toString(port), zookeeper, executionLog.toString(), stopFile.toString());
        return new ProviderProcess(name, port, executionLog, ChildProcess.start(jvm, "provider " + name, stopFile));
    }

    String name() {
        return name;
    }

    int port() {
        return port;
    }

    Path executionLog() {
        return executionLog;
    }

    long pid() {
        return child.pid();
    }

    /** Whether the JVM has exited (or could not be started). */
    boolean exited() {
        return child.exited();
    }

    /** SIGKILL: the process is gone at once; its sockets are closed by the kernel. */
    void kill() {
        child.kill();
    }

    /** SIGSTOP, then checks that the kernel reports the process stopped. */
    void freeze() {
        child.freeze();
    }

    /** SIGCONT. */
    void thaw() {
        child.thaw();
    }

    /** SIGTERM: the JVM runs its shutdown hooks, Dubbo's graceful shutdown among them, and exits. */
    void terminate() {
        child.terminate();
    }

    /** Asks for the orderly stop that ends with the leak gate (see {@link ClusterProvider}). */
    void requestStop() {
        child.requestStop();
    }

    /** Waits for the JVM to exit; fails when it does not within {@code limit}, or when the harness threw. */
    ChildResult awaitExit(Duration limit) throws InterruptedException {
        return child.awaitExit(limit);
    }

    /** The result when it has exited, for a failure message; null while it runs. */
    ChildResult resultIfExited() {
        return child.resultIfExited();
    }
}
