package dev.sluice.rpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@link SluiceClient}'s default callback executor, {@link CallbackPool}, with real calls to a real server. */
@Timeout(60)
class CallbackPoolTest {

    public interface Echo {
        CompletableFuture<String> echo(String s);
    }

    /**
     * Answers each call only when the test opens its gate, so that the test's callbacks are attached before the
     * client's future completes (else they would run on the test's own thread).
     */
    static final class GatedEcho implements Echo {
        final Map<String, CompletableFuture<String>> gates = new ConcurrentHashMap<>();

        @Override
        public CompletableFuture<String> echo(String s) {
            return gate(s);
        }

        CompletableFuture<String> gate(String s) {
            return gates.computeIfAbsent(s, k -> new CompletableFuture<>());
        }

        void open(String s) {
            gate(s).complete(s);
        }
    }

    /**
     * More callbacks block than the common pool has threads, each holding the thread that completed its call: a later
     * asynchronous call still completes (the default pool grows while its workers wait), and its callback does not run
     * on an event loop.
     */
    @Test
    void callbacksThatBlockDoNotHoldBackLaterCalls() throws Exception {
        int blocking = ForkJoinPool.getCommonPoolParallelism() + 2;
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch blocked = new CountDownLatch(blocking);
        GatedEcho impl = new GatedEcho();
        try (SluiceServer server = SluiceServer.builder().port(0).register(Echo.class, impl).start();
                SluiceClient client = SluiceClient.builder().address("127.0.0.1", server.port())
                        .timeout(Duration.ofSeconds(30)).build()) {
            Echo echo = client.proxy(Echo.class);
            List<CompletableFuture<Void>> held = new ArrayList<>();
            try {
                for (int i = 0; i < blocking; i++) {
                    held.add(echo.echo("hold-" + i).thenAccept(v -> {
                        blocked.countDown();
                        try {
                            release.await(60, TimeUnit.SECONDS);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    }));
                    impl.open("hold-" + i);
                }
                assertTrue(blocked.await(20, TimeUnit.SECONDS), blocked.getCount() + " of " + blocking
                        + " blocking callbacks never started: the callback executor did not grow");
                CompletableFuture<String> thread = echo.echo("later").thenApply(v -> v + " on "
                        + Thread.currentThread().getName());
                impl.open("later");
                String answer = thread.get(20, TimeUnit.SECONDS);
                assertTrue(answer.startsWith("later on sluice-callback-"), answer);
            } finally {
                release.countDown();
            }
            for (CompletableFuture<Void> f : held) {
                f.get(20, TimeUnit.SECONDS);
            }
            assertEquals(0, release.getCount());
        }
    }
}
