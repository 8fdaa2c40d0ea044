package dev.sluice.it.cluster;

import dev.sluice.it.cluster.AttemptFilter.Attempt;
import dev.sluice.it.cluster.AttemptFilter.Outcome;
import dev.sluice.it.harness.ExecutionLog;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The counts of one cluster-scenario run, from three independent records: what the callers saw ({@link Load}),
 * which provider each attempt went to and how it ended ({@link AttemptFilter}), and which calls each provider ran
 * ({@link ExecutionLog}).
 *
 * <p>A call is <b>lost</b> when its caller never saw it end. A <b>duplicate</b> is an execution beyond the first of
 * one call id. A duplicate is <b>explained</b> when the call had an attempt that ended without an answer from a
 * provider that did run it: a timeout ({@code dupAfterTimeout}: the provider ran it late, e.g. after a freeze), or
 * else a network failure ({@code dupAfterDisconnect}: e.g. killed after running it, before its answer went out).
 * An execution on a provider the consumer never sent the call to, or more executions there than attempts, is
 * unexplained; so is any duplicate left over.
 *
 * <p>Built and read on the scenario's main thread after the load stopped.
 */
final class Tally {
    private static final long SLOW_MS = 500;

    /** A named span of the run; times are {@link System#nanoTime()}. */
    record Phase(String name, long startNanos, long endNanos) {
        double seconds() {
            return (endNanos - startNanos) / 1e9;
        }

        boolean contains(long nanos) {
            return nanos >= startNanos && nanos < endNanos;
        }
    }

    /** Counts of one phase, by the time calls ended. */
    record PhaseCounts(Phase phase, long ended, long ok, long failed, long slow, long maxMs) {
        double okPerSecond() {
            return ok / phase.seconds();
        }
    }

    final long sent;
    final long succeeded;
    final long failed;
    final long wrong;
    final long lost;
    final Map<String, Long> failedByType = new TreeMap<>();
    final long slow;
    final long maxMs;
    final long attempts;
    final Map<Outcome, Long> attemptsByOutcome = new TreeMap<>();
    final long executions;
    final long duplicates;
    final long dupAfterTimeout;
    final long dupAfterDisconnect;
    final long dupUnexplained;
    final long okNeverExecuted;
    final long frozenTimeouts;
    /**
     * Calls over 500 ms that were in flight at some time during phase {@code freeze} (started before it ended, ended
     * after it started), wherever they ended: the calls the freeze can have slowed down. The per-phase counts go by
     * end time, so they put the calls stuck on the frozen provider when it thaws into {@code thawed}, and count
     * nothing of the calls started just before the freeze.
     */
    final long freezeSlow;
    /** Of {@link #freezeSlow}, those with an attempt that timed out on the frozen provider. */
    final long freezeStuck;
    /** Duplicates of calls in flight during the freeze that timed out on the frozen provider and also ran there. */
    final long freezeDuplicates;
    final List<String> unexplainedExamples = new ArrayList<>();
    final List<PhaseCounts> phases = new ArrayList<>();

    /**
     * @param frozenPort the port of the provider frozen in phase {@code freeze}: attempts on it that timed out
     *     ({@code frozenTimeouts}) show the freeze was felt
     */
    Tally(long sent, List<Load.Call> calls, Map<Long, List<Attempt>> attemptsByCall,
            Map<Long, List<Integer>> executionsByCall, List<Phase> phaseList, int frozenPort) {
        this.sent = sent;
        long ok = 0;
        long bad = 0;
        long wrongAnswers = 0;
        long slowCalls = 0;
        long max = 0;
        Set<Long> ended = new HashSet<>();
        for (Load.Call c : calls) {
            ended.add(c.id());
            if (c.ok()) {
                ok++;
            } else if (Load.WRONG.equals(c.outcome())) {
                wrongAnswers++;
            } else {
                bad++;
                failedByType.merge(c.outcome(), 1L, Long::sum);
            }
            if (c.millis() > SLOW_MS) {
                slowCalls++;
            }
            max = Math.max(max, c.millis());
        }
        this.succeeded = ok;
        this.failed = bad;
        this.wrong = wrongAnswers;
        this.slow = slowCalls;
        this.maxMs = max;
        // Lost: handed an id and never ended, whether its caller is still stuck or not.
        long neverEnded = 0;
        for (long id = 1; id <= sent; id++) {
            if (!ended.contains(id)) {
                neverEnded++;
            }
        }
        this.lost = neverEnded;

        long attemptCount = 0;
        long frozen = 0;
        for (List<Attempt> list : attemptsByCall.values()) {
            for (Attempt a : list) {
                attemptCount++;
                attemptsByOutcome.merge(a.outcome(), 1L, Long::sum);
                if (a.port() == frozenPort && a.outcome() == Outcome.TIMEOUT) {
                    frozen++;
                }
            }
        }
        this.attempts = attemptCount;
        this.frozenTimeouts = frozen;

        long execs = 0;
        long dups = 0;
        long byTimeout = 0;
        long byDisconnect = 0;
        long unexplained = 0;
        for (Map.Entry<Long, List<Integer>> e : executionsByCall.entrySet()) {
            List<Integer> ports = e.getValue();
            execs += ports.size();
            if (ports.size() < 2) {
                continue;
            }
            long extra = ports.size() - 1;
            dups += extra;
            List<Attempt> tried = attemptsByCall.getOrDefault(e.getKey(), List.of());
            Map<Integer, Integer> execPerPort = count(ports);
            Map<Integer, Integer> triesPerPort = new HashMap<>();
            long timeouts = 0;
            long disconnects = 0;
            for (Attempt a : tried) {
                triesPerPort.merge(a.port(), 1, Integer::sum);
                if (execPerPort.containsKey(a.port())) {
                    if (a.outcome() == Outcome.TIMEOUT) {
                        timeouts++;
                    } else if (a.outcome() == Outcome.NETWORK) {
                        disconnects++;
                    }
                }
            }
            boolean ranUnsent = execPerPort.entrySet().stream()
                    .anyMatch(p -> p.getValue() > triesPerPort.getOrDefault(p.getKey(), 0));
            long t = ranUnsent ? 0 : Math.min(extra, timeouts);
            long d = ranUnsent ? 0 : Math.min(extra - t, disconnects);
            byTimeout += t;
            byDisconnect += d;
            if (extra - t - d > 0) {
                unexplained += extra - t - d;
                if (unexplainedExamples.size() < 5) {
                    unexplainedExamples.add("call " + e.getKey() + " ran on ports " + ports + ", attempts "
                            + describe(tried));
                }
            }
        }
        this.executions = execs;
        this.duplicates = dups;
        this.dupAfterTimeout = byTimeout;
        this.dupAfterDisconnect = byDisconnect;
        this.dupUnexplained = unexplained;

        long notRun = 0;
        for (Load.Call c : calls) {
            if (c.ok() && !executionsByCall.containsKey(c.id())) {
                notRun++;
            }
        }
        this.okNeverExecuted = notRun;

        long overlapSlow = 0;
        long overlapStuck = 0;
        long overlapDups = 0;
        Phase freeze = phaseList.stream().filter(p -> p.name().equals("freeze")).findFirst().orElse(null);
        for (Load.Call c : calls) {
            if (freeze == null || c.startNanos() >= freeze.endNanos() || c.endNanos() < freeze.startNanos()) {
                continue;
            }
            boolean stuck = attemptsByCall.getOrDefault(c.id(), List.of()).stream()
                    .anyMatch(a -> a.port() == frozenPort && a.outcome() == Outcome.TIMEOUT);
            List<Integer> ran = executionsByCall.getOrDefault(c.id(), List.of());
            if (stuck && ran.size() > 1 && ran.contains(frozenPort)) {
                overlapDups += ran.size() - 1;
            }
            if (c.millis() > SLOW_MS) {
                overlapSlow++;
                if (stuck) {
                    overlapStuck++;
                }
            }
        }
        this.freezeSlow = overlapSlow;
        this.freezeStuck = overlapStuck;
        this.freezeDuplicates = overlapDups;

        for (Phase p : phaseList) {
            long n = 0;
            long pOk = 0;
            long pFailed = 0;
            long pSlow = 0;
            long pMax = 0;
            for (Load.Call c : calls) {
                if (!p.contains(c.endNanos())) {
                    continue;
                }
                n++;
                if (c.ok()) {
                    pOk++;
                } else {
                    pFailed++;
                }
                if (c.millis() > SLOW_MS) {
                    pSlow++;
                }
                pMax = Math.max(pMax, c.millis());
            }
            phases.add(new PhaseCounts(p, n, pOk, pFailed, pSlow, pMax));
        }
    }

    /** Successful calls per second in the phase named {@code name}; -1 when there is no such phase. */
    double okPerSecond(String name) {
        return phase(name).map(PhaseCounts::okPerSecond).orElse(-1.0);
    }

    long slowIn(String name) {
        return phase(name).map(PhaseCounts::slow).orElse(-1L);
    }

    private java.util.Optional<PhaseCounts> phase(String name) {
        return phases.stream().filter(p -> p.phase().name().equals(name)).findFirst();
    }

    /** The {@code RESULT} metrics of the whole run, as alternating keys and values. */
    Object[] metrics() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("sent", sent);
        m.put("succeeded", succeeded);
        m.put("failed", failed);
        m.put("wrong", wrong);
        m.put("lost", lost);
        m.put("over500ms", slow);
        m.put("maxMs", maxMs);
        m.put("attempts", attempts);
        m.put("executions", executions);
        m.put("duplicates", duplicates);
        m.put("dupAfterTimeout", dupAfterTimeout);
        m.put("dupAfterDisconnect", dupAfterDisconnect);
        m.put("dupUnexplained", dupUnexplained);
        m.put("okNeverExecuted", okNeverExecuted);
        m.put("beforePerSec", Math.round(okPerSecond("before")));
        m.put("freezePerSec", Math.round(okPerSecond("freeze")));
        m.put("freezeOver500ms", slowIn("freeze"));
        m.put("frozenTimeouts", frozenTimeouts);
        m.put("freezeSpanOver500ms", freezeSlow);
        m.put("freezeSpanStuck", freezeStuck);
        m.put("freezeSpanDuplicates", freezeDuplicates);
        Object[] kv = new Object[m.size() * 2];
        int i = 0;
        for (Map.Entry<String, Object> e : m.entrySet()) {
            kv[i++] = e.getKey();
            kv[i++] = e.getValue();
        }
        return kv;
    }

    /** A human-readable report of the run. */
    String report(String title) {
        StringBuilder sb = new StringBuilder();
        sb.append(title).append('\n');
        sb.append(String.format(Locale.ROOT, "  calls sent %d, succeeded %d, failed %d, wrong answers %d, lost %d%n",
                sent, succeeded, failed, wrong, lost));
        sb.append("  failed by type: ").append(failedByType.isEmpty() ? "none" : failedByType).append('\n');
        sb.append(String.format(Locale.ROOT, "  calls over %d ms: %d (slowest %d ms)%n", SLOW_MS, slow, maxMs));
        sb.append(String.format(Locale.ROOT, "  attempts %d by outcome %s; timeouts on the frozen provider %d%n",
                attempts, attemptsByOutcome, frozenTimeouts));
        sb.append(String.format(Locale.ROOT, "  executions %d; duplicates %d: after a timeout %d, after a disconnect"
                + " %d, unexplained %d; succeeded but never executed %d%n", executions, duplicates, dupAfterTimeout,
                dupAfterDisconnect, dupUnexplained, okNeverExecuted));
        sb.append(String.format(Locale.ROOT, "  calls in flight during the freeze that took over %d ms: %d, of which %d"
                + " timed out on the frozen provider; their duplicates on it %d%n", SLOW_MS, freezeSlow, freezeStuck,
                freezeDuplicates));
        for (String example : unexplainedExamples) {
            sb.append("    unexplained: ").append(example).append('\n');
        }
        sb.append(String.format(Locale.ROOT, "  %-10s %8s %8s %8s %8s %10s %8s %8s%n", "phase", "seconds", "ended",
                "ok", "failed", "ok/s", ">500ms", "max ms"));
        for (PhaseCounts p : phases) {
            sb.append(String.format(Locale.ROOT, "  %-10s %8.1f %8d %8d %8d %10.0f %8d %8d%n", p.phase().name(),
                    p.phase().seconds(), p.ended(), p.ok(), p.failed(), p.okPerSecond(), p.slow(), p.maxMs()));
        }
        return sb.toString();
    }

    private static Map<Integer, Integer> count(List<Integer> ports) {
        Map<Integer, Integer> m = new HashMap<>();
        for (int p : ports) {
            m.merge(p, 1, Integer::sum);
        }
        return m;
    }

    private static String describe(List<Attempt> tried) {
        List<String> parts = new ArrayList<>();
        for (Attempt a : tried) {
            parts.add(a.port() + ":" + a.outcome() + (a.error() == null ? "" : "(" + a.error() + ")"));
        }
        return parts.toString();
    }
}
