package dev.sluice.benchmark;

import dev.sluice.benchmark.report.Row;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/** Command-line settings of {@link Runner}. */
final class Settings {

    static final List<String> METHODS = List.of("createUser", "existUser", "getUser", "listUser");
    static final List<String> MODES = List.of("thrpt", "sample");
    static final List<String> CLIENT_JVMS = List.of("interleaved", "per-run", "per-method");
    /** What {@code --async} without a list runs: threads x calls in flight per thread. */
    static final String DEFAULT_ASYNC = "1x64,4x64,32x8";
    /** The methods {@code --smoke} runs for the hessian2 targets, the levers and the peers: a POJO each way. */
    static final List<String> SMOKE_SUBSET = List.of("createUser", "listUser");
    /**
     * The methods of the default profile without --benchmarks: the two ends of the workload, the smallest call
     * (transport-bound) and the largest answer (serialization-bound); createUser and getUser lie between them. Two
     * methods instead of four give each row 14 measured rounds (and a longer warm-up) in the same 15 minutes, which
     * is what makes two default runs agree: every turn on a 2-core VM varies by about 10 % (so does a bare loopback
     * ping-pong), and the ratios of two 7-round runs differed by over 10 % on a quarter of the rows.
     */
    static final List<String> SHORT_METHODS = List.of("existUser", "listUser");
    /** The async loads' call timeout unless --timeout is given (see {@link #asyncTimeoutMillis}). */
    static final int ASYNC_TIMEOUT_MILLIS = 5000;
    /** The method {@code --smoke} runs in the async workload: the largest result. */
    static final List<String> SMOKE_ASYNC = List.of("listUser");

    /** The same flags for every server and client JVM, as dubbo-benchmark's benchmark.sh. */
    static final List<String> JVM_FLAGS =
            List.of("-Xmx1g", "-Xms1g", "-XX:MaxDirectMemorySize=1g", "-XX:+UseG1GC");

    /**
     * The command that starts {@code main} of this class path in a JVM of this Java with {@link #JVM_FLAGS}, then
     * {@code flags}; a list the caller adds the program's arguments to.
     */
    static List<String> javaCommand(List<String> flags, Class<?> main) {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(JVM_FLAGS);
        cmd.addAll(flags);
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), main.getName()));
        return cmd;
    }

    String profile = "short";
    /** Warm-up iterations of a run with one call in flight (the synchronous workload at one thread). */
    int warmupIterations;
    /**
     * Warm-up iterations of a run with more calls in flight (synchronous at several threads, every asynchronous
     * load). Such a run keeps both cores of a small machine busy with calls, so a cold client JVM's JIT compilers get
     * little CPU: on the 2-core VMs the default profile was tuned on, a client needed 25-30 s at 32 threads to reach
     * its plateau (listUser), against under 10 s at one thread.
     */
    int concurrentWarmupIterations;
    int warmupSeconds;
    int iterations;
    int seconds;
    /** Client JVMs per benchmark; their iterations are pooled for the median and JMH's error. */
    int forks = 1;
    /**
     * One client JVM per run (target and load) that warms up on all of the run's methods, then measures each in turn
     * ({@link ClientJvm}); false: JMH forks a fresh client JVM per method, as dubbo-benchmark does ({@code --full},
     * {@code --forks} above 1). A cold client JVM on a 2-core machine needs 25-30 s before its figures settle: paying
     * that once per run instead of once per method is what lets the default run warm up enough in 15 minutes.
     */
    boolean clientJvmPerRun;
    /**
     * The synchronous workload measured by {@link Interleaved}: every target's server and one client JVM per target
     * up at once, the targets taking turns a few seconds each (the default profile's way); the asynchronous loads
     * still run one client JVM per run.
     */
    boolean interleaved;
    /**
     * Interleaved: warm-up rounds before the first thread count's measured rounds. The client JVMs start cold
     * together and share the CPU with each other's JIT compilers: with four methods, 6 rounds (55 s of calls per
     * client) reached the plateau in round 5 on these VMs, and with 3 sluice's createUser was still climbing 30 -> 50
     * ops/ms through the measured rounds. With the default's two methods, 10 rounds (46 s of calls) left the Dubbo
     * clients of one run climbing through their first five measured rounds (existUser 18 -> 25 ops/ms) while another
     * run's had settled: 14 rounds, 64 s of calls per client.
     */
    int firstWarmupRounds = 14;
    /** Interleaved: warm-up rounds before a later thread count, in the same client JVMs, warm by then. */
    int laterWarmupRounds = 1;
    /**
     * Interleaved: measured rounds per thread count. The per-round ratio of two targets varies by about 14 % (standard
     * deviation of its logarithm, four default runs on the 2-core VMs); with 7 rounds two runs' ratios differed by over
     * 10 % on 22-25 of 32; resampling those rounds, 14 rounds put a ratio's Hodges-Lehmann estimates of two runs within
     * 10 % of each other 95 % of the time (the median of the per-round ratios: 91 %). 14 is what the 15 minutes hold
     * after the warm-up.
     */
    int measuredRounds = 14;
    /** The arguments this was parsed from: a {@link ClientJvm} parses the same. */
    List<String> args = List.of();
    List<Integer> threads;
    boolean sync = true;
    List<Row.Load> asyncLoads = List.of();
    List<String> targets; // null = the profile's targets (every available one of the fastjson2 group; smoke: all)
    List<String> methods = METHODS;
    List<String> modes = MODES;
    String host;
    int port = 20880;
    int timeoutMillis;
    /**
     * The per-call timeout of the async loads: {@code --timeout} when given, else at least
     * {@link #ASYNC_TIMEOUT_MILLIS}. A cold client JVM with 64 calls in flight stalls for over a second in its first
     * warm-up iteration (Dubbo's listUser at 1 x 64 on the 2-core VMs), and JMH aborts a benchmark on the first failed
     * call.
     */
    int asyncTimeoutMillis;
    Path out;
    boolean gc = true;
    boolean verbose;
    boolean list;
    Path report;
    int lockWaitMinutes = 30;
    /** --observe: record every JVM with sluice.jfc and chart the write batches (see {@link Observe}). */
    boolean observe;
    /** --smoke without --benchmarks: hessian2, levers, peers run {@link #SMOKE_SUBSET}, async {@link #SMOKE_ASYNC}. */
    boolean smokeSubset;
    /** --jfr: JFR options (besides the file name) for every server and client JVM, or null for no recording. */
    String jfr;

    static final String USAGE = String.join("\n",
            "usage: Runner [--smoke | --short | --full] [options]",
            "",
            "profiles (default --short):",
            "  --short            interleaved: every server and one client JVM per target up at once, the targets",
            "                     taking turns per method (0.3 s settle + 2 s): 14 warm-up rounds, then 14 measured",
            "                     at 32 threads, then 1 + 14 at 1 thread; existUser and listUser unless --benchmarks;",
            "                     throughput with per-call percentiles; the fastjson2 targets (about 14 minutes)",
            "  --full             dubbo-benchmark: 3 warm-up x 10 s + 3 x 10 s, threads 32, thrpt and sample",
            "  --smoke            CI check: every target, no warm-up, 1 x 1 s, threads 32, throughput only;",
            "                     hessian2 targets run createUser and listUser, async (2x8) listUser only, not for",
            "                     the hessian2 targets",
            "options:",
            "  --targets a,b      targets or groups to run: fastjson2 (the default), levers, peers (dubbo-triple and",
            "                     grpc-java with dubbo-netty4 and sluice), hessian2, overhead, all; see --list",
            "  --threads 1,8,32   client thread counts of the synchronous workload (one JMH run per target and count)",
            "  --async [1x64,4x64,32x8]  also run the async workload: threads x calls in flight per thread",
            "  --no-sync          skip the synchronous workload (with --async)",
            "  --benchmarks a,b   subset of " + String.join(",", METHODS),
            "  --modes thrpt,sample  JMH modes (throughput ops/ms, sample time p50/p99/p99.9)",
            "  --warmup-iterations N  --warmup-time SECONDS  --iterations N  --time SECONDS",
            "  --forks N          client JVMs per benchmark (default 1; the run takes N times as long); implies",
            "                     --client-jvm per-method",
            "  --client-jvm interleaved|per-run|per-method  the targets taking turns in rounds (--short; synchronous",
            "                     workload only), one client JVM for all methods of a target and load, warmed up",
            "                     first (--smoke, and async loads), or one per method as dubbo-benchmark (--full)",
            "  --host ADDR        server address (default: the first non-loopback IPv4 of this machine)",
            "  --port N           first server port (default 20880; target i uses port + i)",
            "  --timeout MS       per-call timeout of every client (default 1000 as Dubbo, async loads 5000: a cold",
            "                     client with 64 calls in flight stalls past 1 s; 10000 with --smoke)",
            "  --out DIR          results directory (default results/<timestamp>)",
            "  --no-gc            skip the gc profiler (bytes/op)",
            "  --verbose          show JMH's own output instead of one line per benchmark",
            "  --lock-wait MIN    wait at most MIN minutes for another JMH run to finish (default 30)",
            "  --observe          record each server and client JVM with sluice.jfc (JFR) into DIR/jfr and add the"
                    + " write-batch",
            "                     chart (frames per write, queue wait) and table to the report",
            "  --jfr OPTIONS      record JFR in every server and client JVM, e.g. 'settings=benchmark/layers.jfc,"
                    + "delay=20s,duration=20s';",
            "                     files go to OUT/jfr/server-TARGET.jfr and OUT/jfr/client-TARGET-THREADSt-METHOD.jfr"
                    + " (read them with",
            "                     JfrLayers); one client JVM runs all methods of a load by default, so profile one",
            "                     method per run",
            "  --list             list the targets and whether they can run here",
            "  --report DIR       only render DIR/summary.md, summary.json and chart.svg again from"
                    + " DIR/jmh-result.json");

    static Settings parse(String[] args) {
        Settings s = new Settings();
        String warmupIterations = null;
        String warmupTime = null;
        String iterations = null;
        String time = null;
        String threads = null;
        String modes = null;
        String timeout = null;
        String clientJvm = null;
        boolean benchmarksGiven = false;
        s.args = List.of(args);
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "--smoke", "--short", "--full" -> s.profile = a.substring(2);
                case "--targets" -> s.targets = split(value(args, ++i, a));
                case "--threads" -> threads = value(args, ++i, a);
                case "--async" -> {
                    boolean hasList = i + 1 < args.length && !args[i + 1].startsWith("--");
                    s.asyncLoads = parseLoads(hasList ? args[++i] : DEFAULT_ASYNC);
                }
                case "--no-sync" -> s.sync = false;
                case "--benchmarks" -> {
                    s.methods = checked(split(value(args, ++i, a)), METHODS, a);
                    benchmarksGiven = true;
                }
                case "--modes" -> modes = value(args, ++i, a);
                case "--warmup-iterations" -> warmupIterations = value(args, ++i, a);
                case "--warmup-time" -> warmupTime = value(args, ++i, a);
                case "--iterations" -> iterations = value(args, ++i, a);
                case "--time" -> time = value(args, ++i, a);
                case "--forks" -> s.forks = Integer.parseInt(value(args, ++i, a));
                case "--client-jvm" -> clientJvm = checked(List.of(value(args, ++i, a)), CLIENT_JVMS, a).get(0);
                case "--host" -> s.host = value(args, ++i, a);
                case "--port" -> s.port = Integer.parseInt(value(args, ++i, a));
                case "--timeout" -> timeout = value(args, ++i, a);
                case "--out" -> s.out = Path.of(value(args, ++i, a));
                case "--no-gc" -> s.gc = false;
                case "--verbose" -> s.verbose = true;
                case "--list" -> s.list = true;
                case "--report" -> s.report = Path.of(value(args, ++i, a));
                case "--lock-wait" -> s.lockWaitMinutes = Integer.parseInt(value(args, ++i, a));
                case "--observe" -> s.observe = true;
                case "--jfr" -> s.jfr = value(args, ++i, a);
                case "-h", "--help" -> throw new UsageException(null);
                default -> throw new UsageException("unknown argument: " + a);
            }
        }
        boolean asyncGiven = !s.asyncLoads.isEmpty();
        switch (s.profile) {
            case "smoke" -> {
                s.defaults(0, 0, 1, 1, 1, "32", "thrpt");
                if (!asyncGiven) {
                    s.asyncLoads = parseLoads("2x8");
                }
                s.smokeSubset = !benchmarksGiven;
            }
            case "full" -> s.defaults(3, 3, 10, 3, 10, "32", "thrpt,sample");
            // Throughput only, with per-call percentiles: one client JVM per target and thread count, whose every
            // method runs 3 x 2 s before any is measured and 3 x 2 s again right before its own measurement, so the
            // first method measured has 30 s of warm-up behind it (what a cold client needed on the 2-core VMs this
            // was tuned on) and the later ones more; five iterations of 2 s whose median is reported, so one slow
            // iteration does not move the figure.
            default -> {
                s.defaults(3, 3, 2, 5, 2, "32,1", "thrpt");
                if (!benchmarksGiven) {
                    s.methods = SHORT_METHODS;
                    // a client JVM per run (async loads, --client-jvm per-run) warms every method, then each method
                    // again before it is measured: with two methods 5 iterations keep the first one's 30 s
                    s.concurrentWarmupIterations = 5;
                }
            }
        }
        s.clientJvmPerRun = clientJvm != null ? !clientJvm.equals("per-method") : !"full".equals(s.profile);
        s.interleaved = clientJvm != null ? clientJvm.equals("interleaved") : "short".equals(s.profile);
        if (s.forks > 1) {
            if (clientJvm != null && !clientJvm.equals("per-method")) {
                throw new UsageException("--forks " + s.forks + " forks a client JVM per method: it cannot go with"
                        + " --client-jvm " + clientJvm);
            }
            s.clientJvmPerRun = false;
            s.interleaved = false;
        }
        if (warmupIterations != null) {
            s.warmupIterations = Integer.parseInt(warmupIterations);
            s.concurrentWarmupIterations = s.warmupIterations;
            s.firstWarmupRounds = s.warmupIterations;
            s.laterWarmupRounds = s.warmupIterations;
        }
        if (warmupTime != null) s.warmupSeconds = Integer.parseInt(warmupTime);
        if (iterations != null) {
            s.iterations = Integer.parseInt(iterations);
            s.measuredRounds = s.iterations;
        }
        if (time != null) s.seconds = Integer.parseInt(time);
        if (threads != null) s.threads = parseThreads(threads);
        if (modes != null) s.modes = checked(split(modes), MODES, "--modes");
        if (s.interleaved && !s.modes.equals(List.of("thrpt"))) {
            if ("interleaved".equals(clientJvm)) {
                throw new UsageException("--client-jvm interleaved measures throughput with per-call percentiles;"
                        + " JMH's sample mode needs --client-jvm per-run or per-method");
            }
            s.interleaved = false;
        }
        // smoke runs cold JVMs with no warm-up, often on a busy CI machine: a generous timeout keeps a slow first
        // call from failing the check; measured profiles keep Dubbo's default like dubbo-benchmark
        s.timeoutMillis = timeout != null ? Integer.parseInt(timeout) : "smoke".equals(s.profile) ? 10_000 : 1000;
        s.asyncTimeoutMillis = timeout != null ? s.timeoutMillis : Math.max(s.timeoutMillis, ASYNC_TIMEOUT_MILLIS);
        if (s.iterations < 1 || s.seconds < 1 || s.warmupIterations < 0 || s.warmupSeconds < 1 || s.forks < 1) {
            throw new UsageException("iterations and times must be positive");
        }
        if (!s.sync && s.asyncLoads.isEmpty()) {
            throw new UsageException("--no-sync leaves nothing to run; add --async");
        }
        if (s.observe && s.jfr != null) {
            throw new UsageException("--observe and --jfr each start a flight recording in every JVM; choose one"
                    + " (--observe records sluice.jfc, --jfr the settings you give)");
        }
        return s;
    }

    /** With --jfr, the flag that records into {@code file}; else none. */
    List<String> jfrFlags(Path file) {
        if (jfr == null) {
            return List.of();
        }
        return List.of("-XX:StartFlightRecording=filename=" + file.toAbsolutePath() + (jfr.isBlank() ? "" : "," + jfr));
    }

    private void defaults(int wi, int cwi, int wt, int mi, int mt, String threadList, String modeList) {
        warmupIterations = wi;
        concurrentWarmupIterations = cwi;
        warmupSeconds = wt;
        iterations = mi;
        seconds = mt;
        threads = parseThreads(threadList);
        modes = split(modeList);
    }

    /**
     * The methods of one JMH run: every one of {@link #methods}, except in the smoke (without --benchmarks), where
     * the targets outside the fastjson2 group (hessian2, levers, peers; {@code subset}) run
     * {@link #SMOKE_SUBSET} and the async workload {@link #SMOKE_ASYNC}, to keep it short.
     */
    List<String> methodsFor(boolean subset, boolean async) {
        if (smokeSubset && (subset || async)) {
            return async ? SMOKE_ASYNC : SMOKE_SUBSET;
        }
        return methods;
    }

    /** "1x64,4x64" into loads; each is threads x calls in flight per thread, both at least 1. */
    static List<Row.Load> parseLoads(String list) {
        List<Row.Load> out = new ArrayList<>();
        for (String p : split(list)) {
            String[] tn = p.toLowerCase(Locale.ROOT).split("x");
            try {
                if (tn.length != 2) {
                    throw new NumberFormatException(p);
                }
                int threads = Integer.parseInt(tn[0].trim());
                int inflight = Integer.parseInt(tn[1].trim());
                if (threads < 1 || inflight < 1) {
                    throw new NumberFormatException(p);
                }
                out.add(new Row.Load(threads, inflight));
            } catch (NumberFormatException e) {
                throw new UsageException("--async: '" + p + "' is not THREADSxINFLIGHT with both >= 1, e.g. 4x64");
            }
        }
        return out;
    }

    private static List<Integer> parseThreads(String list) {
        List<Integer> out = new ArrayList<>();
        for (String t : split(list)) {
            int n = Integer.parseInt(t);
            if (n < 1) {
                throw new UsageException("thread counts must be >= 1: " + list);
            }
            out.add(n);
        }
        return out;
    }

    private static String value(String[] args, int i, String flag) {
        if (i >= args.length) {
            throw new UsageException(flag + " needs a value");
        }
        return args[i];
    }

    static List<String> split(String list) {
        List<String> out = new ArrayList<>();
        for (String p : list.split(",")) {
            if (!p.isBlank()) {
                out.add(p.trim());
            }
        }
        if (out.isEmpty()) {
            throw new UsageException("empty list: '" + list + "'");
        }
        return out;
    }

    private static List<String> checked(List<String> values, List<String> allowed, String flag) {
        for (String v : values) {
            if (!allowed.contains(v)) {
                throw new UsageException(flag + ": unknown '" + v + "', expected one of " + allowed);
            }
        }
        // canonical order
        List<String> out = new ArrayList<>(allowed);
        out.retainAll(values);
        return out;
    }

    String describe() {
        StringBuilder async = new StringBuilder();
        for (Row.Load l : asyncLoads) {
            async.append(async.length() == 0 ? "" : ",").append(l.threads()).append('x').append(l.inflight());
        }
        String how = interleaved
                ? String.format(Locale.ROOT, "interleaved: targets take turns per method and round (%d ms settle per"
                        + " turn), %d warm-up rounds x %d s (%d after the first thread count) + %d x %d s",
                        Interleaved.SETTLE_MILLIS, firstWarmupRounds, warmupSeconds, laterWarmupRounds, measuredRounds,
                        seconds)
                : String.format(Locale.ROOT, "%d warm-up x %d s (%d with more than one call in flight) + %d x %d s, %s",
                        warmupIterations, warmupSeconds, concurrentWarmupIterations, iterations, seconds,
                        clientJvmPerRun ? "one client JVM per run, every method warmed up first"
                                : forks + " client JVM(s) per method");
        return String.format(Locale.ROOT,
                "profile %s: %s, threads %s, async %s, modes %s, benchmarks %s%s, gc %s, call timeout %d ms%s",
                profile, how, sync ? threads : "none",
                async.length() == 0 ? "none" : async, modes, methods,
                smokeSubset ? " (hessian2: " + SMOKE_SUBSET + ", async: " + SMOKE_ASYNC + ")" : "", gc ? "on" : "off",
                timeoutMillis, (async.length() == 0 || asyncTimeoutMillis == timeoutMillis ? ""
                        : " (async " + asyncTimeoutMillis + " ms)") + (observe ? ", observe (JFR, sluice.jfc)" : ""));
    }

    static final class UsageException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        UsageException(String message) {
            super(message);
        }
    }

    @Override
    public String toString() {
        return describe() + " " + Arrays.asList(host, port, out);
    }
}
