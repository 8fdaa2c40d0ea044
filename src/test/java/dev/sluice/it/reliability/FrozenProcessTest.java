package dev.sluice.it.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.it.harness.ChildProcess;
import dev.sluice.it.harness.ChildResult;
import dev.sluice.it.harness.CountedService;
import dev.sluice.it.harness.CountingServer;
import dev.sluice.it.harness.IsolatedJvm;
import dev.sluice.it.harness.TcpConnections;
import dev.sluice.rpc.RpcTimeoutException;
import dev.sluice.rpc.SluiceClient;
import dev.sluice.rpc.SluiceServer;
import dev.sluice.transport.ConnectionStalledException;
import dev.sluice.transport.NativeTransport;
import dev.sluice.transport.SendState;
import dev.sluice.transport.TransportObserver;
import dev.sluice.transport.TransportOptions;
import dev.sluice.transport.netty.EventLoops;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * docs/reliability.md C17, C18b and D22 / issue 12, with a real frozen process: a JVM stopped with SIGSTOP keeps its
 * sockets open, and the kernel keeps accepting bytes for it until its buffers are full, which is what a hung or
 * paused peer does and what a socket that merely stops reading only imitates.
 * <ul>
 * <li>A {@code SluiceServer} JVM ({@link CountingServer}) frozen while a {@link SluiceClient} calls it: calls in
 * flight end by their own timeout as sent with no response, new calls fail at once, not sent, once the default stall
 * detection marks the connection, and after SIGCONT the same client is served again; the server never runs a call
 * it was told was not sent.
 * <li>A client JVM ({@link StreamingClientMain}) frozen while a {@code SluiceServer} in this JVM streams 64 KiB
 * answers to it: the server stops reading that connection (its requests wait unread in the kernel), its direct
 * memory stays bounded by the pending-bytes cap, another client is served at once, and after SIGCONT it reads
 * again.
 * </ul>
 */
@Timeout(180)
class FrozenProcessTest {
    private static final long MIB = 1 << 20;
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(3);

    private static void assumeAvailable(NativeTransport kind) {
        Assumptions.assumeTrue(EventLoops.resolve(kind) == kind, kind + " is not available on this machine");
    }

    private static Path directory(String name) throws Exception {
        return Files.createDirectories(Paths.get("target", name).toAbsolutePath());
    }

    @ParameterizedTest
    @EnumSource(value = NativeTransport.class, names = {"NIO", "EPOLL"})
    void aServerProcessFrozenMidStreamTimesOutCallsInFlightRefusesNewOnesAndServesAgainAfterContinue(
            NativeTransport kind) throws Exception {
        assumeAvailable(kind);
        int port = Fixtures.freePort();
        CountingServer.Handle server = CountingServer.start("frozen-server-" + kind, kind, port,
                directory("frozen-server-" + kind.name().toLowerCase()), Duration.ofSeconds(150))
                .awaitReady(Duration.ofSeconds(60));
        ChildProcess process = server.process();
        AtomicLong ids = new AtomicLong();
        try (SluiceClient client = SluiceClient.builder().address("127.0.0.1", port).timeout(CALL_TIMEOUT)
                .options(TransportOptions.builder().nativeTransport(kind).build()).failIfNotConnected(true).build()) {
            CountedService s = client.proxy(CountedService.class);
            assertEquals("before", s.echo(ids.incrementAndGet(), "before"));
            // Mid-stream: calls keep flowing from other threads while the process is stopped.
            List<CompletableFuture<String>> stream = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                stream.add(s.async(ids.incrementAndGet(), "stream-" + i));
            }
            process.freeze();
            Set<Long> inFlightIds = new HashSet<>();
            List<CompletableFuture<String>> inFlight = new ArrayList<>();
            long frozenAt = System.nanoTime();
            for (int i = 0; i < 8; i++) {
                long id = ids.incrementAndGet();
                inFlightIds.add(id);
                inFlight.add(s.async(id, "in-flight-" + i));
            }
            // Every call in flight ends by its own timeout, as written to the socket with no response: the frozen
            // kernel-side socket took the bytes.
            for (CompletableFuture<String> f : inFlight) {
                ExecutionException e = assertThrows(ExecutionException.class,
                        () -> f.get(CALL_TIMEOUT.toMillis() + 5_000, TimeUnit.MILLISECONDS));
                RpcTimeoutException timeout = assertInstanceOf(RpcTimeoutException.class, e.getCause());
                assertEquals(SendState.SENT, timeout.sendState(), timeout.getMessage());
                assertTrue(timeout.wasSent());
            }
            long timedOutAfter = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - frozenAt);
            assertTrue(timedOutAfter >= CALL_TIMEOUT.toMillis() - 50, "by their timeout: " + timedOutAfter + " ms");

            // By now the default stall detection (1 s) has marked the connection: new calls fail at once.
            // (A check that runs late because this machine is starved only notes the time, so allow for that.)
            Await.until(client::isStalled, Duration.ofSeconds(10), "stall detection marked the frozen server");
            Set<Long> refusedIds = new HashSet<>();
            for (int i = 0; i < 5; i++) {
                long id = ids.incrementAndGet();
                refusedIds.add(id);
                long start = System.nanoTime();
                ConnectionStalledException e = assertThrows(ConnectionStalledException.class,
                        () -> s.echo(id, "refused"));
                long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                assertTrue(millis < 500, "a stalled connection took " + millis + " ms to refuse a call");
                assertEquals(SendState.NOT_SENT, e.sendState());
                long asyncId = ids.incrementAndGet();
                refusedIds.add(asyncId);
                Throwable refused = null;
                try {
                    s.async(asyncId, "refused-async").get(500, TimeUnit.MILLISECONDS);
                } catch (ConnectionStalledException thrown) { // refused on the calling thread
                    refused = thrown;
                } catch (ExecutionException failed) { // or through the future
                    refused = failed.getCause();
                }
                assertInstanceOf(ConnectionStalledException.class, refused, "an async call is refused at once too");
            }
            for (CompletableFuture<String> f : stream) {
                assertTrue(f.isDone(), "every call made before the freeze has completed, one way or the other");
            }

            process.thaw();
            Await.until(() -> !client.isStalled(), Duration.ofSeconds(20), "the stall cleared after SIGCONT");
            assertTrue(client.isConnected(), "the same connection, never closed");
            for (int i = 0; i < 20; i++) {
                assertEquals("after-" + i, s.echo(ids.incrementAndGet(), "after-" + i));
            }
            process.requestStop();
            ChildResult result = process.awaitExit(Duration.ofSeconds(60));
            result.assertPassed("server-stop");
            Map<Long, Integer> runs = new java.util.HashMap<>();
            for (long id : server.executions()) {
                runs.merge(id, 1, Integer::sum);
            }
            for (long id : refusedIds) {
                assertFalse(runs.containsKey(id), "call " + id + " was refused as not sent, yet the server ran it");
            }
            for (long id : inFlightIds) {
                assertEquals(1, runs.getOrDefault(id, 0), "call " + id + " was sent: it ran once, after SIGCONT");
            }
            runs.forEach((id, n) -> assertEquals(1, n, "call " + id + " ran " + n + " times"));
        } finally {
            if (!process.exited()) {
                process.thaw();
                process.kill();
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = NativeTransport.class, names = {"NIO", "EPOLL"})
    void aClientProcessFrozenWhileTheServerStreamsToItCostsAtMostTheCapAndPausesReadingFromIt(NativeTransport kind)
            throws Exception {
        assumeAvailable(kind);
        long cap = MIB;
        AtomicLong executed = new AtomicLong();
        Path dir = directory("frozen-client-" + kind.name().toLowerCase());
        Path stopFile = dir.resolve("stop");
        Files.deleteIfExists(stopFile);
        TransportOptions options = TransportOptions.builder().nativeTransport(kind).build();
        // Reading paused and resumed, as the server's write queues report it: only the frozen client's connection
        // ever goes over the cap (the bystander reads its answers).
        AtomicLong pauses = new AtomicLong();
        AtomicLong resumes = new AtomicLong();
        TransportObserver readPauses = new TransportObserver() {
            @Override
            public void readingPaused() {
                pauses.incrementAndGet();
            }

            @Override
            public void readingResumed() {
                resumes.incrementAndGet();
            }
        };
        // A fixed 64 KiB send buffer on the server: the kernel cannot take more of the frozen client's answers by
        // growing it, so the server, over its cap, has nothing that would let it read again, and it reads only the
        // few requests whose answers fill that buffer and the cap while many more wait in its socket.
        try (SluiceServer server = SluiceServer.builder().port(0)
                .options(options.toBuilder().pendingBytesCap(cap).socketBuffers(64 * 1024, 0).observer(readPauses)
                        .build())
                .register(CountedService.class, new CountedService.Impl(id -> {
                    if (id > 0) { // the frozen client's calls; the bystander's have id 0
                        executed.incrementAndGet();
                    }
                })).start();
             SluiceClient bystander = SluiceClient.builder().address("127.0.0.1", server.port()).options(options)
                     .timeout(Duration.ofSeconds(10)).failIfNotConnected(true).build()) {
            CountedService s = bystander.proxy(CountedService.class);
            assertEquals("warm", s.echo(0, "warm"));
            Set<Integer> bystanderPorts = TcpConnections.clientPorts(server.port());
            long before = Fixtures.directMemory();
            ChildProcess child = ChildProcess.start(IsolatedJvm.of(StreamingClientMain.class)
                    .name("frozen-client-" + kind).network(IsolatedJvm.Network.HOST).jvmFlags("-Xmx256m")
                    .timeout(Duration.ofSeconds(150))
                    .args(kind.name(), Integer.toString(server.port()), stopFile.toString()), "frozen client",
                            stopFile);
            try {
                Await.until(() -> executed.get() >= 2_000, Duration.ofSeconds(60), "the stream is flowing");
                child.freeze();
                // The frozen client's requests keep arriving until the server stops reading them: bytes wait
                // unread in the server's socket, and stay unread while the server runs on. The known point after
                // which no call of the frozen client can run: its connection's reading is paused (and not resumed
                // since) and every call read before the pause has finished. Only a resume could add one.
                // The frozen process's kernel still takes the server's answers into its receive buffer, and still
                // sends what its send buffer holds, after the process stopped: the server may drain below half its
                // cap and read again (a resume) until those buffers are full. So the point is taken once the state
                // has held still for a second: paused, nothing in flight, no resume, the unread count unchanged.
                int childPort = -1;
                String seen = "";
                long resumesAtPause = -1;
                String still = "";
                long stillSince = System.nanoTime();
                long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (true) {
                    Map<Integer, Long> unread = TcpConnections.unreadBytes(server.port());
                    unread.keySet().removeAll(bystanderPorts);
                    long resumesNow = resumes.get();
                    boolean paused = pauses.get() > resumesNow;
                    seen = "unread bytes by client port " + unread + ", calls run " + executed.get() + ", reading"
                            + " paused " + pauses.get() + " times, resumed " + resumesNow + " times, calls in"
                            + " flight " + server.inFlight() + ", " + server.stats();
                    String state = unread + " " + resumesNow + " " + executed.get();
                    if (!state.equals(still)) {
                        still = state;
                        stillSince = System.nanoTime();
                    }
                    if (unread.size() == 1) {
                        childPort = unread.keySet().iterator().next();
                        if (unread.get(childPort) > 0 && paused && server.inFlight() == 0
                                && resumes.get() == resumesNow
                                && System.nanoTime() - stillSince >= TimeUnit.SECONDS.toNanos(1)) {
                            resumesAtPause = resumesNow;
                            break;
                        }
                    }
                    assertTrue(System.nanoTime() < giveUp, "the server did not stop reading the frozen client"
                            + " within 30 s; last seen: " + seen);
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
                }
                long unreadAtPause = TcpConnections.unreadBytes(server.port()).getOrDefault(childPort, -1L);
                assertTrue(unreadAtPause > 0, "requests wait unread: " + unreadAtPause + " bytes");
                long executedAtPause = executed.get();
                long worst = 0;
                long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
                while (System.nanoTime() < until) {
                    worst = Math.max(worst, Fixtures.directMemory() - before);
                    long start = System.nanoTime();
                    assertEquals("served", s.echo(0, "served"));
                    assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(2), "another client is served"
                            + " promptly");
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
                }
                long unreadLater = TcpConnections.unreadBytes(server.port()).getOrDefault(childPort, -1L);
                System.out.printf("%s: frozen client: %d KiB unread in the server's socket at the pause, %d KiB 3 s"
                        + " later; calls run %d -> %d; direct memory grew at most %d KiB (cap %d KiB)%n", kind,
                        unreadAtPause / 1024, unreadLater / 1024, executedAtPause, executed.get(), worst / 1024,
                        cap / 1024);
                assertEquals(resumesAtPause, resumes.get(), "the frozen client's connection never read again");
                assertEquals(unreadAtPause, unreadLater, "the server did not read the frozen client's connection");
                assertEquals(executedAtPause, executed.get(), "no request of the frozen client"
                        + " was read");
                // The cap, plus the pooled allocator's granularity: it takes memory in 4 MiB chunks, per arena.
                assertTrue(worst < 12 * MIB, "direct memory bounded by the cap: grew " + worst / 1024 + " KiB");

                child.thaw();
                Await.until(() -> executed.get() > executedAtPause + 500, Duration.ofSeconds(30),
                        "the server reads the client again once it reads its answers");
                child.requestStop();
                ChildResult result = child.awaitExit(Duration.ofSeconds(120));
                result.assertPassed("client");
                System.out.println(kind + ": frozen client after SIGCONT: " + result.result("client").orElseThrow());
                assertTrue(result.longMetric("client", "ok") > 0, "the client was served again after SIGCONT");
            } finally {
                if (!child.exited()) {
                    child.thaw();
                    child.kill();
                }
            }
        }
    }

}
