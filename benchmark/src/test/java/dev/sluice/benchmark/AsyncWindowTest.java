package dev.sluice.benchmark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.benchmark.async.AsyncUserService;
import dev.sluice.benchmark.latency.CallLatency;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeoutException;
import org.apache.dubbo.benchmark.bean.Page;
import org.apache.dubbo.benchmark.bean.User;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The async benchmark's window: filled at the start with calls of the measured method, each invocation waits for the
 * oldest call (bounded by the timeout) and records its latency when the call completes, and closing drains it. The
 * service hands out futures the test completes, standing for a client's calls in flight.
 */
@Timeout(30)
class AsyncWindowTest {

    /** Records what was called and keeps every future for the test to complete. */
    static final class Calls implements AsyncUserService {
        final List<String> methods = new ArrayList<>();
        final List<CompletableFuture<?>> futures = new ArrayList<>();

        private <T> CompletableFuture<T> call(String method) {
            CompletableFuture<T> f = new CompletableFuture<>();
            methods.add(method);
            futures.add(f);
            return f;
        }

        @Override
        public CompletableFuture<Boolean> existUser(String email) {
            return call("existUser");
        }

        @Override
        public CompletableFuture<Boolean> createUser(User user) {
            return call("createUser");
        }

        @Override
        public CompletableFuture<User> getUser(long id) {
            return call("getUser");
        }

        @Override
        public CompletableFuture<Page<User>> listUser(int pageNo) {
            return call("listUser");
        }

        @SuppressWarnings("unchecked")
        void complete(int i) {
            ((CompletableFuture<Object>) futures.get(i)).complete(Boolean.TRUE);
        }
    }

    private static AsyncUserServiceBenchmark benchmark(Calls calls, int inflight, int timeoutMs) {
        AsyncUserServiceBenchmark b = new AsyncUserServiceBenchmark();
        b.inflight = inflight;
        b.timeoutMs = timeoutMs;
        b.service = calls;
        return b;
    }

    @Test
    void theWindowStartsFullOfTheMeasuredMethodsCalls() {
        Calls calls = new Calls();
        AsyncUserServiceBenchmark b = benchmark(calls, 3, 1000);
        AsyncUserServiceBenchmark.Window w = new AsyncUserServiceBenchmark.Window();
        w.fill(b, "createUser");
        assertEquals(List.of("createUser", "createUser", "createUser"), calls.methods);
        assertThrows(IllegalArgumentException.class, () -> new AsyncUserServiceBenchmark.Window().fill(b, "nope"));
    }

    @Test
    void anInvocationWaitsForTheOldestCallAndNoLongerThanTheTimeout() throws Exception {
        Calls calls = new Calls();
        AsyncUserServiceBenchmark b = benchmark(calls, 2, 50);
        AsyncUserServiceBenchmark.Window w = new AsyncUserServiceBenchmark.Window();
        w.fill(b, "listUser");
        // nothing completed: the first invocation gives up after the 50 ms call timeout
        assertThrows(TimeoutException.class, () -> b.listUser(w));
        assertEquals(2, calls.futures.size()); // and issued nothing

        CallLatency.reset();
        calls.complete(1); // the younger call finishing does not free the oldest slot
        assertThrows(TimeoutException.class, () -> b.listUser(w));
        calls.complete(0);
        AsyncUserServiceBenchmark.Slot slot = b.listUser(w); // now it returns, and issues a call in the freed slot
        assertEquals(3, calls.futures.size());
        assertEquals(2, CallLatency.snapshot().count()); // both completions were recorded, on completion

        AsyncUserServiceBenchmark.Slot other = b.listUser(w); // the other slot: its call (1) is done
        assertTrue(other != slot);
        assertEquals(4, calls.futures.size());
        calls.complete(2); // the call issued into the first slot
        assertSame(slot, b.listUser(w)); // the slots take turns
        assertEquals(5, calls.futures.size());
    }

    @Test
    void closingDrainsEveryWindowBeforeTheClientGoes() throws Exception {
        Calls calls = new Calls();
        AsyncUserServiceBenchmark b = benchmark(calls, 2, 50);
        AsyncUserServiceBenchmark.Window w1 = new AsyncUserServiceBenchmark.Window();
        AsyncUserServiceBenchmark.Window w2 = new AsyncUserServiceBenchmark.Window();
        w1.fill(b, "existUser");
        w2.fill(b, "getUser");
        for (int i = 0; i < 4; i++) {
            calls.complete(i);
        }
        b.close(); // returns: every call finished
        for (AsyncUserServiceBenchmark.Window w : List.of(w1, w2)) {
            for (AsyncUserServiceBenchmark.Slot s : w.slots) {
                assertTrue(s.done == null);
            }
        }

        Calls stuck = new Calls();
        AsyncUserServiceBenchmark b2 = benchmark(stuck, 1, 50);
        new AsyncUserServiceBenchmark.Window().fill(b2, "existUser");
        assertThrows(TimeoutException.class, b2::close); // a call that never ends is reported, not waited for
    }
}
