package dev.sluice.dubbo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.transport.TransportOptions;
import dev.sluice.transport.netty.NettyConnection;
import dev.sluice.transport.netty.PausableProxy;
import dev.sluice.transport.netty.StallMarks;
import io.netty.util.concurrent.EventExecutor;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.apache.dubbo.common.URL;
import org.apache.dubbo.remoting.Constants;
import org.apache.dubbo.remoting.RemotingException;
import org.apache.dubbo.remoting.exchange.ExchangeChannel;
import org.apache.dubbo.remoting.exchange.ExchangeClient;
import org.apache.dubbo.remoting.exchange.ExchangeServer;
import org.apache.dubbo.remoting.exchange.Exchangers;
import org.apache.dubbo.remoting.exchange.support.ExchangeHandlerAdapter;
import org.apache.dubbo.remoting.exchange.support.header.HeaderExchangeServer;
import org.apache.dubbo.rpc.model.FrameworkModel;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 18: {@code sluice.stall-timeout} inside Dubbo. A provider that takes requests and answers nothing (a
 * {@link PausableProxy} holding back its answers, as a frozen process would) makes the client channel report Dubbo's
 * readonly attribute, which {@code DubboInvoker.isAvailable()} reads through {@link ExchangeClient#hasAttribute};
 * the first byte read clears it. A provider that is only slow (a long method, a saturated pool) answers the
 * heartbeat probe on its I/O thread and is never reported. Real Dubbo exchange layers on both sides, server and
 * client on the {@code sluice} Transporter.
 */
@Timeout(60)
class StallDetectionTest {
    private static final long STALL_MS = 200;
    /**
     * The consumer-pause test's stall timeout: long enough that the test thread surely holds the consumer's loops
     * before a probe it saw go out is due, on a loaded machine too.
     */
    private static final long PAUSE_TEST_STALL_MS = 1_000;

    private final AtomicInteger running = new AtomicInteger();
    private final AtomicInteger maxRunning = new AtomicInteger();
    private ExchangeServer server;
    private PausableProxy proxy;
    private ExchangeClient client;
    private int serverPort;
    /** Further clients of the same server, each through its own proxy ({@link #startThreeSilent}). */
    private final List<ExchangeClient> moreClients = new ArrayList<>();
    private final List<PausableProxy> moreProxies = new ArrayList<>();

    @AfterEach
    void close() throws Exception {
        for (ExchangeClient c : moreClients) {
            c.close();
        }
        for (PausableProxy p : moreProxies) {
            p.close();
        }
        if (client != null) {
            client.close();
        }
        if (proxy != null) {
            proxy.close();
        }
        if (server != null) {
            server.close();
        }
    }

    /** A provider whose reply to "sleep:N" takes N ms on its service pool, and a client through a proxy. */
    private void start(String serverParams, String clientParams) throws Exception {
        int port;
        try (ServerSocket probe = new ServerSocket(0)) {
            port = probe.getLocalPort();
        }
        serverPort = port;
        server = Exchangers.bind(URL.valueOf("dubbo://127.0.0.1:" + port + "/stall?server=sluice&codec=exchange"
                + "&serialization=fastjson2&heartbeat=0" + serverParams),
                new ExchangeHandlerAdapter(FrameworkModel.defaultModel()) {
                    @Override
                    public CompletableFuture<Object> reply(ExchangeChannel channel, Object request)
                            throws RemotingException {
                        int now = running.incrementAndGet();
                        maxRunning.accumulateAndGet(now, Math::max);
                        try {
                            String text = String.valueOf(request);
                            if (text.startsWith("sleep:")) {
                                // The condition under test: a service method that legitimately runs this long.
                                Thread.sleep(Long.parseLong(text.substring(6)));
                            }
                            return CompletableFuture.completedFuture("done:" + text);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                            return CompletableFuture.completedFuture("interrupted");
                        } finally {
                            running.decrementAndGet();
                        }
                    }
                });
        proxy = new PausableProxy(new InetSocketAddress("127.0.0.1", port));
        client = connect(proxy, clientParams);
    }

    /** A client of the server through {@code via}, warmed up by one call. */
    private static ExchangeClient connect(PausableProxy via, String clientParams) throws Exception {
        ExchangeClient c = Exchangers.connect(URL.valueOf("dubbo://127.0.0.1:" + via.port() + "/stall?client=sluice"
                + "&codec=exchange&serialization=fastjson2&heartbeat=0&timeout=10000" + clientParams),
                new ExchangeHandlerAdapter(FrameworkModel.defaultModel()) { });
        assertEquals("done:warm", c.request("warm", 5_000).get(5, TimeUnit.SECONDS));
        return c;
    }

    /**
     * Three clients of one provider, each through its own proxy, with stall detection on; every proxy holds back
     * the answers from now on, and each client has a call out.
     */
    private List<CompletableFuture<Object>> startThreeSilent(long stallMs) throws Exception {
        startThree(stallMs);
        proxies().forEach(PausableProxy::pause);
        return callOnEach();
    }

    /** Three clients of one provider, each through its own proxy, with stall detection on. */
    private void startThree(long stallMs) throws Exception {
        String params = "&sluice.stall-timeout=" + stallMs;
        start("", params);
        for (int i = 0; i < 2; i++) {
            PausableProxy p = new PausableProxy(new InetSocketAddress("127.0.0.1", serverPort));
            moreProxies.add(p);
            moreClients.add(connect(p, params));
        }
    }

    private List<CompletableFuture<Object>> callOnEach() throws RemotingException {
        List<CompletableFuture<Object>> calls = new ArrayList<>();
        for (ExchangeClient c : clients()) {
            calls.add(c.request("fast", 10_000));
        }
        return calls;
    }

    private List<ExchangeClient> clients() {
        List<ExchangeClient> all = new ArrayList<>(moreClients);
        all.add(0, client);
        return all;
    }

    private List<PausableProxy> proxies() {
        List<PausableProxy> all = new ArrayList<>(moreProxies);
        all.add(0, proxy);
        return all;
    }

    /** Holds each of {@code loops} (a task that waits for {@code release}); returns once all are held. */
    private static void hold(List<EventExecutor> loops, CountDownLatch release, String what) throws Exception {
        CountDownLatch held = new CountDownLatch(loops.size());
        for (EventExecutor loop : loops) {
            loop.execute(() -> {
                held.countDown();
                try {
                    release.await(20, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
        }
        assertTrue(held.await(5, TimeUnit.SECONDS), what + " were not all held");
    }

    /** Watches the three clients for {@code millis}; fails if more than one is unavailable at any time. */
    private void atMostOneUnavailableFor(long millis) {
        long watchEnd = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        while (System.nanoTime() < watchEnd) {
            long unavailable = clients().stream().filter(StallDetectionTest::unavailable).count();
            assertTrue(unavailable <= 1, unavailable + " of 3 connections reported unavailable at once");
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
        }
    }

    private static boolean unavailable(ExchangeClient c) {
        return c.hasAttribute(Constants.CHANNEL_ATTRIBUTE_READONLY_KEY);
    }

    private boolean unavailable() {
        // What DubboInvoker.isAvailable() reads, besides isConnected().
        return client.hasAttribute(Constants.CHANNEL_ATTRIBUTE_READONLY_KEY);
    }

    /** Watches the client until {@code done}; fails if it ever reported itself unavailable meanwhile. */
    private void neverUnavailableUntil(BooleanSupplier done) {
        while (!done.getAsBoolean()) {
            assertFalse(unavailable(), "a slow but live provider was reported stalled");
            assertTrue(client.isConnected());
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
        }
    }

    private static long awaitMillis(BooleanSupplier condition, long limitMillis) {
        long start = System.nanoTime();
        long deadline = start + TimeUnit.MILLISECONDS.toNanos(limitMillis);
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "condition not reached within " + limitMillis + " ms");
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2));
        }
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    }

    @Test
    void methodRunningSecondsWithNoOtherTrafficAnswersTheProbeAndIsNeverStalled() throws Exception {
        start("", "&sluice.stall-timeout=" + STALL_MS);
        CompletableFuture<Object> slow = client.request("sleep:2500", 10_000);
        neverUnavailableUntil(slow::isDone);
        assertEquals("done:sleep:2500", slow.get());
        assertTrue(proxy.heartbeatsFromClient() >= 1,
                "no heartbeat probe was sent during 2.5 s of silence; the test did not exercise the probe");
    }

    @Test
    void saturatedServicePoolAnswersTheProbeAndIsNeverStalled() throws Exception {
        start("&threadpool=fixed&threads=1&queues=100", "&sluice.stall-timeout=" + STALL_MS);
        List<CompletableFuture<Object>> calls = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            calls.add(client.request("sleep:800", 10_000));
        }
        CompletableFuture<Void> all = CompletableFuture.allOf(calls.toArray(new CompletableFuture<?>[0]));
        neverUnavailableUntil(all::isDone);
        for (CompletableFuture<Object> c : calls) {
            assertEquals("done:sleep:800", c.get());
        }
        assertEquals(1, maxRunning.get(), "the pool was not saturated: calls ran in parallel");
        assertTrue(proxy.heartbeatsFromClient() >= 1, "no heartbeat probe was sent while calls waited in the queue");
    }

    @Test
    void providerThatStopsAnsweringIsUnavailableWithinTheTimeoutAndTheFirstByteClearsIt() throws Exception {
        start("", "&sluice.stall-timeout=" + STALL_MS);
        proxy.pause();
        CompletableFuture<Object> inFlight = client.request("fast", 10_000);
        long millis = awaitMillis(this::unavailable, 5_000);
        // Probe after STALL_MS of silence, stalled STALL_MS later; checks every STALL_MS / 5. Loaded machine: slack.
        assertTrue(millis >= 2 * STALL_MS - 20 && millis < 2 * STALL_MS + 1_500,
                "stalled after " + millis + " ms with a stall timeout of " + STALL_MS + " ms");
        assertTrue(client.isConnected(), "a stalled channel stays connected: Dubbo's reconnect timer is not involved");
        assertTrue(proxy.heartbeatsFromClient() >= 1, "stalled without a probe");
        assertFalse(inFlight.isDone(), "the call in flight must keep its own timeout: " + inFlight);

        proxy.resume();
        assertEquals("done:fast", inFlight.get(5, TimeUnit.SECONDS));
        awaitMillis(() -> !unavailable(), 5_000);
        assertEquals("done:again", client.request("again", 5_000).get(5, TimeUnit.SECONDS));
    }

    @Test
    void withTheOptionOffASilentProviderIsNeitherProbedNorReported() throws Exception {
        start("", "");
        proxy.pause();
        CompletableFuture<Object> call = client.request("fast", 1_000);
        // Its timeout (1 s, five stall timeouts) is the wait: the call fails, nothing else happened meanwhile.
        assertTrue(call.handle((v, t) -> t != null).get(5, TimeUnit.SECONDS), "the call was answered");
        assertFalse(unavailable());
        assertEquals(0, proxy.heartbeatsFromClient());
    }

    /**
     * The consumer itself pauses (its I/O threads all held, as in a stop-the-world pause or a starved CPU) for three
     * stall timeouts, just after its probes went out on three connections; the providers answer meanwhile, and
     * their answers wait in the consumer's sockets. When the consumer runs again it must read them before it
     * judges: nothing may be marked stalled, not even for a moment (Dubbo keeps an invoker it saw unavailable out
     * for about a second).
     */
    @Test
    void consumerEventLoopsPausedLongerThanTheStallTimeoutMarkNoConnectionStalled() throws Exception {
        long marksBefore = StallMarks.total();
        // The answers are held back only until the consumer is paused: they then arrive while it is paused.
        List<CompletableFuture<Object>> calls = startThreeSilent(PAUSE_TEST_STALL_MS);
        awaitMillis(() -> proxies().stream().allMatch(p -> p.heartbeatsFromClient() >= 1), 10_000);

        TransportOptions options = DubboUrlOptions.client(URL.valueOf("dubbo://127.0.0.1:1/stall?client=sluice"));
        SharedClientLoops.Lease lease = SharedClientLoops.acquire(options.nativeTransport(), options.ioThreads());
        CountDownLatch release = new CountDownLatch(1);
        try {
            List<EventExecutor> loops = new ArrayList<>();
            lease.eventLoops().group().forEach(loops::add);
            hold(loops, release, "the consumer's event loops");
            proxies().forEach(PausableProxy::resume);
            long pauseEnd = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(3 * PAUSE_TEST_STALL_MS);
            while (System.nanoTime() < pauseEnd) {
                // The condition under test is the length of the consumer's pause, not a wait for an event.
                LockSupport.parkNanos(pauseEnd - System.nanoTime());
            }
        } finally {
            release.countDown();
            lease.release();
        }
        for (CompletableFuture<Object> c : calls) {
            assertEquals("done:fast", c.get(5, TimeUnit.SECONDS));
        }
        assertEquals(marksBefore, StallMarks.total(), "the consumer's own pause was taken for its providers' stall");
        clients().forEach(c -> assertFalse(unavailable(c)));
    }

    /**
     * Every provider goes silent at once (answers held back on all three connections: what a machine whose processes
     * are all starved looks like, or this consumer's own network). At most one of the three (half, rounded down) is
     * marked stalled, never all: Dubbo must keep a provider to call. The first byte read clears the one marked.
     */
    @Test
    void everyProviderSilentAtOnceIsNeverAllStalled() throws Exception {
        long marksBefore = StallMarks.total();
        List<CompletableFuture<Object>> calls = startThreeSilent(STALL_MS);
        awaitMillis(() -> StallMarks.total() > marksBefore, 5_000);
        // Every connection has now been silent past its probe for long enough to be judged at least twice more.
        atMostOneUnavailableFor(5 * STALL_MS);
        assertEquals(1, StallMarks.total() - marksBefore, "marked stalled: " + (StallMarks.total() - marksBefore));
        assertTrue(proxies().stream().filter(p -> p.heartbeatsFromClient() >= 2).count() >= 2,
                "the connections not marked must keep probing");
        proxies().forEach(PausableProxy::resume);
        for (CompletableFuture<Object> c : calls) {
            assertEquals("done:fast", c.get(5, TimeUnit.SECONDS));
        }
        awaitMillis(() -> clients().stream().noneMatch(StallDetectionTest::unavailable), 5_000);
    }

    /**
     * The provider's own I/O threads are held (what a provider starved of CPU, or stopped and continued, looks like:
     * it reads and answers nothing, heartbeats included) for several stall timeouts while three connections wait
     * for it. At most one of the three is marked, never all; once the threads run again, all answer.
     */
    @Test
    void providerWithItsIoThreadsHeldIsNeverStalledOnAllConnectionsAtOnce() throws Exception {
        startThree(STALL_MS);
        long marksBefore = StallMarks.total();
        List<EventExecutor> providerLoops = new ArrayList<>();
        for (org.apache.dubbo.remoting.Channel ch : ((HeaderExchangeServer) server).getServer().getChannels()) {
            EventExecutor loop = ((NettyConnection) ((SluiceChannel) ch).connection()).channel().eventLoop();
            if (!providerLoops.contains(loop)) {
                providerLoops.add(loop);
            }
        }
        assertFalse(providerLoops.isEmpty(), "no provider connection found");
        CountDownLatch release = new CountDownLatch(1);
        List<CompletableFuture<Object>> calls;
        try {
            hold(providerLoops, release, "the provider's I/O threads");
            calls = callOnEach();
            awaitMillis(() -> StallMarks.total() > marksBefore, 5_000);
            atMostOneUnavailableFor(5 * STALL_MS);
        } finally {
            release.countDown();
        }
        assertEquals(1, StallMarks.total() - marksBefore);
        for (CompletableFuture<Object> c : calls) {
            assertEquals("done:fast", c.get(5, TimeUnit.SECONDS));
        }
        awaitMillis(() -> clients().stream().noneMatch(StallDetectionTest::unavailable), 5_000);
    }
}
