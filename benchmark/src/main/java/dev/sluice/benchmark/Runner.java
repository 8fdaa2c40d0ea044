package dev.sluice.benchmark;

import dev.sluice.benchmark.latency.CallLatencyProfiler;
import dev.sluice.benchmark.report.JmhJson;
import dev.sluice.benchmark.report.Report;
import dev.sluice.benchmark.report.Row;
import dev.sluice.benchmark.report.SvgChart;
import dev.sluice.benchmark.report.WriteBatchChart;
import dev.sluice.benchmark.report.WriteBatches;
import java.io.IOException;
import java.io.PrintStream;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.profile.GCProfiler;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.results.format.ResultFormatFactory;
import org.openjdk.jmh.results.format.ResultFormatType;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;

/**
 * Runs the dubbo-benchmark comparison: for each target, starts its server JVM ({@link ServerProcess}), runs
 * {@link UserServiceBenchmark} for each thread count in one client JVM ({@link ClientJvm}) or, with
 * {@code --client-jvm per-method}, through the JMH API in a forked client JVM per method, then writes
 * {@code jmh-result.json}, {@code summary.json}, {@code summary.md} and {@code chart.svg} and prints the table.
 * Usually started by {@code bench.sh}, which builds the jar and provides a network namespace.
 *
 * <p>Over 400 lines because it is the run's one sequence, read top to bottom: targets, server JVMs, JMH options
 * (including the recording flags of {@code --observe} and {@code --jfr}), the time estimate and the report steps.
 * Parsing lives in {@link Settings}, rendering in {@code report}, recording set-up in {@link Observe}.
 */
public final class Runner {

    /** JVM start, Dubbo bootstrap and teardown of one JMH fork, for the time estimate. */
    private static final int FORK_OVERHEAD_SECONDS = 4;

    private Runner() {}

    public static void main(String[] args) throws Exception {
        Settings settings;
        try {
            settings = Settings.parse(args);
        } catch (Settings.UsageException e) {
            if (e.getMessage() != null) {
                System.err.println("error: " + e.getMessage());
            }
            System.err.println(Settings.USAGE);
            System.exit(e.getMessage() == null ? 0 : 2);
            return;
        }
        System.exit(run(settings, System.out));
    }

    static int run(Settings s, PrintStream console) throws Exception {
        // JMH reads this once, in a static initializer (before its first run in this JVM); JmhLock takes JMH's lock
        // for the whole comparison instead, and the JMH runs inside it must not try to take it again.
        System.setProperty("jmh.ignoreLock", "true");
        if (s.report != null) {
            return report(s.report, console);
        }
        if (s.list) {
            for (String name : Targets.names()) {
                BenchTarget t = Targets.get(name);
                String reason = t.unavailableReason();
                console.printf(Locale.ROOT, "%-22s %-9s %-11s %s%s%n", name, Targets.groupOf(name),
                        reason == null ? "available" : "pending", t.description(),
                        reason == null ? "" : "\n" + " ".repeat(23) + "(" + reason + ")");
            }
            return 0;
        }

        List<BenchTarget> targets = new ArrayList<>();
        if (s.targets == null) {
            for (String name : "smoke".equals(s.profile) ? Targets.group(Targets.ALL) : Targets.defaultNames()) {
                BenchTarget t = Targets.get(name);
                if (t.unavailableReason() == null) {
                    targets.add(t);
                } else {
                    console.println("skipping " + name + ": " + t.unavailableReason());
                }
            }
        } else {
            List<String> names;
            try {
                names = Targets.expand(s.targets);
            } catch (IllegalArgumentException e) {
                console.println("error: " + e.getMessage());
                return 2;
            }
            for (String name : names) {
                BenchTarget t = Targets.get(name);
                String reason = t.unavailableReason();
                if (reason != null) {
                    console.println("error: target " + name + " cannot run: " + reason);
                    return 2;
                }
                targets.add(t);
            }
        }
        if (targets.isEmpty()) {
            console.println("error: no target to run");
            return 2;
        }

        String host;
        try {
            host = s.host != null ? s.host : defaultHost();
        } catch (IllegalStateException e) {
            console.println("error: " + e.getMessage());
            return 2;
        }
        Path out = s.out != null ? s.out
                : Path.of("results", LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
        Files.createDirectories(out);
        if (s.jfr != null) {
            Files.createDirectories(out.resolve("jfr"));
        }

        int total = 0;
        long totalSeconds = 0;
        for (BenchTarget t : targets) {
            total += benchmarksOf(s, t);
            totalSeconds += secondsOf(s, t);
        }
        long perBenchmark = total == 0 ? 0 : Math.round((double) totalSeconds / total);
        boolean interleaved = s.interleaved && s.sync;
        int interleavedBenchmarks = interleaved ? targets.size() * s.threads.size() * s.methods.size() : 0;
        if (interleaved) {
            totalSeconds += Interleaved.seconds(s, targets.size());
        }

        Map<String, String> meta = new LinkedHashMap<>();
        meta.put("date", LocalDateTime.now().toString());
        meta.put("settings", s.describe());
        meta.put("targets", String.join(",", targets.stream().map(BenchTarget::name).toList()));
        meta.put("serverAddress", host);
        meta.put("networkNamespace", System.getenv().getOrDefault("SLUICE_BENCH_NETNS", "no"));
        meta.put("cores", String.valueOf(Runtime.getRuntime().availableProcessors()));
        meta.put("jdk", System.getProperty("java.version"));
        meta.put("vm", System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"));
        meta.put("os", System.getProperty("os.name") + " " + System.getProperty("os.version") + " "
                + System.getProperty("os.arch"));
        meta.put("jvmFlags", String.join(" ", Settings.JVM_FLAGS));
        meta.put("gitRevision", System.getenv().getOrDefault("SLUICE_BENCH_GIT_REV", "unknown"));

        console.println("Sluice benchmark: " + s.describe());
        console.printf(Locale.ROOT, "targets %s, server %s, %s cores, %s; JVMs: %s%n", meta.get("targets"), host,
                meta.get("cores"), meta.get("vm"), meta.get("jvmFlags"));
        console.printf(Locale.ROOT, "%d benchmarks, about %d min; results in %s%n", total + interleavedBenchmarks,
                Math.max(1, Math.round((totalSeconds + targets.size() * 5L) / 60.0)), out);

        double load = java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
        meta.put("loadAverageAtStart", String.format(Locale.ROOT, "%.2f", load));
        if (load > Runtime.getRuntime().availableProcessors() * 0.5) {
            console.printf(Locale.ROOT, "warning: load average %.2f on %d cores before starting: other processes"
                    + " compete for the CPU, numbers will be noisy%n", load,
                            Runtime.getRuntime().availableProcessors());
        }

        JmhLock jmhLock;
        try {
            jmhLock = JmhLock.acquire(Duration.ofMinutes(s.lockWaitMinutes), console);
        } catch (IOException e) {
            console.println("error: " + e.getMessage());
            return 1;
        }
        List<Path> resultFiles = new ArrayList<>();
        List<String> failures = new ArrayList<>();
        AtomicReference<ServerProcess> current = new AtomicReference<>();
        AtomicReference<Process> client = new AtomicReference<>();
        Thread hook = new Thread(() -> {
            Process c = client.get();
            if (c != null) {
                c.destroyForcibly();
            }
            ServerProcess p = current.get();
            if (p != null) {
                p.kill();
            }
        }, "kill-server");
        Runtime.getRuntime().addShutdownHook(hook);

        PrintStream stdout = System.out;
        PrintStream stderr = System.err;
        // opened for appending: a client JVM (ClientJvm) appends to both while this thread waits for it
        try (PrintStream jmhLog = new PrintStream(appendTo(out.resolve("jmh.log")), true, StandardCharsets.UTF_8);
                PrintStream clientLog = new PrintStream(appendTo(out.resolve("client.log")), true,
                        StandardCharsets.UTF_8)) {
            // JMH copies the forked client JVM's stdout/stderr (Dubbo's logs) to System.out/err: send them to
            // client.log, and to the console too with --verbose.
            PrintStream forked = s.verbose ? new PrintStream(new Tee(clientLog, console), true, StandardCharsets.UTF_8)
                    : clientLog;
            System.setOut(forked);
            System.setErr(forked);
            ProgressFormat progress = new ProgressFormat(jmhLog, console, s.verbose, total, perBenchmark);
            if (interleaved) {
                failures.addAll(Interleaved.run(s, targets, host, out, console, jmhLog, resultFiles));
            }
            for (int i = 0; i < targets.size(); i++) {
                BenchTarget target = targets.get(i);
                List<Run> targetRuns = runs(s, target);
                if (targetRuns.isEmpty()) {
                    continue; // measured interleaved above
                }
                int port = s.port + i;
                int expectedDone = progress.done() + benchmarksOf(s, target);
                progress.target(target.name());
                progress.note("== " + target.name() + ": " + target.description());
                clientLog.println("==== " + target.name());
                ServerProcess server = null;
                try {
                    long t0 = System.nanoTime();
                    server = ServerProcess.start(target.name(), host, port, out.resolve("server-" + target.name()
                            + ".log"), jvmFlags(s, target, out, null));
                    current.set(server);
                    server.awaitReady(host, port, Duration.ofSeconds(120));
                    progress.note(String.format(Locale.ROOT, "   server ready on %s:%d after %d ms", host, port,
                            TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0)));
                    Run warmLoad = ServerWarmUp.loadFor(s, targetRuns);
                    if (warmLoad != null) {
                        progress.note(String.format(Locale.ROOT, "   warming the server up: %d s of %s at %s,"
                                + " unmeasured", ServerWarmUp.callSeconds(s, warmLoad),
                                String.join(", ", warmLoad.methods()), warmLoad.label()));
                        clientLog.println("==== " + target.name() + " server warm-up");
                        String why = ServerWarmUp.run(s, target, warmLoad, host, port, out, client);
                        if (why != null) { // not a failure of the run: the loads are measured and report theirs
                            progress.note("   the server warm-up did not complete: " + why + "; measuring anyway");
                        }
                    }
                    for (Run run : targetRuns) {
                        if (!server.isAlive()) {
                            throw new IOException("server died" + server.tail());
                        }
                        String label = target.name() + " " + run.label();
                        clientLog.println("==== " + label);
                        List<String> failed = new ArrayList<>();
                        if (s.clientJvmPerRun) {
                            int before = progress.done();
                            ClientJvm.Outcome o = ClientJvm.run(s, target, run, host, port, out, before, total,
                                    perBenchmark, console, client);
                            progress.skipped(run.benchmarks());
                            if (o.results() != null) {
                                resultFiles.add(o.results());
                            }
                            failed.addAll(o.failures());
                        } else {
                            Path file = ClientJvm.resultsFile(out, target, run);
                            Files.deleteIfExists(file); // a run into the same --out: only this run's results count
                            failed.addAll(runJmh(options(s, run, target, host, port, out).build(), progress, run,
                                    file));
                            if (Files.exists(file)) {
                                resultFiles.add(file);
                            }
                        }
                        for (String f : failed) {
                            failures.add(label + ": " + f);
                            progress.note("   FAILED " + label + ": " + f + " (see " + out.resolve("jmh.log") + ")");
                        }
                    }
                } catch (Exception e) {
                    String msg = target.name() + ": " + e.getMessage();
                    failures.add(msg);
                    progress.note("   FAILED " + msg);
                } finally {
                    if (server != null) {
                        server.close();
                        current.set(null);
                    }
                    progress.skipped(expectedDone - progress.done());
                }
            }
        } finally {
            jmhLock.close();
            System.setOut(stdout);
            System.setErr(stderr);
            Runtime.getRuntime().removeShutdownHook(hook);
        }

        double loadAtEnd = java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
        meta.put("loadAverageAtEnd", String.format(Locale.ROOT, "%.2f", loadAtEnd));
        Path json = out.resolve("jmh-result.json");
        int results = JmhJson.merge(resultFiles, json, Targets.names());
        List<Row> rows = Files.exists(json) ? JmhJson.read(json) : List.of();
        writeReports(out, rows, meta, failures, s.profile, console);
        console.printf(Locale.ROOT, "load average %s at start, %.2f at end (%s cores)%n",
                meta.get("loadAverageAtStart"), loadAtEnd, meta.get("cores"));
        if (!failures.isEmpty()) {
            console.println("FAILURES:");
            failures.forEach(f -> console.println("  " + f));
            return 1;
        }
        return results == 0 ? 1 : 0;
    }

    /** {@code --report DIR}: renders the summary, table and chart again from {@code DIR/jmh-result.json}. */
    static int report(Path dir, PrintStream console) throws IOException {
        Path json = dir.resolve("jmh-result.json");
        if (!Files.exists(json)) {
            console.println("error: " + json + " does not exist");
            return 2;
        }
        Map<String, String> meta = new LinkedHashMap<>();
        Path summary = dir.resolve("summary.json");
        if (Files.exists(summary)) {
            com.alibaba.fastjson2.JSONObject old = com.alibaba.fastjson2.JSON.parseObject(Files.readString(summary));
            com.alibaba.fastjson2.JSONObject m = old.getJSONObject("meta");
            if (m != null) {
                m.forEach((k, v) -> meta.put(k, String.valueOf(v)));
            }
        }
        List<Row> rows = JmhJson.read(json);
        if (!meta.containsKey("targets")) {
            meta.put("targets", String.join(",", rows.stream().map(r -> r.target).distinct().toList()));
        }
        String profile = meta.getOrDefault("settings", "profile ?").replaceAll("^profile (\\S+):.*", "$1");
        writeReports(dir, rows, meta, List.of(), profile, console);
        return 0;
    }

    private static void writeReports(Path out, List<Row> rows, Map<String, String> meta, List<String> failures,
            String profile, PrintStream console) throws IOException {
        Report report = new Report(rows, Targets.names(), Settings.METHODS, Targets::baselineOf);
        Files.writeString(out.resolve("summary.json"), report.json(meta));
        Files.writeString(out.resolve("chart.svg"), SvgChart.render(report,
                "dubbo-benchmark UserService (" + profile + ", "
                        + meta.getOrDefault("cores", "?") + " cores, JDK " + meta.getOrDefault("jdk", "?") + ")"));
        String md = markdown(report, meta, failures);
        WriteBatches batches = WriteBatches.read(out.resolve("jfr"));
        if (!batches.isEmpty()) {
            Files.writeString(out.resolve("write-batches.svg"), WriteBatchChart.render(batches, Targets.names(),
                    "Sluice write batches (" + profile + ", " + meta.getOrDefault("cores", "?") + " cores, load "
                            + meta.getOrDefault("loadAverageAtStart", "?") + " at start)"));
            md += "\n" + batches.markdown(Targets.names());
        }
        Files.writeString(out.resolve("summary.md"), md);
        console.println();
        console.println("Results (" + profile + "):");
        console.println();
        console.print(report.text());
        if ("smoke".equals(profile)) {
            console.println("(smoke: cold JVMs and no warm-up; these numbers check that every target works, they do"
                    + " not measure it)");
        }
        console.println("written: " + out.resolve("summary.md") + ", summary.json, jmh-result.json, chart.svg,"
                + " jmh.log, client.log, server-*.log" + (batches.isEmpty() ? ""
                        : ", write-batches.svg, jfr/ (open a .jfr in JDK Mission Control)"));
    }

    /** Writes to two streams. */
    private static final class Tee extends java.io.OutputStream {
        private final java.io.OutputStream a;
        private final java.io.OutputStream b;

        Tee(java.io.OutputStream a, java.io.OutputStream b) {
            this.a = a;
            this.b = b;
        }

        @Override
        public void write(int v) throws IOException {
            a.write(v);
            b.write(v);
        }

        @Override
        public void write(byte[] buf, int off, int len) throws IOException {
            a.write(buf, off, len);
            b.write(buf, off, len);
        }

        @Override
        public void flush() throws IOException {
            a.flush();
            b.flush();
        }
    }

    /**
     * One JMH run against a target's server: the synchronous workload at a thread count, or the asynchronous one at
     * threads x calls in flight; one benchmark (one client JVM) per method and mode.
     */
    record Run(int threads, int inflight, List<String> methods, List<String> modes) {
        boolean async() {
            return inflight > 0;
        }

        int benchmarks() {
            return methods.size() * modes.size();
        }

        String label() {
            return async() ? "async t=" + threads + "x" + inflight : "t=" + threads;
        }
    }

    /**
     * The runs of one target, in order: the synchronous thread counts from the highest (a 32-thread run warms the
     * server's code for every method far faster than a one-thread run), then the asynchronous loads, which
     * {@code AsyncUserServiceBenchmark} runs in Throughput mode only. In the smoke every target outside the fastjson2
     * group (hessian2, levers, peers) runs a subset of the methods, and only the fastjson2 targets and the peers run
     * the async workload.
     */
    static List<Run> runs(Settings s, BenchTarget target) {
        String group = Targets.groupOf(target.name());
        boolean subset = !Targets.FASTJSON2.equals(group); // the smoke's subset of methods
        boolean asyncInSmoke = Targets.FASTJSON2.equals(group) || Targets.PEERS.equals(group);
        List<Run> out = new ArrayList<>();
        if (s.sync && !s.interleaved) { // interleaved: Interleaved measures the synchronous workload
            List<Integer> threads = new ArrayList<>(s.threads);
            threads.sort(Collections.reverseOrder());
            for (int t : threads) {
                out.add(new Run(t, 0, s.methodsFor(subset, false), s.modes));
            }
        }
        // the smoke checks the async path of the fastjson2 targets and the peers only: the hessian2 ones and the
        // levers share the fastjson2 ones' clients
        if (target.supportsAsync() && (asyncInSmoke || !"smoke".equals(s.profile))) {
            for (Row.Load load : s.asyncLoads) {
                out.add(new Run(load.threads(), load.inflight(), s.methodsFor(subset, true), List.of("thrpt")));
            }
        }
        return out;
    }

    static int benchmarksOf(Settings s, BenchTarget target) {
        int n = 0;
        for (Run r : runs(s, target)) {
            n += r.benchmarks();
        }
        return n;
    }

    /** A target's benchmarks' wall time, without its server's start. */
    static long secondsOf(Settings s, BenchTarget target) {
        List<Run> targetRuns = runs(s, target);
        long n = ServerWarmUp.seconds(s, targetRuns);
        for (Run r : targetRuns) {
            n += secondsOfRun(s, r);
        }
        return n;
    }

    /**
     * A run's wall time: with a client JVM per run ({@link ClientJvm}), its start and stop once, and per method a
     * bulk and an own warm-up, the measurement and the client's connect and close; else a forked JVM per benchmark.
     */
    static long secondsOfRun(Settings s, Run run) {
        if (!s.clientJvmPerRun) {
            return run.benchmarks() * secondsPerBenchmark(s, run);
        }
        long warmUp = (long) warmupIterations(s, run) * s.warmupSeconds;
        return ClientJvm.JVM_SECONDS + run.benchmarks() * (2 * warmUp + (long) s.iterations * s.seconds
                + ClientJvm.SETUP_SECONDS);
    }

    /** The warm-up iterations of {@code run}: longer with more than one call in flight (see Settings). */
    static int warmupIterations(Settings s, Run run) {
        return run.async() || run.threads() > 1 ? s.concurrentWarmupIterations : s.warmupIterations;
    }

    /** One benchmark's wall time in {@code run}: per fork, warm-up, measurement and the client JVM's start and stop. */
    static long secondsPerBenchmark(Settings s, Run run) {
        return s.forks * ((long) warmupIterations(s, run) * s.warmupSeconds + (long) s.iterations * s.seconds
                + FORK_OVERHEAD_SECONDS);
    }

    /**
     * A target's own JVM flags, then with {@code --observe} a recording with sluice.jfc: of the server JVM
     * ({@code run} null) or of the client JVMs of {@code run}.
     */
    static List<String> jvmFlags(Settings s, BenchTarget target, Path out, Run run) throws IOException {
        List<String> flags = new ArrayList<>(target.jvmArgs());
        if (s.observe) {
            flags.addAll(Observe.recordInto(run == null ? Observe.serverDir(out, target.name())
                    : Observe.clientDir(out, target.name(), run.async() ? "a" + run.threads() + "x" + run.inflight()
                            : "t" + run.threads())));
        }
        if (s.jfr != null) {
            Path jfr = Files.createDirectories(out.resolve("jfr"));
            // With --client-jvm per-method JMH forks one client JVM per method, all with the same flags: with several
            // methods the last one's recording is what stays, so profile one method per run (--benchmarks); with a
            // client JVM per run the recording covers all its methods.
            flags.addAll(s.jfrFlags(jfr.resolve(run == null ? "server-" + target.name() + ".jfr"
                    : "client-" + target.name() + "-" + run.threads() + "t" + (run.async() ? "x" + run.inflight() : "")
                            + "-" + String.join("+", run.methods()) + ".jfr")));
        }
        return flags;
    }

    /** The JMH options of {@code run}: forked client JVMs, unless the caller sets otherwise ({@link ClientJvm}). */
    static ChainedOptionsBuilder options(Settings s, Run run, BenchTarget bench, String host, int port, Path out)
            throws IOException {
        String target = bench.name();
        Class<?> benchmark = run.async() ? AsyncUserServiceBenchmark.class : UserServiceBenchmark.class;
        ChainedOptionsBuilder b = new OptionsBuilder()
                .include("^" + benchmark.getName().replace(".", "\\.") + "\\.("
                        + String.join("|", run.methods()) + ")$")
                .param("target", target)
                .param("host", host)
                .param("port", String.valueOf(port))
                .param("timeoutMs", String.valueOf(run.async() ? s.asyncTimeoutMillis : s.timeoutMillis))
                .threads(run.threads())
                .forks(s.forks)
                .warmupIterations(warmupIterations(s, run))
                .warmupTime(TimeValue.seconds(s.warmupSeconds))
                .measurementIterations(s.iterations)
                .measurementTime(TimeValue.seconds(s.seconds))
                .timeUnit(TimeUnit.MILLISECONDS)
                .jvmArgs(Settings.JVM_FLAGS.toArray(new String[0]))
                .jvmArgsAppend(jvmFlags(s, bench, out, run).toArray(new String[0]))
                .shouldFailOnError(true)
                .verbosity(VerboseMode.NORMAL);
        if (run.async()) {
            b = b.param("inflight", String.valueOf(run.inflight()));
        }
        for (String m : run.modes()) {
            b = b.mode("thrpt".equals(m) ? Mode.Throughput : Mode.SampleTime);
        }
        if (s.gc) {
            b = b.addProfiler(GCProfiler.class);
        }
        return b.addProfiler(CallLatencyProfiler.class);
    }

    private static String markdown(Report report, Map<String, String> meta, List<String> failures) {
        StringBuilder sb = new StringBuilder("# Sluice benchmark results\n\n");
        for (Map.Entry<String, String> e : meta.entrySet()) {
            sb.append("* ").append(e.getKey()).append(": `").append(e.getValue()).append("`\n");
        }
        sb.append("\nTargets:\n\n");
        for (String name : meta.getOrDefault("targets", "").split(",")) {
            if (Targets.names().contains(name)) {
                sb.append("* `").append(name).append("`: ").append(Targets.get(name).description()).append('\n');
            }
        }
        sb.append('\n');
        sb.append(report.markdown());
        sb.append("![chart](chart.svg)\n");
        if (!failures.isEmpty()) {
            sb.append("\n## Failures\n\n");
            failures.forEach(f -> sb.append("* ").append(f.replace("\n", " ")).append('\n'));
        }
        return sb.toString();
    }

    /**
     * Runs JMH with {@code options}, reporting through {@code progress}, and writes its results as JMH JSON into
     * {@code file}; returns what failed (none when every benchmark of {@code run} has a result). Used in this JVM
     * (JMH forking a client JVM per method) and in a {@link ClientJvm} (JMH running inside it).
     */
    static List<String> runJmh(org.openjdk.jmh.runner.options.Options options, ProgressFormat progress, Run run,
            Path file) {
        try {
            Collection<RunResult> results = new org.openjdk.jmh.runner.Runner(options, progress).run();
            ResultFormatFactory.getInstance(ResultFormatType.JSON, file.toString()).writeOut(results);
            return results.size() < run.benchmarks()
                    ? List.of((run.benchmarks() - results.size()) + " benchmark(s) produced no result; see jmh.log")
                    : List.of();
        } catch (RunnerException e) {
            String cause = progress.lastFailure();
            return List.of(rootMessage(e) + (cause == null ? "" : ": " + cause));
        }
    }

    /** A new, empty file opened for appending: another process may append to it as well. */
    private static java.io.OutputStream appendTo(Path file) throws IOException {
        Files.deleteIfExists(file);
        return Files.newOutputStream(file, java.nio.file.StandardOpenOption.CREATE,
                java.nio.file.StandardOpenOption.APPEND);
    }

    static String rootMessage(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        String m = t.getMessage() == null ? t.getClass().getName() : t.getMessage();
        int nl = m.indexOf('\n');
        return nl < 0 ? m : m.substring(0, nl);
    }

    /** The first non-loopback, non-link-local IPv4 address that is up: what a Dubbo consumer would use. */
    static String defaultHost() throws SocketException {
        List<NetworkInterface> nics = Collections.list(NetworkInterface.getNetworkInterfaces());
        for (NetworkInterface nic : nics) {
            if (!nic.isUp() || nic.isLoopback()) {
                continue;
            }
            for (InetAddress a : Collections.list(nic.getInetAddresses())) {
                if (a instanceof Inet4Address && !a.isLoopbackAddress() && !a.isLinkLocalAddress()) {
                    return a.getHostAddress();
                }
            }
        }
        throw new IllegalStateException("this machine has no non-loopback IPv4 address; real Dubbo consumers are"
                + " pathologically slow without one (docs/wire-format.md §10.1). Run through bench.sh, which creates a"
                + " private network namespace, or pass --host.");
    }
}
