package dev.sluice.it.harness;

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
 * A child JVM ({@link IsolatedJvm}) that keeps running while the caller goes on, driven by signals: {@link #kill()}
 * (SIGKILL), {@link #freeze()} / {@link #thaw()} (SIGSTOP / SIGCONT, the frozen peer), {@link #terminate()}
 * (SIGTERM) and {@link #requestStop()} (creates the stop file the child polls for an orderly stop that ends with
 * the harness's leak gate). Linux only ({@code kill}, {@code /proc}).
 *
 * <p>The child runs on a daemon thread of its own that only waits for it; the methods are for one controlling
 * thread, except {@link #exited()} and {@link #resultIfExited()}, which any thread may call.
 */
public final class ChildProcess {
    private final String name;
    private final Path stopFile;
    private final CompletableFuture<ProcessHandle> handle = new CompletableFuture<>();
    private final CompletableFuture<ChildResult> result = new CompletableFuture<>();

    private ChildProcess(String name, Path stopFile) {
        this.name = name;
        this.stopFile = stopFile;
    }

    /**
     * Starts {@code jvm} (its {@link IsolatedJvm#onStart} is taken over) and returns at once. {@code stopFile} is what
     * {@link #requestStop()} creates; null when the child has no orderly stop.
     */
    public static ChildProcess start(IsolatedJvm jvm, String name, Path stopFile) {
        ChildProcess p = new ChildProcess(name, stopFile);
        jvm.onStart(p.handle::complete);
        Thread waiter = new Thread(() -> {
            try {
                p.result.complete(jvm.run());
            } catch (Throwable t) {
                p.handle.completeExceptionally(t);
                p.result.completeExceptionally(t);
            }
        }, "child-" + name);
        waiter.setDaemon(true);
        waiter.start();
        return p;
    }

    public String name() {
        return name;
    }

    public long pid() {
        return processHandle().pid();
    }

    /** Whether the JVM has exited (or could not be started). */
    public boolean exited() {
        return result.isDone();
    }

    /** SIGKILL: the process is gone at once; its sockets are closed by the kernel. */
    public void kill() {
        processHandle().destroyForcibly();
    }

    /** SIGSTOP, then checks that the kernel reports the process stopped (state {@code T}). */
    public void freeze() {
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
    public void thaw() {
        signal("CONT");
    }

    /** SIGTERM: the JVM runs its shutdown hooks and exits. */
    public void terminate() {
        processHandle().destroy();
    }

    /** Creates the stop file the child polls (see {@link #start}). */
    public void requestStop() {
        if (stopFile == null) {
            throw new IllegalStateException(name + " has no stop file");
        }
        try {
            Files.writeString(stopFile, "stop\n", StandardCharsets.US_ASCII);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Waits for the JVM to exit; fails when it does not within {@code limit}, or when the harness threw. */
    public ChildResult awaitExit(Duration limit) throws InterruptedException {
        try {
            return result.get(limit.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new IllegalStateException(name + " did not exit within " + limit.toMillis() + " ms");
        } catch (ExecutionException e) {
            throw new IllegalStateException(name + ": " + e.getCause(), e.getCause());
        }
    }

    /** The result when it has exited, for a failure message; null while it runs. */
    public ChildResult resultIfExited() {
        return result.isDone() && !result.isCompletedExceptionally() ? result.join() : null;
    }

    private ProcessHandle processHandle() {
        try {
            return handle.get(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted waiting for " + name + " to start", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException(name + " did not start: " + e, e);
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
