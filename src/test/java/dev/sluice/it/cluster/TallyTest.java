package dev.sluice.it.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sluice.it.cluster.AttemptFilter.Attempt;
import dev.sluice.it.cluster.AttemptFilter.Outcome;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The cluster scenario's accounting on records made up to hold each case: what it calls lost and explained. */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class TallyTest {
    private static final int A = 20001;
    private static final int B = 20002;
    private static final long MS = 1_000_000;

    private static Load.Call ok(long id, long startMs, long endMs) {
        return new Load.Call(id, startMs * MS, endMs * MS, Load.OK);
    }

    private static Tally tally(long sent, List<Load.Call> calls, Map<Long, List<Attempt>> attempts,
            Map<Long, List<Integer>> executions) {
        return new Tally(sent, calls, attempts, executions,
                List.of(new Tally.Phase("before", 0, 1000 * MS), new Tally.Phase("freeze", 1000 * MS, 3000 * MS)), B);
    }

    @Test
    void aCallThatNeverEndedIsLost() {
        Tally t = tally(3, List.of(ok(1, 0, 1), ok(3, 0, 2)),
                Map.of(1L, List.of(new Attempt(1, A, Outcome.OK, null)), 3L,
                        List.of(new Attempt(3, A, Outcome.OK, null))),
                Map.of(1L, List.of(A), 3L, List.of(A)));
        assertEquals(1, t.lost);
        assertEquals(2, t.succeeded);
    }

    @Test
    void aLateExecutionAfterATimeoutIsExplained() {
        // Tried on B (frozen: timed out), then answered by A; B ran it after the thaw.
        Tally t = tally(1, List.of(ok(1, 1000, 2010)),
                Map.of(1L, List.of(new Attempt(1, B, Outcome.TIMEOUT, "RpcException"),
                        new Attempt(1, A, Outcome.OK, null))),
                Map.of(1L, List.of(A, B)));
        assertEquals(1, t.duplicates);
        assertEquals(1, t.dupAfterTimeout);
        assertEquals(0, t.dupUnexplained);
        assertEquals(1, t.frozenTimeouts);
        assertEquals(1, t.slow);
        assertEquals(1, t.slowIn("freeze"));
        assertEquals(1, t.freezeSlow);
        assertEquals(1, t.freezeStuck);
        assertEquals(1, t.freezeDuplicates);
    }

    @Test
    void aSlowCallIsChargedToTheFreezeItWasInFlightDuringWhereverItStartedAndEnded() {
        // 1: started before the freeze, stuck on B, retried on A. 2: started in the freeze, answered by B at the thaw.
        // 3: slow, but over before the freeze began.
        Tally t = tally(3, List.of(ok(1, 900, 1950), ok(2, 2500, 3200), ok(3, 100, 700)),
                Map.of(1L, List.of(new Attempt(1, B, Outcome.TIMEOUT, "RpcException"),
                        new Attempt(1, A, Outcome.OK, null)),
                        2L, List.of(new Attempt(2, B, Outcome.OK, null)),
                        3L, List.of(new Attempt(3, A, Outcome.OK, null))),
                Map.of(1L, List.of(A), 2L, List.of(B), 3L, List.of(A)));
        assertEquals(1, t.slowIn("freeze"), "by end time only call 1 is in the freeze");
        assertEquals(2, t.freezeSlow);
        assertEquals(1, t.freezeStuck, "call 2 was answered by B after the thaw, not timed out");
        assertEquals(0, t.freezeDuplicates);
    }

    @Test
    void aSecondExecutionWithoutAFailedAttemptIsUnexplained() {
        Tally t = tally(1, List.of(ok(1, 0, 1)), Map.of(1L, List.of(new Attempt(1, A, Outcome.OK, null))),
                Map.of(1L, List.of(A, A)));
        assertEquals(1, t.duplicates);
        assertEquals(1, t.dupUnexplained);
    }

    @Test
    void anExecutionOnAProviderNeverAskedIsUnexplained() {
        // A timeout on A cannot explain a run on B, where the call was never sent.
        Tally t = tally(1, List.of(ok(1, 0, 1)),
                Map.of(1L, List.of(new Attempt(1, A, Outcome.TIMEOUT, "RpcException"))),
                Map.of(1L, List.of(A, B)));
        assertEquals(1, t.dupUnexplained);
    }

    @Test
    void aRunBeforeADisconnectIsExplainedAsSuch() {
        Tally t = tally(1, List.of(ok(1, 0, 1)),
                Map.of(1L, List.of(new Attempt(1, A, Outcome.NETWORK, "RpcException"),
                        new Attempt(1, B, Outcome.OK, null))),
                Map.of(1L, List.of(A, B)));
        assertEquals(1, t.dupAfterDisconnect);
        assertEquals(0, t.dupUnexplained);
    }

    @Test
    void anAnswerNoProviderRanIsCounted() {
        Tally t = tally(1, List.of(ok(1, 0, 1)), Map.of(1L, List.of(new Attempt(1, A, Outcome.OK, null))), Map.of());
        assertEquals(1, t.okNeverExecuted);
    }

    @Test
    void throughputIsCountedByThePhaseACallEndedIn() {
        Tally t = tally(3, List.of(ok(1, 0, 500), ok(2, 0, 999), ok(3, 900, 1500)), Map.of(),
                Map.of(1L, List.of(A), 2L, List.of(A), 3L, List.of(A)));
        assertEquals(2.0, t.okPerSecond("before"), 1e-9);
        assertEquals(0.5, t.okPerSecond("freeze"), 1e-9);
    }
}
