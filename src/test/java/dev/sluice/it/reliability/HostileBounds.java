package dev.sluice.it.reliability;

import dev.sluice.it.reliability.HostileAttacks.Attack;
import dev.sluice.it.reliability.HostileAttacks.Result;
import java.util.ArrayList;
import java.util.List;

/**
 * The bounds every attack of {@link HostileAttacks} must stay within on a Sluice server (docs/reliability.md H35),
 * each a constant plus a cost per byte the attacker sent. The constants absorb what any short exchange costs (code
 * warming up, a full GC's noise); the per-byte terms are what a peer can buy. The unfixed server exceeded them by an
 * order of magnitude or more; the figures measured both ways are in docs/reliability.md.
 */
final class HostileBounds {
    static final long MIB = 1024 * 1024;
    /** The pending-bytes cap the servers under attack run with. */
    static final long PENDING_CAP = MIB;
    /** The frame timeout the servers under attack run with. */
    static final long FRAME_TIMEOUT_MILLIS = 1_000;

    /**
     * Loop CPU: a constant for a short exchange, plus this per byte sent: about what a well-formed small request
     * costs the loop per byte (a call of a few hundred bytes takes tens of microseconds), so an attack may cost no
     * more per byte than ordinary traffic.
     */
    static final long LOOP_CPU_BASE_NANOS = 300_000_000L;
    static final double LOOP_CPU_NANOS_PER_BYTE = 400;
    /**
     * The slowest answer the well-behaved peer may wait for during an attack: generous, as on a shared two-core
     * machine it mostly measures the load; the CPU bounds are the strict ones.
     */
    static final long PROBE_MAX_MILLIS = 3_000;
    /** Log lines: a few warnings with their stack traces, plus one line per this many bytes sent. */
    static final long LOG_LINES_BASE = 100;
    static final long BYTES_PER_LOG_LINE = 64 * 1024;
    /** Heap retained (or held, while the attacker's connection is open): a constant plus this share of bytes sent. */
    static final long HEAP_BASE = 2 * MIB;
    static final double HEAP_PER_BYTE = 0.1;
    /**
     * Bytes the loop threads may allocate for one frame of empty containers: a constant plus this many per byte
     * sent (a decode without expansion).
     */
    static final long LOOP_ALLOC_BASE = 32 * MIB;
    static final double LOOP_ALLOC_PER_BYTE = 8;
    /** Direct memory still held once the attacker is gone: one chunk of Netty's pool (4 MiB) may stay cached. */
    static final long DIRECT_AFTER = 5 * MIB;

    private HostileBounds() {
    }

    /** Every bound {@code r} exceeds, as text; empty when it held them all. */
    static List<String> violations(Result r) {
        List<String> v = new ArrayList<>();
        long sent = r.bytesSent();
        check(v, r.servesAfter(), "the server no longer answers $echo on a new connection");
        check(v, r.probeFailures() == 0, r.probeFailures() + " calls of the well-behaved peer failed");
        check(v, r.probeCalls() > 0, "the well-behaved peer got no answer during the attack");
        check(v, r.probeMaxMillis() <= PROBE_MAX_MILLIS, "the well-behaved peer waited " + r.probeMaxMillis()
                + " ms for an answer (bound " + PROBE_MAX_MILLIS + " ms)");
        long loopCpu = LOOP_CPU_BASE_NANOS + (long) (LOOP_CPU_NANOS_PER_BYTE * sent);
        check(v, r.loopCpuNanos() <= loopCpu, "loop CPU " + r.loopCpuNanos() / 1_000_000 + " ms for " + sent
                + " bytes (bound " + loopCpu / 1_000_000 + " ms)");
        check(v, r.directAfter() <= DIRECT_AFTER, "direct memory still held after the attack: "
                + r.directAfter() / 1024 + " KiB (bound " + DIRECT_AFTER / 1024 + " KiB)");
        {
            long logs = LOG_LINES_BASE + sent / BYTES_PER_LOG_LINE;
            check(v, r.logLines() <= logs, r.logLines() + " log lines for " + sent + " bytes (bound " + logs + ")");
            long heap = HEAP_BASE + (long) (HEAP_PER_BYTE * sent)
                    + (r.attack() == Attack.UNREAD_HEARTBEATS ? PENDING_CAP : 0);
            check(v, r.heapHeld() <= heap, "heap held " + r.heapHeld() / 1024 + " KiB for " + sent
                    + " bytes (bound " + heap / 1024 + " KiB)");
        }
        if (r.attack() == Attack.EMPTY_CONTAINERS) {
            long alloc = LOOP_ALLOC_BASE + (long) (LOOP_ALLOC_PER_BYTE * sent);
            check(v, r.loopAllocated() <= alloc, "the loop allocated " + r.loopAllocated() / 1024 + " KiB for "
                    + sent + " bytes (bound " + alloc / 1024 + " KiB)");
        }
        switch (r.attack()) {
            case CLASS_DEFINITION_RUN:
                check(v, !r.outcome().startsWith("hung"), "the connection neither answered nor closed: "
                        + r.outcome());
                break;
            case TRICKLED_BODY:
                check(v, r.outcome().startsWith("closed"), "a trickled body kept its connection: " + r.outcome());
                break;
            case UNREAD_HEARTBEATS:
                // Whether the server stops reading or drops the answers it cannot queue, what it holds is bounded.
                check(v, r.directHeld() <= PENDING_CAP + 2 * MIB, "direct memory held " + r.directHeld() / 1024
                        + " KiB (cap " + PENDING_CAP / 1024 + " KiB)");
                break;
            default:
                break;
        }
        return v;
    }

    private static void check(List<String> violations, boolean ok, String message) {
        if (!ok) {
            violations.add(message);
        }
    }
}
