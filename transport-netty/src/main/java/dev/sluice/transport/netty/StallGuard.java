package dev.sluice.transport.netty;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The process-wide check a {@link StallDetector} passes before it marks its connection stalled: <b>at most half of
 * the connections in use may be stalled at once, never all of them</b> (with two or more in use).
 *
 * <p>Why: one frozen peer is silent on its own; when most peers go silent together, the likelier cause is shared by
 * them, and the common part is this process, its host or its network: a stop-the-world pause or a starved CPU here,
 * or (on one machine, as in a test) every process starved at once. Marking all of them unavailable would turn a slow
 * machine into an outage: Dubbo's cluster drops every invoker whose {@code isAvailable()} is false and fails calls
 * with "No provider available" until its recheck (about every second) takes them back. Nor does it help when all
 * really are frozen: there is nowhere else to send the call. So a detector that would exceed the limit leaves its
 * connection available and probes again.
 *
 * <p>"In use": a connection that wrote something within the last ten stall timeouts (idle connections, say to
 * providers of other services, do not dilute the count). A connection that is the only one in use is judged on its
 * own: there is nothing to compare it with, and standalone callers want to hear that their one server is gone.
 *
 * <p>Threads: any event loop. {@link #tryStall} runs under this object's monitor, so two loops cannot both take the
 * last place; the detectors' state it reads is volatile.
 */
final class StallGuard {
    /** Shared by every stall-detecting connection of this process. */
    static final StallGuard PROCESS = new StallGuard();

    private final Set<StallDetector> detectors = ConcurrentHashMap.newKeySet();
    /** Connections marked stalled so far; guarded by this. */
    private long marks;

    void register(StallDetector detector) {
        detectors.add(detector);
    }

    void unregister(StallDetector detector) {
        detectors.remove(detector);
    }

    /**
     * Marks {@code candidate}'s connection stalled if the limit allows it.
     *
     * @param now {@link System#nanoTime()} on the caller's loop
     * @return null when marked; otherwise why not, for the log
     */
    synchronized String tryStall(StallDetector candidate, long now) {
        int inUse = 1;
        int stalled = 0;
        for (StallDetector d : detectors) {
            if (d == candidate) {
                continue;
            }
            if (d.isStalled()) {
                stalled++;
            }
            if (d.isStalled() || d.inUse(now)) {
                inUse++;
            }
        }
        int limit = inUse / 2;
        if (inUse >= 2 && stalled + 1 > limit) {
            return stalled + " of the " + inUse + " connections in use are stalled already and at most " + limit
                    + " may be; most peers silent at once points at this process, its host or its network";
        }
        candidate.markStalled();
        marks++;
        return null;
    }

    /** Connections marked stalled so far; for tests. */
    synchronized long marks() {
        return marks;
    }

    /** Connections stalled now; for tests. */
    int stalledCount() {
        int n = 0;
        for (StallDetector d : detectors) {
            if (d.isStalled()) {
                n++;
            }
        }
        return n;
    }
}
