package dev.sluice.it.cluster;

import dev.sluice.it.harness.ChildResult;
import dev.sluice.it.harness.IsolatedJvm;
import dev.sluice.it.harness.Scenario;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;

/**
 * One provider JVM ({@link ClusterProvider}) of the cluster scenario, seen from the scenario's JVM: started with
 * {@link IsolatedJvm} on a thread of its own, in the same network namespace as the scenario (a plain child of a
 * process inside the namespace stays inside it, so {@link IsolatedJvm.Network#HOST} here means "this namespace"),
 * and driven by signals: {@link #kill()} (SIGKILL), {@link #freeze()} / {@link #thaw()} (SIGSTOP / SIGCONT),
 * {@link #terminate()} (SIGTERM: Dubbo's graceful shutdown hook) and {@link #requestStop()} (an orderly stop that
 * ends with the harness's leak gate).
 *
 * <p>Used by the scenario's main thread; the child runs on a daemon thread that only waits for it.
 */
final class ProviderProcess {
    private final String name;
    private final int port;
    private final Path executionLog;
    private final Path stopFile;
    private final CompletableFuture<ProcessHandle> handle = new CompletableFuture<>();
    private final CompletableFuture<ChildResult> result = new CompletableFuture<>();

    private ProviderProcess(String name, int port, Path executionLog, Path stopFile) {
        this.name = name;
        this.port = port;
        this.executionLog = executionLog;
        this.stopFile = stopFile;
    }

    /**
     * Starts provider {@code name} ({@code server=transport}, on {@code port}, registered in {@code zookeeper}); its
     * execution log and stop file live in {@code directory}. Returns at once: see {@link ClusterScenario} for how the
     * scenario waits until the consumer can call it.
     */
    static ProviderProcess start(String name, String transport, int port, String zookeeper, Path directory,
            Duration timeout) {
        ProviderProcess p = new ProviderProcess(name, port, directory.resolve(name + ".executions"),
                directory.resolve(name + ".stop"));
        IsolatedJvm jvm = IsolatedJvm.of(ClusterProvider.class)
                .name("cluster-" + transport + "-" + name)
                .network(IsolatedJvm.Network.HOST)
                .systemProperty(IsolatedJvm.ADDRESS_PROPERTY, Scenario.testAddress())
                .jvmFlags("-Xmx256m")
                .timeout(timeout)
                .onStart(p.handle::complete)
                .args(transport, Integer.toString(port), zookeeper, p.executionLog.toString(), p.stopFile.toString());
        Thread waiter = new Thread(() -> {
            try {
                p.result.complete(jvm.run());
            } catch (Throwable t) {
                p.handle.completeExceptionally(t);
                p.result.completeExceptionally(t);
            }
        }, "provider-" + name);
        waiter.setDaemon(true);
        waiter.start();
        return p;
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
        return processHandle().pid();
    }

    /** Whether the JVM has exited (or could not be started). */
    boolean exited() {
        return result.isDone();
    }

    /** SIGKILL: the process is gone at once; its sockets are closed by the kernel. */
    void kill() {
        processHandle().destroyForcibly();
    }

    /** SIGSTOP, then checks that the kernel reports the process stopped. */
    void freeze() {
        signal("STOP");
        // The kernel stops the threads as the signal is delivered: a moment after kill returns at most.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
        String state = procState();
        while (!state.equals("T") && System.nanoTime() < deadline) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
            state = procState();
        }
        if (!state.equals("T")) {
            throw new IllegalStateException(name + " (pid " + pid() + ") not stopped after SIGSTOP: state " + state);
        }
    }

    /** SIGCONT. */
    void thaw() {
        signal("CONT");
    }

    /** SIGTERM: the JVM runs its shutdown hooks, Dubbo's graceful shutdown among them, and exits. */
    void terminate() {
        processHandle().destroy();
    }

    /** Asks for the orderly stop that ends with the leak gate (see {@link ClusterProvider}). */
    void requestStop() {
        try {
            Files.writeString(stopFile, "stop\n", StandardCharsets.US_ASCII);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Waits for the JVM to exit; fails when it does not within {@code limit}, or when the harness threw. */
    ChildResult awaitExit(Duration limit) throws InterruptedException {
        try {
            return result.get(limit.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new IllegalStateException("provider " + name + " did not exit within " + limit.toMillis() + " ms");
        } catch (ExecutionException e) {
            throw new IllegalStateException("provider " + name + ": " + e.getCause(), e.getCause());
        }
    }

    /** The result when it has exited, for a failure message; null while it runs. */
    ChildResult resultIfExited() {
        return result.isDone() && !result.isCompletedExceptionally() ? result.join() : null;
    }

    private ProcessHandle processHandle() {
        try {
            return handle.get(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted waiting for provider " + name + " to start", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("provider " + name + " did not start: " + e, e);
        }
    }

    private void signal(String signal) {
        try {
            Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid()))
                    .redirectErrorStream(true)
                    .start();
            String output = new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
                throw new IllegalStateException("kill -" + signal + " " + pid() + " failed: " + output);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run kill -" + signal, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted sending SIG" + signal + " to " + name, e);
        }
    }

    /** The state letter of /proc/<pid>/stat (R, S, T, …): the field after the parenthesised command name. */
    private String procState() {
        try {
            String stat = Files.readString(Paths.get("/proc", Long.toString(pid()), "stat"), StandardCharsets.US_ASCII);
            return stat.substring(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the state of " + name, e);
        }
    }
}
