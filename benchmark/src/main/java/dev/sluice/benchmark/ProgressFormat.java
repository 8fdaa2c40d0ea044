package dev.sluice.benchmark;

import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayDeque;
import java.util.Collection;
import java.util.Deque;
import java.util.Locale;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.results.BenchmarkResult;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.IterationType;
import org.openjdk.jmh.runner.format.OutputFormat;
import org.openjdk.jmh.runner.format.OutputFormatFactory;
import org.openjdk.jmh.runner.options.VerboseMode;

/**
 * JMH output: everything JMH says goes to {@code jmh.log}; the console gets one line per benchmark (target, threads,
 * method, mode, each iteration's score, and an estimate of the time left), or JMH's own output with --verbose.
 */
final class ProgressFormat implements OutputFormat {

    private final OutputFormat log;
    private final OutputFormat verboseConsole;
    private final PrintStream console;
    private final Deque<String> recent = new ArrayDeque<>();
    private final StringBuilder partial = new StringBuilder();
    private boolean failureSeen;
    private String lastFailure;

    private final int total;
    private final long secondsPerBenchmark;
    private int done;
    private boolean lineOpen;
    private String target = "?";
    /** How many of the next benchmark starts are a bulk warm-up (JMH's BULK_INDI), measured by none. */
    private int warmUps;

    ProgressFormat(PrintStream logStream, PrintStream console, boolean verbose, int total, long secondsPerBenchmark) {
        this.log = OutputFormatFactory.createFormatInstance(logStream, VerboseMode.NORMAL);
        this.verboseConsole = verbose ? OutputFormatFactory.createFormatInstance(console, VerboseMode.NORMAL) : null;
        this.console = console;
        this.total = total;
        this.secondsPerBenchmark = secondsPerBenchmark;
    }

    /** The next {@code n} benchmarks JMH starts are the bulk warm-up of a client JVM's methods ({@link ClientJvm}). */
    void warmUpsFirst(int n) {
        this.warmUps = n;
    }

    void target(String name) {
        this.target = name;
    }

    /** Counts benchmarks that will not run (a target that failed) so the estimate stays right. */
    void skipped(int benchmarks) {
        done += benchmarks;
    }

    int done() {
        return done;
    }

    /** The exception line of the last {@code <failure>} JMH reported in the current benchmark, or null. */
    String lastFailure() {
        synchronized (recent) {
            return lastFailure;
        }
    }

    void note(String line) {
        closeLine();
        console.println(line);
        console.flush();
        log.println("# [runner] " + line);
    }

    private void closeLine() {
        if (lineOpen) {
            console.println();
            lineOpen = false;
        }
    }

    @Override
    public void startBenchmark(BenchmarkParams params) {
        log.startBenchmark(params);
        if (verboseConsole != null) {
            verboseConsole.startBenchmark(params);
            return;
        }
        closeLine();
        long left = (long) (total - done) * secondsPerBenchmark;
        String method = params.getBenchmark().substring(params.getBenchmark().lastIndexOf('.') + 1);
        String inflight = params.getParam("inflight");
        String load = params.getThreads() + (inflight == null ? "" : "x" + inflight);
        String place;
        if (warmUps > 0) {
            warmUps--;
            place = String.format(Locale.ROOT, "%-20s", "[warm-up]");
        } else {
            place = String.format(Locale.ROOT, "[%2d/%d ~%dm%02ds left]", done + 1, total, left / 60, left % 60);
        }
        console.printf(Locale.ROOT, "%s %-21s t=%-5s %-10s %-6s:", place, target, load, method,
                params.getMode().shortLabel());
        console.flush();
        lineOpen = true;
        synchronized (recent) {
            recent.clear();
            failureSeen = false;
            lastFailure = null;
        }
    }

    @Override
    public void iteration(BenchmarkParams benchParams, IterationParams params, int iteration) {
        log.iteration(benchParams, params, iteration);
        if (verboseConsole != null) {
            verboseConsole.iteration(benchParams, params, iteration);
        }
    }

    @Override
    public void iterationResult(BenchmarkParams benchParams, IterationParams params, int iteration,
            IterationResult data) {
        log.iterationResult(benchParams, params, iteration, data);
        if (verboseConsole != null) {
            verboseConsole.iterationResult(benchParams, params, iteration, data);
            return;
        }
        Result<?> r = data.getPrimaryResult();
        console.printf(Locale.ROOT, " %s%s", params.getType() == IterationType.WARMUP ? "w:" : "",
                number(r.getScore()));
        console.flush();
    }

    @Override
    public void endBenchmark(BenchmarkResult result) {
        log.endBenchmark(result);
        done++;
        if (verboseConsole != null) {
            verboseConsole.endBenchmark(result);
            return;
        }
        if (result == null) {
            closeLine();
            console.println("  FAILED (full output in jmh.log)");
            synchronized (recent) {
                for (String line : recent) {
                    console.println("    | " + line);
                }
            }
        } else {
            Result<?> r = result.getPrimaryResult();
            console.printf(Locale.ROOT, "  => %s ± %s %s%n", number(r.getScore()), number(r.getScoreError()),
                    r.getScoreUnit());
            lineOpen = false;
        }
        console.flush();
    }

    static String number(double v) {
        if (Double.isNaN(v)) {
            return "NaN";
        }
        double a = Math.abs(v);
        if (a >= 100) {
            return String.format(Locale.ROOT, "%.1f", v);
        }
        if (a >= 1) {
            return String.format(Locale.ROOT, "%.2f", v);
        }
        return String.format(Locale.ROOT, "%.3f", v);
    }

    @Override
    public void startRun() {
        log.startRun();
        if (verboseConsole != null) {
            verboseConsole.startRun();
        }
    }

    @Override
    public void endRun(Collection<RunResult> results) {
        log.endRun(results);
        if (verboseConsole != null) {
            verboseConsole.endRun(results);
        }
    }

    private void remember(String text) {
        synchronized (recent) {
            for (String line : text.split("\n", -1)) {
                if (line.contains("<failure>")) {
                    failureSeen = true;
                } else if (failureSeen && lastFailure == null && !line.isBlank()
                        && !Character.isWhitespace(line.charAt(0))) {
                    lastFailure = line.length() > 400 ? line.substring(0, 400) + "..." : line;
                }
                if (!line.isBlank()) {
                    recent.addLast(line);
                    if (recent.size() > 25) {
                        recent.removeFirst();
                    }
                }
            }
        }
    }

    @Override
    public void print(String s) {
        log.print(s);
        if (verboseConsole != null) {
            verboseConsole.print(s);
        }
        remember(s);
    }

    @Override
    public void println(String s) {
        log.println(s);
        if (verboseConsole != null) {
            verboseConsole.println(s);
        }
        remember(s);
    }

    @Override
    public void verbosePrintln(String s) {
        log.verbosePrintln(s);
        if (verboseConsole != null) {
            verboseConsole.verbosePrintln(s);
        }
    }

    @Override
    public void write(int b) {
        log.write(b);
        if (verboseConsole != null) {
            verboseConsole.write(b);
        }
        synchronized (partial) {
            if (b == '\n') {
                remember(partial.toString());
                partial.setLength(0);
            } else {
                partial.append((char) b);
            }
        }
    }

    @Override
    public void write(byte[] b) throws IOException {
        log.write(b);
        if (verboseConsole != null) {
            verboseConsole.write(b);
        }
        remember(new String(b, java.nio.charset.StandardCharsets.UTF_8));
    }

    @Override
    public void flush() {
        log.flush();
        if (verboseConsole != null) {
            verboseConsole.flush();
        }
        console.flush();
    }

    @Override
    public void close() {
        log.flush();
        console.flush();
    }
}
