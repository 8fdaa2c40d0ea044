package dev.sluice.transport.testing;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs a class's {@code main} in a child JVM whose class path is the calling test's minus every Micrometer jar, for
 * the tests that prove Micrometer is an optional dependency. Runs on the test's thread; blocks until the child exits
 * (at most 60 s, then it is killed).
 */
public final class WithoutMicrometer {

    /** What the child printed (standard output and error) and its exit code. */
    public record Result(int exitCode, String output) {}

    private WithoutMicrometer() {}

    /** For the child's report: {@code "no micrometer"} when no Micrometer class can be loaded, else the opposite. */
    public static String presence() {
        try {
            Class.forName("io.micrometer.core.instrument.MeterRegistry");
            return "micrometer present";
        } catch (ClassNotFoundException expected) {
            return "no micrometer";
        }
    }

    /** Runs {@code mainClass} with PARANOID leak detection and {@code jvmArgs}; fails if no Micrometer jar is there. */
    public static Result run(Class<?> mainClass, String... jvmArgs) throws Exception {
        String cp = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        List<String> kept = new ArrayList<>();
        int dropped = 0;
        for (String entry : cp.split(File.pathSeparator)) {
            if (entry.contains("micrometer")) {
                dropped++;
            } else if (!entry.isEmpty()) {
                kept.add(entry);
            }
        }
        assertTrue(dropped > 0, "the test class path has Micrometer to leave out: " + cp);
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Dio.netty.leakDetection.level=paranoid");
        command.addAll(List.of(jvmArgs));
        command.addAll(List.of("-cp", String.join(File.pathSeparator, kept), mainClass.getName()));
        Process child = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output;
        try (InputStream in = child.getInputStream()) {
            output = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } finally {
            if (!child.waitFor(60, TimeUnit.SECONDS)) {
                child.destroyForcibly();
            }
        }
        return new Result(child.exitValue(), output);
    }
}
