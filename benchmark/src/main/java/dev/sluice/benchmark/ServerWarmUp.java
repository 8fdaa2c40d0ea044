package dev.sluice.benchmark;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The unmeasured warm-up of a target's fresh server before its first measured asynchronous load, from a client JVM
 * of its own that is then stopped.
 *
 * <p>Why: the asynchronous loads run against a server started for them (the interleaved synchronous part has its
 * own), and each load's client JVM ({@link ClientJvm}) warms only itself: whichever load came first met a cold server
 * as well, and at one thread x 64 calls in flight a cold pair climbs slowly, since few calls go through while
 * little is compiled: on the 2-core VMs, sluice's 1 x 64 existUser still rose through every measured iteration
 * when it came first and was flat when it followed 4 x 64; whichever load came first, 4 x 64 as well, climbed (the
 * figures: docs/performance/journal/2026-11-28-readme-results.md, the async runs). So before the first load a
 * fresh server is called for the first load's own bulk warm-up once more
 * ({@code concurrentWarmupIterations x warmupSeconds} per method), at least {@link #MIN_SECONDS}, at the busiest of
 * the run's asynchronous loads (most calls in flight, then fewest threads),
 * where the most calls go through.
 *
 * <p>Threads: {@link #run} blocks the {@link Runner}'s main thread until the child exits; in the child, {@link #main}
 * times the windows and {@code threads} calling threads ({@code warm-caller-N}) keep their windows of calls full.
 */
final class ServerWarmUp {

    private ServerWarmUp() {}

    /**
     * The load a fresh server of a target with {@code runs} is warmed with, or null: only with a client JVM per run
     * (the short profile's asynchronous loads; {@code --full} warms every forked client JVM for 30 s), only when the
     * runs include an asynchronous load, and not without warm-up iterations (the smoke).
     */
    static Runner.Run loadFor(Settings s, List<Runner.Run> runs) {
        if (!s.clientJvmPerRun || s.concurrentWarmupIterations < 1) {
            return null;
        }
        Runner.Run best = null;
        for (Runner.Run r : runs) {
            if (!r.async()) {
                continue;
            }
            long calls = (long) r.threads() * r.inflight();
            long bestCalls = best == null ? -1 : (long) best.threads() * best.inflight();
            if (calls > bestCalls || (calls == bestCalls && r.threads() < best.threads())) {
                best = r;
            }
        }
        return best;
    }

    /**
     * Fewest seconds of calls a fresh server is warmed for: a cold client and server pair at 4 x 64 reached its plateau
     * after about 20-25 s on the 2-core VM, and 6 s left the next load (1 x 64) climbing through all its iterations.
     */
    static final int MIN_SECONDS = 30;

    /**
     * The warm-up's rounds: in each, every method of {@code load} is called for {@code warmupSeconds}; as many as one
     * bulk warm-up has ({@code concurrentWarmupIterations}), and enough for {@link #MIN_SECONDS}.
     */
    static int rounds(Settings s, Runner.Run load) {
        long perRound = (long) s.warmupSeconds * load.methods().size();
        return (int) Math.max(s.concurrentWarmupIterations, (MIN_SECONDS + perRound - 1) / perRound);
    }

    /** How long the warm-up of {@code load} calls, in seconds. */
    static long callSeconds(Settings s, Runner.Run load) {
        return (long) rounds(s, load) * s.warmupSeconds * load.methods().size();
    }

    /** Its wall time for the estimate (0 without one): the calls, and the client JVM's start, connect and stop. */
    static long seconds(Settings s, List<Runner.Run> runs) {
        Runner.Run load = loadFor(s, runs);
        return load == null ? 0 : callSeconds(s, load) + ClientJvm.JVM_SECONDS + ClientJvm.SETUP_SECONDS;
    }

    /**
     * Warms {@code target}'s server at {@code load} and waits for it; null when it went through, else why not (the
     * measured loads still run: a failure here is reported beside them). {@code current} holds the process while it
     * runs, for the parent's shutdown hook.
     */
    static String run(Settings s, BenchTarget target, Runner.Run load, String host, int port, Path out,
            AtomicReference<Process> current) throws java.io.IOException, InterruptedException {
        long seconds = callSeconds(s, load);
        List<String> cmd = Settings.javaCommand(target.jvmArgs(), ServerWarmUp.class);
        cmd.addAll(List.of(target.name(), String.valueOf(load.threads()), String.valueOf(load.inflight()), host,
                String.valueOf(port), String.valueOf(s.asyncTimeoutMillis), String.valueOf(s.warmupSeconds * 1000L),
                String.valueOf(rounds(s, load)), String.join(",", load.methods())));
        Process p = new ProcessBuilder(cmd)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(out.resolve("client.log").toFile()))
                .redirectError(ProcessBuilder.Redirect.appendTo(out.resolve("client.log").toFile()))
                .start();
        current.set(p);
        long limit = seconds * 2 + 120;
        try {
            if (!p.waitFor(limit, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                p.waitFor(10, TimeUnit.SECONDS);
                return "the warm-up client JVM did not finish within " + limit + " s; killed it";
            }
        } finally {
            current.set(null);
        }
        return p.exitValue() == 0 ? null : "the warm-up client JVM exited with " + p.exitValue() + "; see client.log";
    }

    /**
     * The child: {@code TARGET THREADS INFLIGHT HOST PORT TIMEOUT_MS WINDOW_MS ROUNDS METHODS}. Calls each method in
     * turn for WINDOW_MS, ROUNDS times over, from THREADS threads with INFLIGHT calls in flight each; exits 0 when
     * every call went through, 1 (with the reason on its standard error, which the parent sends to
     * {@code client.log} with the rest of its output) when one failed.
     */
    public static void main(String[] args) throws Exception {
        PrintStream log = System.err;
        AsyncUserServiceBenchmark bench = new AsyncUserServiceBenchmark();
        bench.target = args[0];
        int threads = Integer.parseInt(args[1]);
        bench.inflight = Integer.parseInt(args[2]);
        bench.host = args[3];
        bench.port = Integer.parseInt(args[4]);
        bench.timeoutMs = Integer.parseInt(args[5]);
        long windowNanos = TimeUnit.MILLISECONDS.toNanos(Long.parseLong(args[6]));
        int rounds = Integer.parseInt(args[7]);
        List<String> methods = Arrays.asList(args[8].split(","));
        int status = 0;
        try {
            bench.connect();
            long calls = warm(bench, threads, methods, rounds, windowNanos);
            log.printf(Locale.ROOT, "server warm-up of %s: %d calls at %dx%d (%s)%n", bench.target, calls, threads,
                    bench.inflight, String.join(",", methods));
        } catch (Throwable e) {
            e.printStackTrace(log);
            status = 1;
        } finally {
            try {
                bench.close();
            } catch (Exception e) {
                e.printStackTrace(log);
                status = 1;
            }
            log.flush();
        }
        System.exit(status); // Dubbo leaves non-daemon threads behind
    }

    /**
     * Calls from {@code threads} threads, each method in turn for a window, until {@code rounds} windows of every
     * method have passed; the calls issued after the windows' first fill, or the first failure.
     */
    static long warm(AsyncUserServiceBenchmark bench, int threads, List<String> methods, int rounds, long windowNanos)
            throws Exception {
        AtomicLong calls = new AtomicLong();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        CountDownLatch done = new CountDownLatch(threads);
        long t0 = System.nanoTime();
        int windows = rounds * methods.size();
        for (int i = 0; i < threads; i++) {
            Thread t = new Thread(() -> {
                try {
                    AsyncUserServiceBenchmark.Window w = new AsyncUserServiceBenchmark.Window();
                    w.fill(bench, methods.get(0));
                    long mine = 0;
                    for (int k = 0; k < windows && failure.get() == null; k++) {
                        String method = methods.get(k % methods.size());
                        long end = t0 + (k + 1) * windowNanos;
                        while (System.nanoTime() - end < 0 && failure.get() == null) {
                            call(bench, w, method);
                            mine++;
                        }
                    }
                    calls.addAndGet(mine);
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                } finally {
                    done.countDown();
                }
            }, "warm-caller-" + i);
            t.setDaemon(true);
            t.start();
        }
        long limitNanos = windows * windowNanos + TimeUnit.MILLISECONDS.toNanos(bench.timeoutMs) * 2
                + TimeUnit.SECONDS.toNanos(30);
        if (!done.await(limitNanos, TimeUnit.NANOSECONDS)) {
            throw new IllegalStateException("the warm-up's callers did not finish within "
                    + TimeUnit.NANOSECONDS.toSeconds(limitNanos) + " s");
        }
        Throwable f = failure.get();
        if (f != null) {
            throw new IllegalStateException("a warm-up call failed: " + f, f);
        }
        return calls.get();
    }

    private static void call(AsyncUserServiceBenchmark bench, AsyncUserServiceBenchmark.Window w, String method)
            throws Exception {
        switch (method) {
            case "existUser" -> bench.existUser(w);
            case "createUser" -> bench.createUser(w);
            case "getUser" -> bench.getUser(w);
            case "listUser" -> bench.listUser(w);
            default -> throw new IllegalArgumentException("no async benchmark method " + method);
        }
    }
}
