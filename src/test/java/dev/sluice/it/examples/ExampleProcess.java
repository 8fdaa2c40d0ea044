package dev.sluice.it.examples;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;

/**
 * One example program started as a user starts it ({@code java -jar …} or {@code java -cp …}), as a child process of
 * the scenario JVM, so it shares the scenario's network namespace. Its stdout and stderr (merged) are copied line by
 * line to {@code <name>.log} in the scenario's work directory and to the scenario's stdout (prefixed with the name),
 * and kept for checks.
 *
 * <p>Threads: one daemon thread per process reads its output; the other methods may be called from any thread.
 * Every wait has a timeout; {@link #close()} kills the process (and its descendants) if it is still alive.
 */
final class ExampleProcess implements AutoCloseable {
    private final String name;
    private final Process process;
    private final List<String> lines = new ArrayList<>();
    private final List<Waiter> waiters = new ArrayList<>();
    private final CompletableFuture<Void> outputClosed = new CompletableFuture<>();

    private static final class Waiter {
        final Predicate<String> match;
        final CompletableFuture<String> found = new CompletableFuture<>();

        Waiter(Predicate<String> match) {
            this.match = match;
        }
    }

    private ExampleProcess(String name, Process process, Path log) {
        this.name = name;
        this.process = process;
        Thread reader = new Thread(() -> pump(log), "output-" + name);
        reader.setDaemon(true);
        reader.start();
    }

    /**
     * Starts {@code java <jvmArgs…> <programArgs…>} with the running JVM's {@code java}, in {@code workDir}. A Netty
     * leak report in its output is found by {@link #leakReports()}.
     */
    static ExampleProcess startJava(String name, Path workDir, List<String> javaArgs) {
        List<String> command = new ArrayList<>();
        command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(javaArgs);
        Path log = workDir.resolve(name + ".log");
        try {
            Files.write(workDir.resolve(name + ".command.txt"), command, StandardCharsets.UTF_8);
            Process process = new ProcessBuilder(command)
                    .directory(workDir.toFile())
                    .redirectErrorStream(true)
                    .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                    .start();
            return new ExampleProcess(name, process, log);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + name + ": " + command, e);
        }
    }

    private void pump(Path log) {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8));
                PrintWriter out = new PrintWriter(Files.newBufferedWriter(log, StandardCharsets.UTF_8), true)) {
            String line;
            while ((line = in.readLine()) != null) {
                out.println(line);
                synchronized (System.out) {
                    System.out.println("[" + name + "] " + line);
                }
                synchronized (this) {
                    lines.add(line);
                    for (Iterator<Waiter> it = waiters.iterator(); it.hasNext(); ) {
                        Waiter w = it.next();
                        if (w.match.test(line)) {
                            w.found.complete(line);
                            it.remove();
                        }
                    }
                }
            }
        } catch (IOException e) {
            synchronized (System.out) {
                System.out.println("[" + name + "] <output unreadable: " + e + ">");
            }
        } finally {
            outputClosed.complete(null);
            synchronized (this) {
                for (Waiter w : waiters) {
                    w.found.completeExceptionally(new IllegalStateException(name + " closed its output (exit "
                            + exitDescription() + ") before printing the line awaited"));
                }
                waiters.clear();
            }
        }
    }

    /**
     * The first line (already printed or still to come) for which {@code match} holds, waiting at most {@code timeout}.
     */
    String awaitLine(Predicate<String> match, Duration timeout, String what) throws InterruptedException {
        Waiter waiter;
        synchronized (this) {
            for (String line : lines) {
                if (match.test(line)) {
                    return line;
                }
            }
            if (outputClosed.isDone()) {
                throw new IllegalStateException(name + " ended (exit " + exitDescription() + ") without printing "
                        + what);
            }
            waiter = new Waiter(match);
            waiters.add(waiter);
        }
        try {
            return waiter.found.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new IllegalStateException(name + " did not print " + what + " within " + timeout.toSeconds()
                    + " s", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException(e.getCause().getMessage(), e.getCause());
        }
    }

    /** Waits for the process to exit and its output to be read completely; returns the exit code. */
    int awaitExit(Duration timeout) throws InterruptedException {
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new IllegalStateException(name + " still running after " + timeout.toSeconds() + " s");
        }
        try {
            outputClosed.get(10, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException(name + " exited but its output did not end", e);
        }
        return process.exitValue();
    }

    /** Asks for a thread dump (SIGQUIT: the JVM prints every thread to stdout) and returns the thread names. */
    List<String> threadNames(Duration timeout) throws InterruptedException {
        int from;
        synchronized (this) {
            from = lines.size();
        }
        try {
            Process kill = new ProcessBuilder("kill", "-QUIT", Long.toString(process.pid()))
                    .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            if (!kill.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS) || kill.exitValue() != 0) {
                throw new IllegalStateException("kill -QUIT " + process.pid() + " failed");
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run kill -QUIT", e);
        }
        // HotSpot ends its dump with the JNI reference count, after every thread.
        awaitLine(l -> l.startsWith("JNI global refs"), timeout, "the end of a thread dump");
        List<String> names = new ArrayList<>();
        synchronized (this) {
            for (String line : lines.subList(from, lines.size())) {
                if (line.startsWith("\"")) {
                    int end = line.indexOf('"', 1);
                    if (end > 0) {
                        names.add(line.substring(1, end));
                    }
                }
            }
        }
        return names;
    }

    /** Asks the process to stop as Ctrl-C / a service manager would (SIGTERM). */
    void stop() {
        process.toHandle().destroy(); // SIGTERM; unlike Process.destroy(), leaves the output stream open
    }

    synchronized List<String> lines() {
        return List.copyOf(lines);
    }

    synchronized boolean printed(String text) {
        return lines.stream().anyMatch(l -> l.contains(text));
    }

    /** Lines with Netty's {@code LEAK:} marker. */
    synchronized List<String> leakReports() {
        return lines.stream().filter(l -> l.contains("LEAK:")).toList();
    }

    long pid() {
        return process.pid();
    }

    private String exitDescription() {
        return process.isAlive() ? "still running" : Integer.toString(process.exitValue());
    }

    @Override
    public void close() {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
    }
}
