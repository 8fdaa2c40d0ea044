package dev.sluice.benchmark;

import dev.sluice.benchmark.server.ServerMain;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** A target's server JVM ({@link ServerMain}), with its output copied to a log file. */
final class ServerProcess implements AutoCloseable {

    private final String target;
    private final Process process;
    private final Path log;
    private final CompletableFuture<String> ready = new CompletableFuture<>();
    private final Deque<String> tail = new ArrayDeque<>();
    private final Thread pump;

    private ServerProcess(String target, Process process, Path log) {
        this.target = target;
        this.process = process;
        this.log = log;
        this.pump = new Thread(this::pump, "server-output-" + target);
        this.pump.setDaemon(true);
        this.pump.start();
    }

    static ServerProcess start(String target, String host, int port, Path log) throws IOException {
        return start(target, host, port, log, List.of());
    }

    /** As {@link #start(String, String, int, Path)}, with {@code extraFlags} after the common JVM flags. */
    static ServerProcess start(String target, String host, int port, Path log, List<String> extraFlags)
            throws IOException {
        List<String> cmd = Settings.javaCommand(extraFlags, ServerMain.class);
        cmd.add(target);
        cmd.add(host);
        cmd.add(String.valueOf(port));
        Files.createDirectories(log.getParent());
        Files.writeString(log, String.join(" ", cmd) + System.lineSeparator());
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        return new ServerProcess(target, p, log);
    }

    private void pump() {
        try (BufferedReader in =
                new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
                PrintStream out = new PrintStream(Files.newOutputStream(log, java.nio.file.StandardOpenOption.APPEND),
                        true, StandardCharsets.UTF_8)) {
            String line;
            while ((line = in.readLine()) != null) {
                out.println(line);
                synchronized (tail) {
                    tail.addLast(line);
                    if (tail.size() > 30) {
                        tail.removeFirst();
                    }
                }
                if (line.startsWith(ServerMain.READY)) {
                    ready.complete(line);
                }
            }
        } catch (IOException e) {
            ready.completeExceptionally(e);
        }
        ready.completeExceptionally(new IOException("server exited before it was ready"));
    }

    /**
     * Waits for the READY line, then for the port to accept a connection; fails fast if the process dies.
     * Returns the READY line.
     */
    String awaitReady(String host, int port, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        String line;
        try {
            line = ready.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new IOException(target + " server not ready after " + timeout.toSeconds() + " s" + tail());
        } catch (Exception e) {
            process.waitFor(2, TimeUnit.SECONDS);
            throw new IOException(target + " server failed to start"
                    + (process.isAlive() ? "" : " (exit " + process.exitValue() + ")") + tail());
        }
        IOException last = null;
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IOException(target + " server died (exit " + process.exitValue() + ")" + tail());
            }
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress(host, port), 1000);
                return line;
            } catch (IOException e) {
                last = e;
                Thread.sleep(50);
            }
        }
        throw new IOException(target + " server printed READY but " + host + ":" + port + " refuses connections: "
                + last + tail());
    }

    boolean isAlive() {
        return process.isAlive();
    }

    String tail() {
        synchronized (tail) {
            return tail.isEmpty() ? "" : "\n  last server output (" + log + "):\n    " + String.join("\n    ", tail);
        }
    }

    /** Closes the server's stdin (it stops on EOF), then escalates to SIGTERM and SIGKILL. */
    @Override
    public void close() throws InterruptedException {
        try {
            process.getOutputStream().close();
        } catch (IOException ignored) {
            // already gone
        }
        if (!process.waitFor(15, TimeUnit.SECONDS)) {
            process.destroy();
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(5, TimeUnit.SECONDS);
            }
        }
        pump.join(2000);
    }

    /** For shutdown hooks: no waiting. */
    void kill() {
        process.destroyForcibly();
    }
}
