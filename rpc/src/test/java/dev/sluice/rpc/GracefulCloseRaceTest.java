package dev.sluice.rpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * docs/reliability.md E25e: a graceful close racing incoming calls never runs a call it then cannot answer. Every
 * call either ran and its caller got the value, or was refused and never ran.
 *
 * <p>The race is between the event loop admitting a request and {@code close()} reading how many calls are in
 * flight. Its window is a few instructions wide, so the test puts the close inside it: a hook the server runs on the
 * event loop after a request passed every check and before it is counted calls {@code close()} there, for the first
 * request of each round. A burst of calls from several threads follows it on the same connection. The service is
 * gated: a call that runs blocks until every caller has its outcome, so a call that slipped past the close is
 * answered only after the connection is gone, never by luck of timing.
 */
@Timeout(120)
class GracefulCloseRaceTest {
    private static final int ROUNDS = 12;
    private static final int CALLS = 6;

    public interface Gate {
        String pass(int id);
    }

    static final class GateImpl implements Gate {
        final Set<Integer> ran = ConcurrentHashMap.newKeySet();
        final CountDownLatch release = new CountDownLatch(1);

        @Override
        public String pass(int id) {
            ran.add(id);
            try {
                release.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return "ran-" + id;
        }
    }

    private final ExecutorService callers = Executors.newCachedThreadPool();

    @AfterEach
    void stopCallers() {
        callers.shutdownNow();
    }

    @Test
    void aCallRacingAGracefulCloseRunsAndIsAnsweredOrIsRefusedWithoutRunning() throws Exception {
        for (int round = 0; round < ROUNDS; round++) {
            GateImpl impl = new GateImpl();
            AtomicBoolean armed = new AtomicBoolean(true);
            AtomicReference<CompletableFuture<Void>> closing = new AtomicReference<>();
            AtomicReference<SluiceServer> started = new AtomicReference<>();
            SluiceServer server = SluiceServer.builder().port(0).register(Gate.class, impl)
                    .beforeCounting(() -> {
                        if (armed.compareAndSet(true, false)) {
                            closing.set(started.get().close(Duration.ofSeconds(20)));
                        }
                    }).start();
            started.set(server); // before any call is made: the hook runs only for a request
            Map<Integer, Object> outcomes = new ConcurrentHashMap<>();
            try (SluiceClient client = SluiceClient.builder().address("127.0.0.1", server.port())
                    .timeout(Duration.ofSeconds(20)).failIfNotConnected(false).build()) {
                Gate gate = client.proxy(Gate.class);
                CountDownLatch go = new CountDownLatch(1);
                List<Future<?>> calls = new ArrayList<>();
                for (int i = 0; i < CALLS; i++) {
                    int id = i;
                    calls.add(callers.submit(() -> {
                        go.await();
                        try {
                            outcomes.put(id, gate.pass(id));
                        } catch (RuntimeException e) {
                            outcomes.put(id, e);
                        }
                        return null;
                    }));
                }
                go.countDown();
                for (Future<?> f : calls) {
                    f.get(60, TimeUnit.SECONDS);
                }
                impl.release.countDown(); // every caller has its outcome: a call still running may answer now
                assertNotNull(closing.get(), "round " + round + ": a request reached the hook");
                closing.get().get(30, TimeUnit.SECONDS);
            } finally {
                impl.release.countDown();
                server.close(Duration.ZERO).get(30, TimeUnit.SECONDS);
            }
            assertEquals(CALLS, outcomes.size());
            for (Map.Entry<Integer, Object> e : outcomes.entrySet()) {
                int id = e.getKey();
                Object outcome = e.getValue();
                if (impl.ran.contains(id)) {
                    assertEquals("ran-" + id, outcome, "round " + round + ": call " + id
                            + " ran, and its caller got no answer: " + outcome);
                } else {
                    assertTrue(outcome instanceof RuntimeException, "round " + round + ": call " + id
                            + " never ran, yet was answered: " + outcome);
                }
            }
            assertEquals(0, server.inFlight(), "round " + round + ": nothing left counted in flight");
        }
    }
}
