package dev.sluice.it.conformance;

import dev.sluice.it.harness.Scenario;
import dev.sluice.it.rpc.model.TypesChecks;
import dev.sluice.it.rpc.model.TypesService;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

/**
 * Child-side helper of the conformance suite: runs one named check at a time and reports it as its own
 * {@code RESULT} line ({@code ok ms=…} plus the check's metrics, or {@code FAIL <exception>}), so a broken value
 * type or feature is named precisely and the remaining checks still run.
 *
 * <p>Used on the scenario's threads (the heartbeat check runs on one of its own); the names are shared with the
 * tests through {@link #typesNames()}.
 */
final class Checks {
    /** Prefix of the {@link TypesChecks} results. */
    static final String TYPES = "types.";

    private Checks() {
    }

    /** A check that only passes or throws. */
    @FunctionalInterface
    interface Body {
        void run() throws Exception;
    }

    /** Runs {@code body} and reports it as {@code name}; true when it passed. */
    static boolean check(String name, Body body) {
        return measure(name, () -> {
            body.run();
            return new Object[0];
        });
    }

    /** Runs {@code body}, which returns alternating metric keys and values, and reports it as {@code name}. */
    static boolean measure(String name, Callable<Object[]> body) {
        long start = System.nanoTime();
        try {
            Object[] metrics = body.call();
            Object[] line = new Object[metrics.length + 2];
            line[0] = "ms";
            line[1] = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            System.arraycopy(metrics, 0, line, 2, metrics.length);
            Scenario.ok(name, line);
            return true;
        } catch (Throwable t) {
            System.err.println("check " + name + " failed:");
            t.printStackTrace();
            Scenario.fail(name, t.toString() + (t.getCause() == null ? "" : " / cause: " + t.getCause()));
            return false;
        }
    }

    /** Every {@link TypesChecks} check against {@code service}, one result each. */
    static void types(TypesService service) {
        for (Map.Entry<String, TypesChecks.Check> e : TypesChecks.checks().entrySet()) {
            check(TYPES + e.getKey(), () -> e.getValue().run(service));
        }
    }

    /** The result names {@link #types} reports. */
    static List<String> typesNames() {
        List<String> names = new ArrayList<>();
        for (String name : TypesChecks.checks().keySet()) {
            names.add(TYPES + name);
        }
        return names;
    }

    /** Attachment values beyond short ASCII: empty, Latin-1, CJK and emoji, past the 47-char short form, long. */
    static final List<String> ATTACHMENT_VALUES = List.of("", "caf\u00e9 \u00e4", "\u8ffd\u8e2a-\ud83d\ude00",
            "a".repeat(48), "b".repeat(3000));

    /** A 2.4 MB string: 1 MiB of ASCII then CJK, for a request and a response far larger than a TCP segment. */
    static String largeText() {
        return "x".repeat(1 << 20) + "\u4e2d\u6587".repeat(100_000) + "\ud83d\ude80";
    }

    /** Sixteen CompletableFuture calls outstanding at once on one connection, later ones completing first. */
    static void asyncConcurrent(TypesService s) throws Exception {
        List<java.util.concurrent.CompletableFuture<String>> calls = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
            calls.add(s.async("c" + i, 50 - 3 * i)); // later calls complete first
        }
        for (int i = 0; i < 16; i++) {
            String answer = calls.get(i).get(10, TimeUnit.SECONDS);
            require(("async:c" + i).equals(answer), "call " + i + " got " + answer);
        }
    }

    /** {@code s}, cut to 60 chars for a one-line message. */
    static String abbreviate(String s) {
        return s == null || s.length() <= 60 ? s : s.substring(0, 60) + "...(" + s.length() + " chars)";
    }

    /** Throws AssertionError with {@code message} unless {@code condition}. */
    static void require(boolean condition, String message) {
        if (!condition) {
            throw new AssertionError(message);
        }
    }
}
