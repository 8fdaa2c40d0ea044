package dev.sluice.it.harness;

import dev.sluice.testing.LeakGate;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Child-side half of the harness: a scenario {@code main} started by {@link IsolatedJvm} uses this to learn its
 * test address and to report results in the line protocol {@link ChildResult} parses. Write a scenario as
 *
 * <pre>{@code
 * public static void main(String[] args) {
 *     Scenario.run(() -> {
 *         String host = Scenario.testAddress();
 *         ... start peers, make calls ...
 *         Scenario.ok("calls", "count", 400, "p50us", p50);
 *     });
 * }
 * }</pre>
 *
 * <p>{@link #run} never returns: after the body it reports an exception as {@code RESULT name=scenario FAIL …},
 * runs the leak gate (forces GC, prints every recorded Netty leak as a {@code LEAK:} line and
 * {@code RESULT name=leak-gate ok|FAIL}), and exits with 1 if any FAIL was printed, else 0. If JVM shutdown hooks
 * (Dubbo's, for example) hang, the process halts 15 s later anyway.
 *
 * <p>Runs in the child JVM; {@link #ok} and {@link #fail} may be called from any thread.
 */
public final class Scenario {
    /** Result name used for an exception thrown out of the body. */
    public static final String SCENARIO = "scenario";
    /** Result name of the leak check that always runs after the body. */
    public static final String LEAK_GATE = "leak-gate";

    private static final AtomicBoolean FAILED = new AtomicBoolean();

    private Scenario() {}

    /** The body of a scenario. */
    @FunctionalInterface
    public interface Body {
        void run() throws Exception;
    }

    /**
     * The IP address peers use to reach each other: {@value NetnsLauncher#TEST_ADDRESS} inside the namespace, the
     * machine's own non-loopback address otherwise; 127.0.0.1 when not started by {@link IsolatedJvm}.
     */
    public static String testAddress() {
        return System.getProperty(IsolatedJvm.ADDRESS_PROPERTY, "127.0.0.1");
    }

    /** {@code namespace}, {@code host}, or {@code unknown} when not started by {@link IsolatedJvm}. */
    public static String network() {
        return System.getProperty(IsolatedJvm.NETWORK_PROPERTY, "unknown");
    }

    /** A directory private to this run (the harness's log directory), or the working directory. */
    public static Path workDirectory() {
        return Paths.get(System.getProperty(IsolatedJvm.WORKDIR_PROPERTY, System.getProperty("user.dir")));
    }

    /** Prints {@code RESULT name=<name> ok k1=v1 k2=v2 …}; {@code keyValues} alternate keys and values. */
    public static void ok(String name, Object... keyValues) {
        if (keyValues.length % 2 != 0) {
            throw new IllegalArgumentException("keyValues must alternate keys and values");
        }
        StringBuilder line = new StringBuilder("RESULT name=").append(token(name)).append(" ok");
        for (int i = 0; i < keyValues.length; i += 2) {
            line.append(' ').append(token(String.valueOf(keyValues[i]))).append('=')
                    .append(token(String.valueOf(keyValues[i + 1])));
        }
        emit(line.toString());
    }

    /** Prints {@code RESULT name=<name> FAIL <message>} and makes the child exit with 1. */
    public static void fail(String name, String message) {
        FAILED.set(true);
        emit("RESULT name=" + token(name) + " FAIL " + oneLine(message));
    }

    /** {@link #ok} when {@code condition} holds, else {@link #fail}; returns {@code condition}. */
    public static boolean check(String name, boolean condition, String failureMessage) {
        if (condition) {
            ok(name);
        } else {
            fail(name, failureMessage);
        }
        return condition;
    }

    /** Runs {@code body}, then the leak gate, then exits the JVM (see the class javadoc). Never returns. */
    public static void run(Body body) {
        try {
            body.run();
        } catch (Throwable t) {
            StringWriter trace = new StringWriter();
            t.printStackTrace(new PrintWriter(trace));
            System.err.println(trace);
            fail(SCENARIO, t.toString());
        }
        try {
            leakGate();
        } catch (Throwable t) {
            fail(LEAK_GATE, "leak gate failed: " + t);
        }
        exit(FAILED.get() ? 1 : 0);
    }

    private static void leakGate() {
        // collectLeaks() also forces GC and allocates, which is what makes Netty's detector notice dropped buffers,
        // so it is worth running even when the recording detector is not installed (Netty then logs LEAK: itself).
        List<String> leaks = LeakGate.collectLeaks();
        for (String leak : leaks) {
            emit(leak.startsWith("LEAK:") ? leak : "LEAK: " + leak);
        }
        if (leaks.isEmpty()) {
            ok(LEAK_GATE, "recording", LeakGate.active());
        } else {
            fail(LEAK_GATE, leaks.size() + " leak(s) reported");
        }
    }

    private static void exit(int status) {
        System.out.flush();
        System.err.flush();
        ScheduledThreadPoolExecutor watchdog = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "scenario-exit-watchdog");
            t.setDaemon(true);
            return t;
        });
        watchdog.schedule(() -> {
            System.err.println("shutdown hooks still running after 15 s; halting");
            System.err.flush();
            Runtime.getRuntime().halt(status);
        }, 15, TimeUnit.SECONDS);
        System.exit(status);
    }

    private static void emit(String line) {
        synchronized (System.out) {
            System.out.println(line);
            System.out.flush();
        }
    }

    private static String token(String s) {
        String t = s.replaceAll("\\s", "_");
        return t.isEmpty() ? "_" : t;
    }

    private static String oneLine(String s) {
        return s == null ? "null" : s.replaceAll("[\\r\\n]+", " | ");
    }
}
