package dev.sluice.rpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.transport.ConnectionClosedException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * docs/reliability.md D24c: the asynchronous calls of every {@link SluiceClient} in the JVM are timed out by one
 * thread, {@code sluice-client-timeouts}, not one per client; each call still times out by its own client's timeout,
 * and closing one client leaves the others' timeouts running.
 */
@Timeout(60)
class ClientTimeoutThreadTest {
    private static final int CLIENTS = 5;
    /** How late a timeout may fire on a loaded machine; the sweep itself runs every 10 ms. */
    private static final long LATE_MILLIS = 1_500;

    private static long timeoutThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.isAlive() && t.getName().equals("sluice-client-timeouts")).count();
    }

    @Test
    void oneTimeoutThreadServesEveryClientAndEachCallTimesOutByItsOwnClientsTimeout() throws Exception {
        CallbackPoolTest.GatedEcho neverAnswers = new CallbackPoolTest.GatedEcho();
        List<SluiceClient> clients = new ArrayList<>();
        try (SluiceServer server = SluiceServer.builder().port(0).register(CallbackPoolTest.Echo.class, neverAnswers)
                .start()) {
            // client 0 waits longest and is closed while the others' calls wait; 1..4 time out after 1, 2, 3, 4 s
            for (int i = 0; i < CLIENTS; i++) {
                clients.add(SluiceClient.builder().address("127.0.0.1", server.port())
                        .timeout(Duration.ofSeconds(i == 0 ? 30 : i)).failIfNotConnected(true).build());
            }
            List<CompletableFuture<String>> calls = new ArrayList<>();
            List<CompletableFuture<Long>> tookMillis = new ArrayList<>();
            for (int i = 0; i < CLIENTS; i++) {
                long start = System.nanoTime();
                CompletableFuture<String> call = clients.get(i).proxy(CallbackPoolTest.Echo.class).echo("wait-" + i);
                calls.add(call);
                tookMillis.add(call.handle((v, t) -> TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)));
            }
            assertEquals(1, timeoutThreads(), CLIENTS + " clients with asynchronous calls waiting");
            clients.get(0).close();
            ExecutionException closed = assertThrows(ExecutionException.class,
                    () -> calls.get(0).get(10, TimeUnit.SECONDS));
            assertInstanceOf(ConnectionClosedException.class, closed.getCause());
            for (int i = 1; i < CLIENTS; i++) {
                long took = tookMillis.get(i).get(20, TimeUnit.SECONDS);
                ExecutionException e = assertThrows(ExecutionException.class, calls.get(i)::get);
                assertInstanceOf(RpcTimeoutException.class, e.getCause());
                long timeout = TimeUnit.SECONDS.toMillis(i);
                assertTrue(took >= timeout && took < timeout + LATE_MILLIS, "client " + i + "'s call with a "
                        + timeout + " ms timeout timed out after " + took + " ms");
            }
            assertTrue(timeoutThreads() <= 1, timeoutThreads() + " timeout threads");
            neverAnswers.gates.values().forEach(g -> g.complete("late")); // the server need not wait for them
        } finally {
            clients.forEach(SluiceClient::close);
        }
    }
}
