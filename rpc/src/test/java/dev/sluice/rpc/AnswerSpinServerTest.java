package dev.sluice.rpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.transport.NativeTransport;
import dev.sluice.transport.netty.EventLoops;
import dev.sluice.transport.netty.LoopSpin;
import dev.sluice.transport.testing.LoopThreads;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A {@link SluiceServer}'s event loop polls for the answer of a call it handed to the service pool when that call
 * is the only one in flight, and only then: the server's side of {@code TransportOptions.answerSpin}.
 */
@Timeout(60)
class AnswerSpinServerTest {
    /** Long enough that any answer of a pool in a test JVM comes within it. */
    private static final Duration WIDE = Duration.ofMillis(500);

    private final List<AutoCloseable> closeables = new ArrayList<>();
    private final List<EventLoops> groups = new ArrayList<>();
    private long loopTid;

    @AfterEach
    void closeAll() throws Exception {
        for (int i = closeables.size() - 1; i >= 0; i--) {
            closeables.get(i).close();
        }
        for (EventLoops g : groups) {
            g.group().shutdownGracefully(0, 1, TimeUnit.SECONDS).get(10, TimeUnit.SECONDS);
        }
    }

    /** A server on one event loop of its own that polls for up to {@code window}. */
    private EventLoops loops(Duration window) {
        EventLoops g = EventLoops.create(NativeTransport.NIO, 1, "spin-server", window);
        groups.add(g);
        try {
            loopTid = g.group().next().submit(() -> Thread.currentThread().getId()).get(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        return g;
    }

    private ServicePoolServerTest.ProbeService client(SluiceServer.Builder builder) {
        SluiceServer server = builder.port(0).start();
        closeables.add(server);
        SluiceClient client = SluiceClient.builder().address("127.0.0.1", server.port())
                .timeout(Duration.ofSeconds(30)).build();
        closeables.add(client);
        return client.proxy(ServicePoolServerTest.ProbeService.class);
    }

    private static void await(BooleanSupplier condition, String what) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not within 20 s: " + what);
            }
            LockSupport.parkNanos(200_000); // a poll, not synchronisation
        }
    }

    /**
     * A caller's pause between calls, until the server's loop is asleep (its thread used no CPU for 2 ms), as an
     * idle server's is.
     */
    private void pause() {
        LoopThreads.awaitAsleep(loopTid, "the server's loop");
    }

    /**
     * One caller, calls one after another with pauses between them (an idle server), each taking a millisecond in
     * its method: the loop has handed each off and is polling when its answer is written, so every window ends with
     * its answer. Calls answered before the
     * loop looks (a hot worker is that quick on an echo) need no window, and none runs out either.
     */
    @Test
    void eachAnswerOfOneCallerFindsTheServerLoopPolling() {
        EventLoops g = loops(WIDE);
        ServicePoolServerTest.ProbeService probe = client(SluiceServer.builder().eventLoops(g)
                .register(ServicePoolServerTest.ProbeService.class, new ServicePoolServerTest.ProbeImpl()));
        for (int i = 0; i < 20; i++) {
            pause();
            assertEquals("slept", probe.sleep(1));
        }
        LoopSpin.Stats stats = g.answerSpinStats();
        // A request may be read before the worker has counted the previous call out (it does so after writing the
        // answer): that call sees another in flight and gets no window. Rare; most calls must get theirs.
        assertTrue(stats.hits() >= 15, "answers ended their windows: " + stats);
        assertEquals(0, stats.misses(), stats.toString());
        for (int i = 0; i < 20; i++) {
            pause();
            assertEquals("x" + i, probe.echo("x" + i));
        }
        stats = g.answerSpinStats();
        assertEquals(0, stats.misses(), "quick answers: " + stats);
        assertTrue(stats.hits() <= 40, stats.toString());
    }

    /**
     * With another call in flight (one held in the pool) the loop does not poll for the next calls' answers: under
     * load it has other work, and a poll would take a core from the callers.
     */
    @Test
    void callsWithAnotherInFlightDoNotMakeTheLoopPoll() throws Exception {
        EventLoops g = loops(Duration.ofMillis(50));
        ServicePoolServerTest.ProbeImpl impl = new ServicePoolServerTest.ProbeImpl();
        ServicePoolServerTest.ProbeService probe = client(SluiceServer.builder().eventLoops(g)
                .register(ServicePoolServerTest.ProbeService.class, impl));
        assertEquals("connected", probe.echo("connected"));
        pause();
        CompletableFuture<String> held = CompletableFuture.supplyAsync(probe::hold);
        await(() -> impl.holding.get() == 1, "the held call runs");
        // The held call was alone: its window runs out (it waits for release), a miss.
        await(() -> g.answerSpinStats().misses() == 1, "the held call's window runs out");
        LoopSpin.Stats before = g.answerSpinStats();
        for (int i = 0; i < 10; i++) {
            assertEquals("y" + i, probe.echo("y" + i));
        }
        LoopSpin.Stats after = g.answerSpinStats();
        assertEquals(before.hits(), after.hits(), "no window for calls with another in flight: " + after);
        assertEquals(before.misses(), after.misses(), after.toString());
        assertEquals("released", probe.release());
        assertEquals("held", held.get(30, TimeUnit.SECONDS));
    }

    /** A method that blocks for longer than the window: windows run out, halve, and the loop stops polling. */
    @Test
    void aServiceThatBlocksStopsTheLoopPolling() {
        EventLoops g = loops(Duration.ofMillis(1));
        ServicePoolServerTest.ProbeService probe = client(SluiceServer.builder().eventLoops(g)
                .register(ServicePoolServerTest.ProbeService.class, new ServicePoolServerTest.ProbeImpl()));
        int calls = 0;
        while (g.answerSpinStats().windowNanos() > 0 && calls < 50) {
            pause();
            assertEquals("slept", probe.sleep(5));
            calls++;
        }
        LoopSpin.Stats stats = g.answerSpinStats();
        assertEquals(0, stats.windowNanos(), "the loop sleeps at once now: " + stats);
        assertEquals(10, stats.misses(), "1 ms halved until under 1 µs: " + stats);
        assertTrue(calls >= 10, calls + " calls: " + stats); // more when a starved loop saw an answer first
    }

    /**
     * Methods run on the event loop itself (a direct executor): each call is answered before the loop could poll
     * for it, so no window opens, and none runs out after the calls either.
     */
    @Test
    void aDirectExecutorNeverMakesTheLoopPoll() {
        EventLoops g = loops(Duration.ofMillis(20));
        ServicePoolServerTest.ProbeService probe = client(SluiceServer.builder().eventLoops(g).executor(Runnable::run)
                .register(ServicePoolServerTest.ProbeService.class, new ServicePoolServerTest.ProbeImpl()));
        for (int i = 0; i < 10; i++) {
            assertEquals("z" + i, probe.echo("z" + i));
        }
        long after = System.nanoTime();
        await(() -> System.nanoTime() - after > TimeUnit.MILLISECONDS.toNanos(100), "five windows' time passes");
        LoopSpin.Stats stats = g.answerSpinStats();
        assertEquals(0, stats.hits() + stats.misses(), stats.toString());
    }
}
