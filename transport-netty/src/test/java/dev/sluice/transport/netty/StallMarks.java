package dev.sluice.transport.netty;

/**
 * Test access to {@link StallGuard#PROCESS}: how many times a connection of this process was marked stalled, so a
 * test can see a mark that the next read cleared again before it could look at the connection.
 */
public final class StallMarks {
    private StallMarks() {
    }

    /** Connections of this process marked stalled so far. */
    public static long total() {
        return StallGuard.PROCESS.marks();
    }

    /** Connections of this process stalled now. */
    public static int now() {
        return StallGuard.PROCESS.stalledCount();
    }
}
