package dev.sluice.benchmark;

import com.alibaba.fastjson2.JSON;
import com.alibaba.fastjson2.JSONArray;
import com.alibaba.fastjson2.JSONObject;
import com.alibaba.fastjson2.JSONWriter;
import dev.sluice.benchmark.latency.CallLatencyProfiler;
import dev.sluice.benchmark.report.JmhJson;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.util.ListStatistics;

/**
 * The default run's synchronous workload, measured interleaved: every target's server runs at once, and for each
 * thread count one client JVM per target ({@link InterleavedClient}) stays connected while the targets take turns,
 * one slot each per method and round (a short unmeasured settle, then the measured window), in a balanced order
 * ({@link #turnOrder}). The first rounds warm up, the rest are measured; a row's score is the median of its rounds.
 *
 * <p>Why: measured one after another, a target that drew a slow stretch of a small shared VM (they last tens of
 * seconds) moved its ratios by 10-20 % between two runs; taking turns every few seconds puts every target of a method
 * into the same stretch of time, so the ratios, which are the figures users quote, hold still.
 *
 * <p>Results are written as JMH JSON ({@code runs/interleaved-TARGET-tN.json}: Throughput entries with each round's
 * score as a measurement iteration, the whole JVM's allocation per call as {@code gc.alloc.rate.norm} and the calls'
 * percentiles as {@code call.p50}, ... — the names JMH's profilers give them), so the report reads them like any
 * other run.
 *
 * <p>Threads: runs on the {@link Runner}'s main thread; one reader thread per client JVM queues its answers.
 */
final class Interleaved {
    /** The unmeasured start of every slot: the target's threads wake and its connections fill again. */
    static final int SETTLE_MILLIS = 300;
    /** A client JVM's start, its connect and its stop, for the time estimate. */
    private static final int CLIENT_SECONDS = 8;

    private Interleaved() {}

    /**
     * The warm-up rounds before the measured rounds of a thread count: the first has cold client JVMs, the later ones
     * only a new thread count.
     */
    static int warmUpRounds(Settings s, boolean first) {
        return first ? s.firstWarmupRounds : s.laterWarmupRounds;
    }

    /** The wall time of the interleaved part, for the estimate: every slot of every round, and the client JVMs. */
    static long seconds(Settings s, int targets) {
        long slotsPerRound = (long) s.methods.size() * targets;
        long millis = 0;
        for (int i = 0; i < s.threads.size(); i++) {
            millis += slotsPerRound * (warmUpRounds(s, i == 0) * (s.warmupSeconds * 1000L + SETTLE_MILLIS)
                    + s.measuredRounds * (s.seconds * 1000L + SETTLE_MILLIS));
        }
        return millis / 1000 + CLIENT_SECONDS;
    }

    /** One target's client JVM and what it measured. */
    static final class Client {
        final BenchTarget target;
        final Process process;
        final BlockingQueue<String> answers = new LinkedBlockingQueue<>();
        /** Per thread count, per method: each measured round's answer (calls, nanos, bytes, p50, p99, p99.9). */
        final Map<Integer, Map<String, List<double[]>>> rounds = new LinkedHashMap<>();
        /** Failure of the whole client JVM (it stopped answering); then nothing more is sent to it. */
        String failure;
        /** Rows ({@code t=THREADS METHOD}) with a failed measured round, and why: not reported. */
        final Map<String, String> failedRows = new LinkedHashMap<>();

        Client(BenchTarget target, Process process) {
            this.target = target;
            this.process = process;
        }

        /** Starts {@code command}, a client speaking {@link InterleavedClient}'s protocol, and queues its answers. */
        static Client start(BenchTarget target, ProcessBuilder command) throws IOException {
            Process p = command.start();
            Client c = new Client(target, p);
            Thread reader = new Thread(() -> {
                try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(),
                        StandardCharsets.UTF_8))) {
                    String line;
                    while ((line = r.readLine()) != null) {
                        c.answers.add(line);
                    }
                } catch (IOException e) {
                    // the client JVM is gone; await() says so
                }
            }, "interleaved-" + target.name());
            reader.setDaemon(true);
            reader.start();
            return c;
        }

        void send(String line) {
            try {
                process.getOutputStream().write((line + "\n").getBytes(StandardCharsets.UTF_8));
                process.getOutputStream().flush();
            } catch (IOException e) {
                failure = "the client JVM stopped reading its commands (" + e.getMessage() + "); see client.log";
            }
        }

        String await(long seconds) throws InterruptedException {
            String a = answers.poll(seconds, TimeUnit.SECONDS);
            if (a == null) {
                failure = process.isAlive() ? "no answer within " + seconds + " s" : "the client JVM exited with "
                        + process.exitValue() + "; see client.log";
            }
            return a;
        }
    }

    /**
     * Runs the synchronous workload of {@code s} against {@code targets}, interleaved; returns the failures (target
     * and what failed), adds the result files it wrote to {@code resultFiles}.
     */
    static List<String> run(Settings s, List<BenchTarget> targets, String host, Path out, PrintStream console,
            PrintStream log, List<Path> resultFiles) throws IOException, InterruptedException {
        List<String> failures = new ArrayList<>();
        List<ServerProcess> servers = new ArrayList<>();
        List<Client> clients = new ArrayList<>();
        Thread hook = new Thread(() -> {
            clients.forEach(c -> c.process.destroyForcibly());
            servers.forEach(ServerProcess::kill);
        }, "kill-interleaved");
        Runtime.getRuntime().addShutdownHook(hook);
        List<BenchTarget> serving = new ArrayList<>();
        List<Integer> ports = new ArrayList<>();
        try {
            for (int i = 0; i < targets.size(); i++) {
                BenchTarget t = targets.get(i);
                int port = s.port + i;
                try {
                    ServerProcess server = ServerProcess.start(t.name(), host, port,
                            out.resolve("server-" + t.name() + ".log"), Runner.jvmFlags(s, t, out, null));
                    servers.add(server);
                    server.awaitReady(host, port, Duration.ofSeconds(120));
                    serving.add(t);
                    ports.add(port);
                } catch (Exception e) {
                    failures.add(t.name() + ": server: " + Runner.rootMessage(e));
                }
            }
            List<Integer> threadCounts = new ArrayList<>(s.threads);
            threadCounts.sort(Collections.reverseOrder());
            say(console, log, String.format(Locale.ROOT, "== interleaved: %s; threads %s; %d warm-up rounds (%d after"
                    + " the first thread count) of %d s and %d measured rounds of %d s per method and target, each"
                    + " turn after %d ms unmeasured",
                    String.join(", ", serving.stream().map(BenchTarget::name).toList()), threadCounts,
                    warmUpRounds(s, true), warmUpRounds(s, false), s.warmupSeconds, s.measuredRounds, s.seconds,
                    SETTLE_MILLIS));
            Runner.Run all = new Runner.Run(threadCounts.get(0), 0, s.methods, List.of("thrpt"));
            for (int i = 0; i < serving.size(); i++) {
                clients.add(start(s, serving.get(i), all, host, ports.get(i), out));
            }
            for (Client c : clients) {
                String ready = c.await(180);
                if (ready != null && !ready.equals("ready")) {
                    c.failure = ready.replaceFirst("^error ", "");
                }
            }
            for (int i = 0; i < threadCounts.size(); i++) {
                measure(s, clients, threadCounts.get(i), warmUpRounds(s, i == 0), console, log);
            }
            for (Client c : clients) {
                c.send("quit");
            }
            for (Client c : clients) {
                if (!c.process.waitFor(30, TimeUnit.SECONDS)) {
                    c.process.destroyForcibly();
                }
                if (c.failure != null) {
                    failures.add(c.target.name() + ": " + c.failure);
                }
                c.failedRows.forEach((row, why) -> failures.add(c.target.name() + " " + row + ": " + why));
                if (!c.rounds.isEmpty()) {
                    resultFiles.add(write(out, c, host, ports.get(serving.indexOf(c.target)), s));
                }
            }
        } finally {
            for (Client c : clients) {
                c.process.destroyForcibly();
            }
            for (ServerProcess server : servers) {
                server.close();
            }
            Runtime.getRuntime().removeShutdownHook(hook);
        }
        return failures;
    }

    private static Client start(Settings s, BenchTarget target, Runner.Run run, String host, int port, Path out)
            throws IOException {
        List<String> cmd = Settings.javaCommand(Runner.jvmFlags(s, target, out, run), InterleavedClient.class);
        cmd.addAll(List.of(target.name(), String.valueOf(run.threads()), host, String.valueOf(port),
                String.valueOf(s.timeoutMillis), out.resolve("client.log").toString()));
        return Client.start(target, new ProcessBuilder(cmd)
                .redirectError(ProcessBuilder.Redirect.appendTo(out.resolve("client.log").toFile())));
    }

    /**
     * The order of the targets' turns in round {@code round} of {@code n} targets: a Williams design, in which over a
     * cycle of rounds ({@code n} for an even {@code n}, {@code 2n} for an odd one) every target takes every position
     * and follows every other target equally often.
     *
     * <p>Why: a turn may leave work behind for the next (the last target's JVMs collecting garbage, its threads winding
     * down), and an order rotated by one keeps every target behind the same predecessor in every round, which would
     * bias its ratios alike in every run: two identical sluice targets in one run differed measurably that way
     * (docs/performance/journal/2026-11-27-interleaved-runs.md).
     */
    static int[] turnOrder(int round, int n) {
        if (n < 1 || round < 0) {
            throw new IllegalArgumentException("round " + round + " of " + n + " targets");
        }
        int shift = round % n;
        boolean reversed = n % 2 == 1 && round % (2 * n) >= n;
        int[] order = new int[n];
        for (int j = 0; j < n; j++) {
            int k = reversed ? n - 1 - j : j;
            int base = k == 0 ? 0 : k % 2 == 1 ? (k + 1) / 2 : n - k / 2; // 0, 1, n-1, 2, n-2, ...
            order[j] = (base + shift) % n;
        }
        return order;
    }

    /** One thread count: per round and method, every live client one turn, in the round's {@link #turnOrder}. */
    static void measure(Settings s, List<Client> clients, int threads, int warmUps, PrintStream console,
            PrintStream log) throws InterruptedException {
        for (int round = 0; round < warmUps + s.measuredRounds; round++) {
            boolean measured = round >= warmUps;
            long windowMillis = (measured ? s.seconds : s.warmupSeconds) * 1000L;
            for (String method : s.methods) {
                StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "   t=%-3d %s %d/%d %-10s",
                        threads, measured ? "round" : "warm ", measured ? round - warmUps + 1 : round + 1,
                        measured ? s.measuredRounds : warmUps, method));
                int[] order = turnOrder(round, clients.size());
                for (int k = 0; k < clients.size(); k++) {
                    Client c = clients.get(order[k]);
                    if (c.failure != null) {
                        continue;
                    }
                    c.send("run " + method + " " + threads + " " + SETTLE_MILLIS + " " + windowMillis);
                    String a = c.failure == null ? c.await(windowMillis / 1000 + 90) : null;
                    if (a == null) {
                        continue;
                    }
                    String[] w = a.split(" ");
                    if (!w[0].equals("ok")) {
                        // a call failed (e.g. timed out): in a warm-up round that is noted and the target goes on; in
                        // a measured round the row is not reported, and the target's other rows go on
                        String why = a.replaceFirst("^error ", "");
                        line.append("  ").append(c.target.name()).append(" FAILED");
                        say(console, log, "   " + c.target.name() + " t=" + threads + " " + method
                                + (measured ? "" : " (warm-up)") + ": " + why);
                        if (measured) {
                            c.failedRows.putIfAbsent(rowKey(threads, method), why);
                        }
                        continue;
                    }
                    double[] v = new double[6];
                    for (int i = 0; i < 6; i++) {
                        v[i] = Double.parseDouble(w[i + 1]);
                    }
                    double opsPerMs = v[0] / (v[1] / 1e6);
                    if (measured) {
                        c.rounds.computeIfAbsent(threads, t -> new LinkedHashMap<>())
                                .computeIfAbsent(method, m -> new ArrayList<>()).add(v);
                    }
                    line.append(String.format(Locale.ROOT, "  %s %.1f", c.target.name(), opsPerMs));
                }
                say(console, log, line.toString());
            }
        }
    }

    /** One client's measured rounds as JMH JSON, one Throughput entry per thread count and method. */
    static Path write(Path out, Client c, String host, int port, Settings s) throws IOException {
        JSONArray entries = new JSONArray();
        for (Map.Entry<Integer, Map<String, List<double[]>>> load : c.rounds.entrySet()) {
            for (Map.Entry<String, List<double[]>> e : load.getValue().entrySet()) {
                if (c.failedRows.containsKey(rowKey(load.getKey(), e.getKey()))) {
                    continue;
                }
                boolean first = load.getKey().equals(Collections.max(s.threads));
                entries.add(entry(e.getValue(), e.getKey(), load.getKey(), c.target.name(), host, port, s,
                        warmUpRounds(s, first)));
            }
        }
        Path file = Files.createDirectories(out.resolve("runs")).resolve("interleaved-" + c.target.name() + ".json");
        Files.writeString(file, JSON.toJSONString(entries, JSONWriter.Feature.PrettyFormat), StandardCharsets.UTF_8);
        return file;
    }

    private static String rowKey(int threads, String method) {
        return "t=" + threads + " " + method;
    }

    /** The JMH Throughput entry of one method at one thread count. */
    private static JSONObject entry(List<double[]> rounds, String method, int threads, String target, String host,
            int port, Settings s, int warmUps) {
        ListStatistics ops = new ListStatistics();
        JSONArray iterations = new JSONArray();
        double[] bytes = new double[rounds.size()];
        double[][] pcts = new double[3][rounds.size()];
        for (int i = 0; i < rounds.size(); i++) {
            double[] v = rounds.get(i);
            double opsPerMs = v[0] / (v[1] / 1e6);
            ops.addValue(opsPerMs);
            iterations.add(opsPerMs);
            bytes[i] = v[0] == 0 ? Double.NaN : v[2] / v[0];
            for (int p = 0; p < 3; p++) {
                pcts[p][i] = v[3 + p] / 1e6;
            }
        }
        JSONObject primary = new JSONObject();
        primary.put("score", ops.getMean());
        primary.put("scoreError", rounds.size() > 1 ? ops.getMeanErrorAt(0.999) : Double.NaN);
        primary.put("scoreUnit", "ops/ms");
        primary.put("rawData", JSONArray.of(iterations));
        JSONObject secondary = new JSONObject();
        if (s.gc) {
            secondary.put("gc.alloc.rate.norm", scalar(median(bytes), "B/op"));
        }
        secondary.put(CallLatencyProfiler.P50, scalar(median(pcts[0]), "ms"));
        secondary.put(CallLatencyProfiler.P99, scalar(median(pcts[1]), "ms"));
        secondary.put(CallLatencyProfiler.P999, scalar(median(pcts[2]), "ms"));
        JSONObject params = new JSONObject();
        params.put("target", target);
        params.put("host", host);
        params.put("port", String.valueOf(port));
        params.put("timeoutMs", String.valueOf(s.timeoutMillis));
        JSONObject entry = new JSONObject();
        entry.put("benchmark", UserServiceBenchmark.class.getName() + "." + method);
        entry.put("mode", "thrpt");
        entry.put("threads", threads);
        entry.put("forks", 0);
        entry.put("measurementIterations", rounds.size());
        entry.put("measurementTime", s.seconds + " s");
        entry.put("warmupIterations", warmUps);
        entry.put("warmupTime", s.warmupSeconds + " s");
        entry.put("harness", "interleaved");
        entry.put("params", params);
        entry.put("primaryMetric", primary);
        entry.put("secondaryMetrics", secondary);
        return entry;
    }

    private static JSONObject scalar(double score, String unit) {
        JSONObject o = new JSONObject();
        o.put("score", score);
        o.put("scoreUnit", unit);
        return o;
    }

    private static double median(double[] values) {
        return JmhJson.median(java.util.Arrays.stream(values).filter(d -> !Double.isNaN(d)).toArray());
    }

    private static void say(PrintStream console, PrintStream log, String line) {
        console.println(line);
        log.println(line);
    }
}
