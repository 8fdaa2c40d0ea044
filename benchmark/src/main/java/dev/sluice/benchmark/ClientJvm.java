package dev.sluice.benchmark;

import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.openjdk.jmh.runner.options.WarmupMode;

/**
 * One client JVM for every benchmark of a {@link Runner.Run} ({@code --client-jvm per-run}, the default profile's
 * way): the parent {@link Runner} starts it with {@link #run}; in it, {@link #main} runs JMH in this JVM (forks 0)
 * with a bulk warm-up, so every method of the run warms up once before any is measured and again right before its
 * own measurement. The JIT work the methods share (the client's transport, codec and serializer) is done once per
 * run, not once per method: on a 2-core machine a cold client JVM needs 25-30 s before its figures settle.
 *
 * <p>Threads: {@link #run} blocks the parent's main thread until the child exits (one pump thread copies the child's
 * console output); {@link #main} is the child's main thread, and JMH's own threads call the benchmark.
 *
 * <p>The child appends to the run's {@code jmh.log} and {@code client.log} (the parent opens them in append mode
 * too), prints its progress lines on its standard output, which the parent copies to its console, and writes its
 * results as JMH JSON to the file it is given; a failure goes, one line, to that file + {@code .failed}.
 */
final class ClientJvm {

    /** Start and stop of the client JVM, and per method its client's connect and close, for the time estimate. */
    static final int JVM_SECONDS = 4;
    static final int SETUP_SECONDS = 1;

    private ClientJvm() {}

    /** What the child reported: its results file (null if none) and its failure lines. */
    record Outcome(Path results, List<String> failures) {}

    /**
     * Starts a client JVM for {@code run} against {@code target}'s server and waits for it; {@code done} and
     * {@code total} place its progress lines in the whole comparison. {@code current} holds the process while it
     * runs, for the parent's shutdown hook.
     */
    static Outcome run(Settings s, BenchTarget target, Runner.Run run, String host, int port, Path out, int done,
            int total, long perBenchmark, PrintStream console, AtomicReference<Process> current)
            throws IOException, InterruptedException {
        Path results = resultsFile(out, target, run);
        Path failed = Path.of(results + ".failed");
        Files.deleteIfExists(results);
        Files.deleteIfExists(failed);
        List<String> cmd = Settings.javaCommand(Runner.jvmFlags(s, target, out, run), ClientJvm.class);
        cmd.addAll(List.of(target.name(), String.valueOf(run.threads()), String.valueOf(run.inflight()),
                String.valueOf(port), String.valueOf(done), String.valueOf(total), String.valueOf(perBenchmark),
                results.toString()));
        cmd.addAll(s.args);
        // the parent's resolved address and results directory win over what the arguments said (later flags win)
        cmd.addAll(List.of("--host", host, "--out", out.toString()));
        Process p = new ProcessBuilder(cmd)
                .redirectError(ProcessBuilder.Redirect.appendTo(out.resolve("client.log").toFile()))
                .start();
        current.set(p);
        Thread pump = new Thread(() -> copy(p.getInputStream(), console), "client-output-" + target.name());
        pump.setDaemon(true);
        pump.start();
        long limit = Runner.secondsOfRun(s, run) * 2 + 300;
        List<String> failures = new ArrayList<>();
        try {
            if (!p.waitFor(limit, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                p.waitFor(10, TimeUnit.SECONDS);
                failures.add("the client JVM did not finish within " + limit + " s (twice the estimate + 300 s);"
                        + " killed it");
            }
        } finally {
            current.set(null);
            pump.join(2000);
        }
        if (Files.exists(failed)) {
            failures.addAll(Files.readAllLines(failed));
        } else if (!p.isAlive() && p.exitValue() != 0 && failures.isEmpty()) {
            failures.add("the client JVM exited with " + p.exitValue() + "; see client.log");
        }
        return new Outcome(Files.exists(results) ? results : null, failures);
    }

    /** Where the JMH results of {@code run} against {@code target} go, before {@link Runner} merges them. */
    static Path resultsFile(Path out, BenchTarget target, Runner.Run run) throws IOException {
        return Files.createDirectories(out.resolve("runs")).resolve(target.name() + "-"
                + (run.async() ? "a" + run.threads() + "x" + run.inflight() : "t" + run.threads()) + ".json");
    }

    /** Copies the child's console bytes as they come: its progress lines are written a piece at a time. */
    private static void copy(InputStream in, PrintStream console) {
        byte[] buf = new byte[4096];
        try {
            int n;
            while ((n = in.read(buf)) > 0) {
                console.write(buf, 0, n);
                console.flush();
            }
        } catch (IOException e) {
            // the child is gone
        }
    }

    /**
     * The child: {@code TARGET THREADS INFLIGHT PORT DONE TOTAL PER_BENCHMARK RESULTS} and then the Runner's own
     * arguments.
     */
    public static void main(String[] args) throws Exception {
        // the parent holds JMH's lock for the whole comparison (JmhLock)
        System.setProperty("jmh.ignoreLock", "true");
        String targetName = args[0];
        int threads = Integer.parseInt(args[1]);
        int inflight = Integer.parseInt(args[2]);
        int port = Integer.parseInt(args[3]);
        int done = Integer.parseInt(args[4]);
        int total = Integer.parseInt(args[5]);
        long perBenchmark = Long.parseLong(args[6]);
        Path results = Path.of(args[7]);
        Settings s = Settings.parse(java.util.Arrays.copyOfRange(args, 8, args.length));
        BenchTarget target = Targets.get(targetName);
        Runner.Run run = Runner.runs(s, target).stream()
                .filter(r -> r.threads() == threads && r.inflight() == inflight)
                .findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no run " + threads + "x" + inflight + " of "
                        + targetName + " in " + s.describe()));

        PrintStream console = System.out;
        // what the benchmark's clients print (Dubbo's logs) goes to client.log, as from JMH's forked JVMs
        PrintStream clientLog = new PrintStream(new FileOutputStream(s.out.resolve("client.log").toFile(), true),
                true, StandardCharsets.UTF_8);
        System.setOut(clientLog);
        System.setErr(clientLog);
        int status = 0;
        try (PrintStream jmhLog = new PrintStream(new FileOutputStream(s.out.resolve("jmh.log").toFile(), true), true,
                StandardCharsets.UTF_8)) {
            boolean bulk = Runner.warmupIterations(s, run) > 0;
            ProgressFormat progress = new ProgressFormat(jmhLog, console, s.verbose, total, perBenchmark);
            progress.skipped(done);
            progress.target(targetName);
            progress.warmUpsFirst(bulk ? run.benchmarks() : 0);
            List<String> failures = Runner.runJmh(Runner.options(s, run, target, s.host, port, s.out).forks(0)
                    .warmupMode(bulk ? WarmupMode.BULK_INDI : WarmupMode.INDI).build(), progress, run, results);
            if (!failures.isEmpty()) {
                Files.write(Path.of(results + ".failed"), failures);
                status = 1;
            }
        } finally {
            clientLog.flush();
        }
        // Dubbo leaves non-daemon threads behind; the results are written
        System.exit(status);
    }
}
