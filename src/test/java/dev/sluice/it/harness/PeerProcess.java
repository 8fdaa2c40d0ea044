package dev.sluice.it.harness;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A peer JVM started from inside a scenario's child JVM (so it shares that JVM's network namespace) on a class path
 * of its own, e.g. another Dubbo version's jars ({@link PeerClasspath}): the way one scenario runs peers whose
 * libraries cannot share a class path. The peer reports with {@link Scenario}'s {@code RESULT} lines on its stdout,
 * which the scenario reads and passes on with {@link #relay}; its stderr goes to {@code <name>-stderr.log} in the
 * scenario's work directory.
 *
 * <p>Used on the scenario's thread that starts the peer; {@link #relay} may be called from any thread.
 */
public final class PeerProcess {
    private static final Pattern RESULT = Pattern.compile("^RESULT name=(\\S+) (ok|FAIL)(?: (.*))?$");

    private PeerProcess() {
    }

    /**
     * Starts {@code mainClass} on {@code classpath}: this JVM's java, its Netty leak-detection settings and the
     * harness properties (test address, network, a work directory of the peer's own), then {@code jvmFlags}.
     */
    public static Process start(String name, String classpath, List<String> jvmFlags, String mainClass,
            String... args) throws IOException {
        Path dir = Scenario.workDirectory().resolve(name);
        Files.createDirectories(dir);
        List<String> cmd = new ArrayList<>();
        cmd.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
        System.getProperties().stringPropertyNames().stream()
                .filter(k -> k.startsWith("io.netty.leakDetection.") || k.equals("io.netty.customResourceLeakDetector"))
                .sorted()
                .forEach(k -> cmd.add("-D" + k + "=" + System.getProperty(k)));
        cmd.add("-XX:-UsePerfData");
        cmd.add("-Xmx384m");
        cmd.add("-XX:+ExitOnOutOfMemoryError");
        cmd.add("-D" + IsolatedJvm.ADDRESS_PROPERTY + "=" + Scenario.testAddress());
        cmd.add("-D" + IsolatedJvm.NETWORK_PROPERTY + "=" + Scenario.network());
        cmd.add("-D" + IsolatedJvm.WORKDIR_PROPERTY + "=" + dir);
        cmd.addAll(jvmFlags);
        cmd.add("-cp");
        cmd.add(classpath);
        cmd.add(mainClass);
        cmd.addAll(List.of(args));
        Files.write(dir.resolve("command.txt"), cmd, StandardCharsets.UTF_8);
        return new ProcessBuilder(cmd)
                .directory(dir.toFile())
                .redirectError(stderrLog(name).toFile())
                .start();
    }

    /** Where {@link #start} sends the peer's stderr. */
    public static Path stderrLog(String name) {
        return Scenario.workDirectory().resolve(name + "-stderr.log");
    }

    /**
     * One line of a peer's stdout, re-printed here: {@code RESULT} lines as results of this scenario named
     * {@code prefix + name}, {@code LEAK:} lines as they are, everything else with {@code [tag] } before it.
     */
    public static void relay(String prefix, String tag, String line) {
        Matcher m = RESULT.matcher(line.stripTrailing());
        if (!m.matches()) {
            synchronized (System.out) {
                System.out.println(line.contains("LEAK:") ? line : "[" + tag + "] " + line);
                System.out.flush();
            }
            return;
        }
        String name = prefix + m.group(1);
        String detail = m.group(3) == null ? "" : m.group(3);
        if (m.group(2).equals("FAIL")) {
            Scenario.fail(name, detail);
            return;
        }
        List<Object> metrics = new ArrayList<>();
        for (String token : detail.split(" ")) {
            int eq = token.indexOf('=');
            if (eq > 0) {
                metrics.add(token.substring(0, eq));
                metrics.add(token.substring(eq + 1));
            }
        }
        Scenario.ok(name, metrics.toArray());
    }
}
