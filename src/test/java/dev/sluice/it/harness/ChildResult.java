package dev.sluice.it.harness;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * What a child JVM started by {@link IsolatedJvm} did: exit code, timeout, output, and the scenario results it
 * printed. Result lines are written by {@link Scenario} on stdout:
 *
 * <pre>
 * RESULT name=calls ok count=400 p50us=812
 * RESULT name=dubbo-start FAIL java.lang.IllegalStateException: port in use
 * </pre>
 *
 * <p>An {@code ok} line carries {@code key=value} metrics; a {@code FAIL} line carries a one-line message. Lines
 * containing Netty's {@code LEAK:} marker, in stdout or stderr, are leak reports.
 *
 * <p>Immutable; used on the test thread.
 */
public final class ChildResult {
    private static final Pattern RESULT = Pattern.compile("^RESULT name=(\\S+) (ok|FAIL)(?: (.*))?$");
    private static final int TAIL_LINES = 80;

    /** One {@code RESULT} line. */
    public static final class Line {
        private final String name;
        private final boolean ok;
        private final String detail;
        private final Map<String, String> metrics;

        Line(String name, boolean ok, String detail) {
            this.name = name;
            this.ok = ok;
            this.detail = detail;
            Map<String, String> m = new LinkedHashMap<>();
            if (ok && !detail.isEmpty()) {
                for (String token : detail.split(" ")) {
                    int eq = token.indexOf('=');
                    if (eq > 0) {
                        m.put(token.substring(0, eq), token.substring(eq + 1));
                    }
                }
            }
            this.metrics = Collections.unmodifiableMap(m);
        }

        public String name() {
            return name;
        }

        public boolean ok() {
            return ok;
        }

        /** The metrics of an ok line, or the message of a FAIL line. */
        public String detail() {
            return detail;
        }

        public Map<String, String> metrics() {
            return metrics;
        }

        @Override
        public String toString() {
            return "RESULT name=" + name + (ok ? " ok" : " FAIL") + (detail.isEmpty() ? "" : " " + detail);
        }
    }

    private final String name;
    private final IsolatedJvm.Network network;
    private final String testAddress;
    private final List<String> command;
    private final long pid;
    private final int exitCode;
    private final boolean timedOut;
    private final Duration elapsed;
    private final Duration timeout;
    private final String stdout;
    private final String stderr;
    private final Path logDirectory;
    private final List<Line> results;
    private final List<String> leakReports;

    ChildResult(String name, IsolatedJvm.Network network, String testAddress, List<String> command, long pid,
            int exitCode, boolean timedOut, Duration elapsed, Duration timeout, String stdout, String stderr,
            Path logDirectory) {
        this.name = name;
        this.network = network;
        this.testAddress = testAddress;
        this.command = List.copyOf(command);
        this.pid = pid;
        this.exitCode = exitCode;
        this.timedOut = timedOut;
        this.elapsed = elapsed;
        this.timeout = timeout;
        this.stdout = stdout;
        this.stderr = stderr;
        this.logDirectory = logDirectory;
        List<Line> parsed = new ArrayList<>();
        for (String line : stdout.split("\n")) {
            Matcher m = RESULT.matcher(line.stripTrailing());
            if (m.matches()) {
                parsed.add(new Line(m.group(1), m.group(2).equals("ok"), m.group(3) == null ? "" : m.group(3)));
            }
        }
        this.results = List.copyOf(parsed);
        List<String> leaks = new ArrayList<>();
        for (String text : new String[] {stdout, stderr}) {
            Arrays.stream(text.split("\n")).filter(l -> l.contains("LEAK:")).forEach(leaks::add);
        }
        this.leakReports = List.copyOf(leaks);
    }

    public String name() {
        return name;
    }

    /** {@link IsolatedJvm.Network#NAMESPACE} or {@link IsolatedJvm.Network#HOST}: where the child actually ran. */
    public IsolatedJvm.Network network() {
        return network;
    }

    /** The address the child was given in {@value IsolatedJvm#ADDRESS_PROPERTY}. */
    public String testAddress() {
        return testAddress;
    }

    public List<String> command() {
        return command;
    }

    public long pid() {
        return pid;
    }

    /** The child's exit status; -1 if it could not be reaped after being killed. */
    public int exitCode() {
        return exitCode;
    }

    public boolean timedOut() {
        return timedOut;
    }

    /** Wall-clock time from process start to exit (JVM start included). */
    public Duration elapsed() {
        return elapsed;
    }

    public String stdout() {
        return stdout;
    }

    public String stderr() {
        return stderr;
    }

    /** Holds {@code command.txt}, {@code stdout.log}, {@code stderr.log} and whatever the scenario wrote. */
    public Path logDirectory() {
        return logDirectory;
    }

    public List<Line> results() {
        return results;
    }

    /** The last result line with this name. */
    public Optional<Line> result(String resultName) {
        Line found = null;
        for (Line line : results) {
            if (line.name().equals(resultName)) {
                found = line;
            }
        }
        return Optional.ofNullable(found);
    }

    public List<Line> failures() {
        return results.stream().filter(l -> !l.ok()).collect(Collectors.toList());
    }

    /** Lines of stdout/stderr containing Netty's {@code LEAK:} marker. */
    public List<String> leakReports() {
        return leakReports;
    }

    /** A metric of an ok result line; fails (with the diagnostics) when the result or key is missing. */
    public String metric(String resultName, String key) {
        Line line = result(resultName).orElseThrow(() -> failure("no RESULT line named '" + resultName + "'"));
        String value = line.metrics().get(key);
        if (value == null) {
            throw failure("RESULT '" + resultName + "' has no metric '" + key + "': " + line);
        }
        return value;
    }

    public long longMetric(String resultName, String key) {
        String value = metric(resultName, key);
        try {
            return Long.parseLong(value);
        } catch (NumberFormatException e) {
            throw failure("RESULT '" + resultName + "' metric '" + key + "' is not a number: " + value);
        }
    }

    /** Fails when the child's output contains a Netty leak report. */
    public ChildResult assertNoLeaks() {
        if (!leakReports.isEmpty()) {
            throw failure(leakReports.size() + " Netty LEAK report line(s) in the child's output:\n  "
                    + String.join("\n  ", leakReports));
        }
        return this;
    }

    /**
     * Fails unless the child finished in time with exit code 0, printed no {@code FAIL} line and no leak report,
     * and printed an {@code ok} line for each of {@code requiredResults}. The message carries the FAIL lines, the
     * tail of both output streams and the log directory.
     */
    public ChildResult assertPassed(String... requiredResults) {
        List<String> problems = new ArrayList<>();
        if (timedOut) {
            problems.add("timed out after " + timeout.toSeconds() + " s and was killed (thread dump in stdout.log)");
        } else if (exitCode != 0) {
            problems.add("exit code " + exitCode);
        }
        for (Line line : failures()) {
            problems.add(line.toString());
        }
        for (String required : requiredResults) {
            Optional<Line> line = result(required);
            if (line.isEmpty()) {
                problems.add("no RESULT line named '" + required + "'");
            } else if (!line.get().ok()) {
                problems.add("'" + required + "' did not pass");
            }
        }
        if (!leakReports.isEmpty()) {
            problems.add(leakReports.size() + " Netty LEAK report line(s)");
        }
        if (!problems.isEmpty()) {
            throw failure(String.join("\n  ", problems));
        }
        return this;
    }

    private AssertionError failure(String what) {
        return new AssertionError("child JVM '" + name + "' (" + network + ", address " + testAddress + ", "
                + elapsed.toMillis() + " ms): " + what + "\nlogs: " + logDirectory
                + "\n--- stdout (tail) ---\n" + tail(stdout) + "\n--- stderr (tail) ---\n" + tail(stderr));
    }

    private static String tail(String text) {
        String[] lines = text.split("\n");
        int from = Math.max(0, lines.length - TAIL_LINES);
        return (from > 0 ? "[" + from + " lines omitted]\n" : "")
                + String.join("\n", Arrays.asList(lines).subList(from, lines.length));
    }

    @Override
    public String toString() {
        return "ChildResult[" + name + ", " + network + ", exit=" + exitCode + (timedOut ? ", timed out" : "")
                + ", " + elapsed.toMillis() + " ms, results=" + results + "]";
    }
}
