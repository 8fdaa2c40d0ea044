package dev.sluice.it.harness;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.security.CodeSource;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * Runs a {@code main} class in a child JVM, on the test classpath, usually inside a private network namespace, and
 * returns its exit code and output as a {@link ChildResult}.
 *
 * <p><b>What runs where.</b> Maven and the test JVM (the parent, which calls {@link #run()}) stay in the machine's
 * own network namespace, so dependency downloads keep working. The child JVM — both Dubbo peers of a scenario, or a
 * Dubbo peer and a Sluice peer — runs in a fresh namespace made by {@link NetnsLauncher}: only {@code lo} and one
 * interface carrying {@link NetnsLauncher#TEST_ADDRESS} ({@value NetnsLauncher#TEST_ADDRESS}/32). Traffic cannot
 * leave it. The child finds the address to use in system property {@value #ADDRESS_PROPERTY}
 * ({@link Scenario#testAddress()}); servers there bind the wildcard address.
 *
 * <p><b>Network choice</b> ({@link Network}): {@code AUTO} (the default) uses a namespace whenever the machine can
 * make one (root: {@code unshare -n}; otherwise {@code unshare -rn}), so every machine runs the scenario under the
 * same conditions. Without namespaces it falls back to a plain child JVM when the machine has a non-loopback IPv4
 * address (then that address is the test address; it belongs to this machine, so traffic still stays local), and
 * fails with a message naming what is missing when the machine has only {@code lo}. The system property
 * {@value #NETWORK_PROPERTY} ({@code auto|namespace|host}) in the test JVM overrides the default.
 *
 * <p><b>Leak gate.</b> The child runs with the parent's Netty leak-detection properties
 * ({@code io.netty.leakDetection.*}, {@code io.netty.customResourceLeakDetector}; level {@code paranoid} when the
 * parent sets none). A child whose output contains Netty's {@code LEAK:} report makes {@link #run()} throw
 * {@link AssertionError}, unless {@link #failOnLeak(boolean) failOnLeak(false)}. {@link Scenario#run} also runs
 * the recording detector's check in the child before it exits.
 *
 * <p><b>Output and timeout.</b> stdout and stderr go to files under {@code target/isolated-jvm/<name>-…/} (kept for
 * post-mortems) and are read back into the result. When the timeout expires the child gets SIGQUIT (a thread dump
 * in its stdout), then it and all its descendants are killed forcibly. If the calling thread is interrupted (JUnit
 * {@code @Timeout}), the child is killed too, and a JVM shutdown hook kills children still alive when the test JVM
 * exits.
 *
 * <p>Use: {@code IsolatedJvm.of(MyScenario.class).args("8").timeout(Duration.ofSeconds(90)).run()
 * .assertPassed("calls")}, where {@code MyScenario.main} calls {@link Scenario#run(Scenario.Body)}.
 *
 * <p>Thread-safety: a builder is used by one thread; several builders may run children concurrently.
 */
public final class IsolatedJvm {
    /** Child-side system property: the IP address scenario peers use to reach each other. */
    public static final String ADDRESS_PROPERTY = "sluice.it.address";
    /**
     * In the test JVM: overrides the default {@link Network} ({@code auto}, {@code namespace}, {@code host}). In the
     * child: where it actually runs, {@code namespace} or {@code host}.
     */
    public static final String NETWORK_PROPERTY = "sluice.it.network";
    /** Child-side system property: a private directory of this run (logs live in it; scenarios may write there). */
    public static final String WORKDIR_PROPERTY = "sluice.it.workdir";

    /** Where the child JVM runs. */
    public enum Network {
        /** Namespace when possible; else the host network if it has a non-loopback IPv4; else fail. */
        AUTO,
        /** Always a private network namespace; fail when the machine cannot make one. */
        NAMESPACE,
        /** A plain child JVM on the machine's network. */
        HOST
    }

    private static final Set<Process> LIVE = ConcurrentHashMap.newKeySet();
    private static final AtomicInteger RUNS = new AtomicInteger();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> LIVE.forEach(IsolatedJvm::destroyTree),
                "isolated-jvm-reaper"));
    }

    private final Class<?> mainClass;
    private final List<String> args = new ArrayList<>();
    private final List<String> jvmFlags = new ArrayList<>();
    private final Map<String, String> systemProperties = new LinkedHashMap<>();
    private final Set<Path> classPathExcluded = new HashSet<>();
    private String classPath;
    private Duration timeout = Duration.ofSeconds(90);
    private Network network;
    private String name;
    private boolean failOnLeak = true;
    private Consumer<ProcessHandle> onStart = handle -> { };

    private IsolatedJvm(Class<?> mainClass) {
        this.mainClass = Objects.requireNonNull(mainClass, "mainClass");
        this.name = mainClass.getSimpleName();
    }

    /** A child JVM that will run {@code mainClass.main(args)}. */
    public static IsolatedJvm of(Class<?> mainClass) {
        return new IsolatedJvm(mainClass);
    }

    public IsolatedJvm args(String... values) {
        args.addAll(Arrays.asList(values));
        return this;
    }

    /** Extra JVM flags, e.g. {@code -Xmx256m}; they come after the harness defaults, so they win. */
    public IsolatedJvm jvmFlags(String... flags) {
        jvmFlags.addAll(Arrays.asList(flags));
        return this;
    }

    public IsolatedJvm systemProperty(String key, String value) {
        systemProperties.put(key, value);
        return this;
    }

    /**
     * Leaves out of the child's class path the entries (jar or classes directory) that {@code classes} are loaded
     * from here, e.g. to run a Dubbo application without the Sluice jar; the child must not need anything else they
     * hold. Fails when a class was not loaded from a class path entry.
     */
    public IsolatedJvm classPathWithout(Class<?>... classes) {
        for (Class<?> c : classes) {
            CodeSource source = c.getProtectionDomain().getCodeSource();
            if (source == null || source.getLocation() == null) {
                throw new IllegalArgumentException(c.getName() + " was not loaded from a class path entry");
            }
            try {
                classPathExcluded.add(Paths.get(source.getLocation().toURI()).toAbsolutePath().normalize());
            } catch (URISyntaxException e) {
                throw new IllegalArgumentException(c.getName() + " came from " + source.getLocation(), e);
            }
        }
        return this;
    }

    /**
     * Runs the child on {@code value} instead of the test class path, e.g. another Dubbo version's jars built by
     * {@link PeerClasspath}; the child's main class and what it loads must be on it.
     */
    public IsolatedJvm classPath(String value) {
        classPath = Objects.requireNonNull(value, "classPath");
        return this;
    }

    /** Wall-clock limit for the child, default 90 s; keep it below the test's {@code @Timeout}. */
    public IsolatedJvm timeout(Duration value) {
        timeout = Objects.requireNonNull(value, "timeout");
        return this;
    }

    public IsolatedJvm network(Network value) {
        network = Objects.requireNonNull(value, "network");
        return this;
    }

    /** Label for the log directory and messages; defaults to the main class's simple name. */
    public IsolatedJvm name(String value) {
        name = value.replaceAll("[^A-Za-z0-9._-]", "_");
        return this;
    }

    /** Whether {@link #run()} throws when the child's output contains a Netty {@code LEAK:} report (default true). */
    public IsolatedJvm failOnLeak(boolean value) {
        failOnLeak = value;
        return this;
    }

    /**
     * Called on the running thread right after the child started, e.g. to hand its {@link ProcessHandle} to another
     * thread that will signal it (SIGSTOP for a frozen peer) or watch it. Must not block.
     */
    public IsolatedJvm onStart(Consumer<ProcessHandle> callback) {
        onStart = Objects.requireNonNull(callback, "callback");
        return this;
    }

    /**
     * Starts the child, waits for it to exit or for the timeout, and returns what happened. Throws
     * {@link AssertionError} when the child reported a leak (see {@link #failOnLeak}), {@link IllegalStateException}
     * when the requested network cannot be provided, and {@link InterruptedException} (after killing the child)
     * when the calling thread is interrupted.
     */
    public ChildResult run() throws InterruptedException {
        if (Thread.interrupted()) {
            throw new InterruptedException("interrupted before starting child JVM '" + name + "'");
        }
        Network resolved = resolveNetwork();
        if (Thread.interrupted()) { // e.g. while probing for namespaces
            throw new InterruptedException("interrupted before starting child JVM '" + name + "'");
        }
        String address = resolved == Network.NAMESPACE
                ? NetnsLauncher.TEST_ADDRESS
                : NetnsLauncher.hostNonLoopbackAddress().orElse("127.0.0.1");
        Path dir = createRunDirectory();
        List<String> command = new ArrayList<>();
        if (resolved == Network.NAMESPACE) {
            command.addAll(NetnsLauncher.probe().prefix());
        }
        command.addAll(javaCommand(resolved, address, dir));

        Path stdout = dir.resolve("stdout.log");
        Path stderr = dir.resolve("stderr.log");
        try {
            Files.write(dir.resolve("command.txt"), command, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        ProcessBuilder builder = new ProcessBuilder(command)
                .directory(dir.toFile())
                .redirectOutput(stdout.toFile())
                .redirectError(stderr.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        long start = System.nanoTime();
        Process process;
        try {
            process = builder.start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start child JVM: " + command.get(0), e);
        }
        LIVE.add(process);
        boolean timedOut = false;
        try {
            onStart.accept(process.toHandle());
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                timedOut = true;
                requestThreadDump(process);
                destroyTree(process);
            }
            process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException | RuntimeException | Error e) {
            destroyTree(process);
            throw e;
        } finally {
            LIVE.remove(process);
        }
        Duration elapsed = Duration.ofNanos(System.nanoTime() - start);
        int exit = process.isAlive() ? -1 : process.exitValue();
        ChildResult result = new ChildResult(name, resolved, address, command, process.pid(), exit, timedOut,
                elapsed, timeout, readFile(stdout), readFile(stderr), dir);
        if (failOnLeak) {
            result.assertNoLeaks();
        }
        return result;
    }

    private Network resolveNetwork() {
        Network requested = network;
        if (requested == null) {
            String override = System.getProperty(NETWORK_PROPERTY, "").trim();
            requested = override.isEmpty() ? Network.AUTO : Network.valueOf(override.toUpperCase(Locale.ROOT));
        }
        switch (requested) {
            case NAMESPACE:
                NetnsLauncher.probe().prefix(); // throws with the diagnosis when unavailable
                return Network.NAMESPACE;
            case HOST:
                return Network.HOST;
            default:
                NetnsLauncher.Probe probe = NetnsLauncher.probe();
                if (probe.available()) {
                    return Network.NAMESPACE;
                }
                if (NetnsLauncher.hostNonLoopbackAddress().isPresent()) {
                    return Network.HOST;
                }
                throw new IllegalStateException("This machine has only loopback interfaces, where Dubbo consumers "
                        + "are unusable (docs/wire-format.md §10.1), and a private network namespace is not available. "
                        + "Run as root, or enable unprivileged user namespaces, or run on a machine with a "
                        + "non-loopback IPv4 address. Tried:\n" + probe.diagnosis());
        }
    }

    private List<String> javaCommand(Network resolved, String address, Path dir) {
        List<String> cmd = new ArrayList<>();
        cmd.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-Dio.netty.leakDetection.level=" + System.getProperty("io.netty.leakDetection.level", "paranoid"));
        System.getProperties().stringPropertyNames().stream()
                .filter(k -> (k.startsWith("io.netty.leakDetection.") && !k.equals("io.netty.leakDetection.level"))
                        || k.equals("io.netty.customResourceLeakDetector"))
                .sorted()
                .forEach(k -> cmd.add("-D" + k + "=" + System.getProperty(k)));
        // No hsperfdata (it would be written as the namespace's root user and is useless here); bounded heap.
        cmd.add("-XX:-UsePerfData");
        cmd.add("-Xmx512m");
        cmd.add("-XX:MaxDirectMemorySize=256m");
        cmd.add("-XX:+ExitOnOutOfMemoryError");
        cmd.add("-D" + ADDRESS_PROPERTY + "=" + address);
        cmd.add("-D" + NETWORK_PROPERTY + "=" + resolved.name().toLowerCase(Locale.ROOT));
        cmd.add("-D" + WORKDIR_PROPERTY + "=" + dir);
        cmd.addAll(jvmFlags);
        systemProperties.forEach((k, v) -> cmd.add("-D" + k + "=" + v));
        cmd.add("-cp");
        cmd.add(childClassPath());
        cmd.add(mainClass.getName());
        cmd.addAll(args);
        return cmd;
    }

    /** The test class path (or {@link #classPath}) without the entries {@link #classPathWithout} named. */
    private String childClassPath() {
        String base = classPath == null ? testClassPath() : classPath;
        if (classPathExcluded.isEmpty()) {
            return base;
        }
        List<String> kept = new ArrayList<>();
        for (String entry : base.split(File.pathSeparator)) {
            if (!entry.isEmpty() && !classPathExcluded.contains(Paths.get(entry).toAbsolutePath().normalize())) {
                kept.add(entry);
            }
        }
        return String.join(File.pathSeparator, kept);
    }

    /** Surefire may start the test JVM from a manifest-only jar; the real classpath is then in this property. */
    static String testClassPath() {
        String cp = System.getProperty("surefire.test.class.path");
        if (cp == null || cp.isBlank()) {
            cp = System.getProperty("java.class.path");
        }
        return cp;
    }

    private Path createRunDirectory() {
        Path base;
        String configured = System.getProperty("sluice.it.logdir");
        if (configured != null && !configured.isBlank()) {
            base = Paths.get(configured);
        } else {
            base = Paths.get(System.getProperty("basedir", System.getProperty("user.dir")), "target", "isolated-jvm");
        }
        String stamp = LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));
        long pid = ProcessHandle.current().pid();
        Path dir = base.resolve(name + "-" + stamp + "-" + pid + "-" + RUNS.incrementAndGet());
        try {
            return Files.createDirectories(dir).toAbsolutePath();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create " + dir, e);
        }
    }

    /** Best effort: SIGQUIT makes a JVM print all thread stacks to its stdout, which shows where it hung. */
    private static void requestThreadDump(Process process) throws InterruptedException {
        Optional<String> kill = NetnsLauncher.findExecutable("kill");
        if (kill.isEmpty() || !process.isAlive()) {
            return;
        }
        try {
            Process signal = new ProcessBuilder(kill.get(), "-QUIT", Long.toString(process.pid()))
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .start();
            signal.waitFor(5, TimeUnit.SECONDS);
            // Bounded wait for the dump to be written; the child is not expected to exit here.
            process.waitFor(2, TimeUnit.SECONDS);
        } catch (IOException e) {
            // no dump then; the kill below still happens
        }
    }

    private static void destroyTree(Process process) {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
    }

    private static String readFile(Path file) {
        try {
            // Lenient decoding: a child may print anything, and a bad byte must not hide the rest.
            return Files.exists(file) ? new String(Files.readAllBytes(file), StandardCharsets.UTF_8) : "";
        } catch (IOException e) {
            return "<cannot read " + file + ": " + e + ">";
        }
    }
}
