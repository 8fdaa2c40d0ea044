package dev.sluice.benchmark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.benchmark.report.JmhJson;
import dev.sluice.benchmark.report.Row;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The whole Runner against a real server JVM (the {@code raw} target on loopback), with one client JVM per run and
 * with JMH's fork per method: which benchmarks ran in which JVM is read from JMH's own log.
 */
@Timeout(180)
class ClientJvmTest {

    private static final Pattern BENCHMARK = Pattern.compile("^# Benchmark: \\S+\\.(\\w+)$", Pattern.MULTILINE);

    @TempDir
    Path dir;

    /** Runs the Runner, checks it measured both methods, and returns what it printed. */
    private String runMeasuringBoth(String clientJvm) throws Exception {
        ByteArrayOutputStream console = new ByteArrayOutputStream();
        assertEquals(0, run(clientJvm, console), console.toString(StandardCharsets.UTF_8));
        assertBothMeasured();
        return console.toString(StandardCharsets.UTF_8);
    }

    private int run(String clientJvm, ByteArrayOutputStream console) throws Exception {
        int port;
        try (ServerSocket free = new ServerSocket(0)) {
            port = free.getLocalPort();
        }
        Settings s = Settings.parse(new String[] {"--targets", "raw", "--benchmarks", "existUser,getUser",
            "--threads", "2", "--warmup-iterations", "1", "--warmup-time", "1", "--iterations", "2", "--time", "1",
            "--host", "127.0.0.1", "--port", String.valueOf(port), "--out", dir.toString(), "--lock-wait", "2",
            "--client-jvm", clientJvm});
        return Runner.run(s, new PrintStream(console, true, StandardCharsets.UTF_8));
    }

    private List<String> benchmarksInJmhLog() throws IOException {
        Matcher m = BENCHMARK.matcher(Files.readString(dir.resolve("jmh.log")));
        List<String> out = new ArrayList<>();
        while (m.find()) {
            out.add(m.group(1));
        }
        return out;
    }

    private void assertBothMeasured() throws IOException {
        List<Row> rows = JmhJson.read(dir.resolve("jmh-result.json"));
        assertEquals(List.of("existUser", "getUser"), rows.stream().map(r -> r.method).sorted().toList());
        for (Row r : rows) {
            assertEquals("raw", r.target);
            assertEquals(2, r.threads);
            assertEquals(2, r.iterations, r.method);
            assertTrue(r.opsPerMs > 0, r.method + " " + r.opsPerMs);
        }
    }

    @Test
    void oneClientJvmWarmsEveryMethodOfARunBeforeMeasuringAny() throws Exception {
        String out = runMeasuringBoth("per-run");
        String log = Files.readString(dir.resolve("jmh.log"));
        // JMH ran in the client JVM the Runner started (no fork of its own): both methods' warm-ups, then each
        // method's own warm-up and measurement
        assertEquals(List.of("existUser", "getUser", "existUser", "getUser"), benchmarksInJmhLog(), log);
        assertEquals(4, count(log, "# Fork: N/A, test runs in the host VM"), log);
        assertEquals(0, count(log, "# Fork: 1 of 1"), log);
        assertTrue(Files.exists(dir.resolve("runs").resolve("raw-t2.json")));
        assertEquals(2, count(out, "[warm-up]"), out);
        assertTrue(out.contains("[ 2/2 "), out);
    }

    @Test
    void aFullStyleRunForksAClientJvmPerMethod() throws Exception {
        runMeasuringBoth("per-method");
        String log = Files.readString(dir.resolve("jmh.log"));
        assertEquals(List.of("existUser", "getUser"), benchmarksInJmhLog(), log);
        assertEquals(2, count(log, "# Fork: 1 of 1"), log);
    }

    private static int count(String text, String part) {
        int n = 0;
        for (int i = text.indexOf(part); i >= 0; i = text.indexOf(part, i + part.length())) {
            n++;
        }
        return n;
    }
}
