package dev.sluice.it.reliability;

import dev.sluice.it.harness.DubboPeers;
import dev.sluice.it.harness.Scenario;
import dev.sluice.transport.internal.ServicePool;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.dubbo.common.URL;
import org.apache.dubbo.common.threadpool.manager.ExecutorRepository;
import org.apache.dubbo.config.ProtocolConfig;
import org.apache.dubbo.config.ReferenceConfig;
import org.apache.dubbo.config.ServiceConfig;
import org.apache.dubbo.config.bootstrap.DubboBootstrap;
import org.apache.dubbo.remoting.RemotingServer;
import org.apache.dubbo.rpc.ProtocolServer;
import org.apache.dubbo.rpc.model.FrameworkModel;
import org.apache.dubbo.rpc.protocol.dubbo.DubboProtocol;

/**
 * Child-JVM scenarios (run by {@link DubboAdapterShutdownTest}, {@link DubboAdapterMatrixTest} and
 * {@link DubboThreadPoolTest}) for the {@code sluice} Transporter (and the {@code sluice} ThreadPool) under a real
 * Dubbo 3.3.6 provider, with real Dubbo consumers. Argument 0 picks one:
 * <ul>
 *   <li>{@code graceful}: a consumer stops reading (a {@link HoldingProxy} between it and the provider stops reading
 *       the provider's answers) while {@value #GRACEFUL_CALLS} calls of {@value #GRACEFUL_CHARS} chars each run, far
 *       more than the socket buffers on the way hold; the provider is stopped gracefully; once it refuses new
 *       connections (its transport is closing) the consumer reads again. Every call that ran must complete with its
 *       whole answer. Result {@code graceful} (calls, queuedBytes, buffersBytes, closeMs);</li>
 *   <li>{@code frozen}: a consumer in a process of its own ({@link FrozenConsumerMain}) streams large answers and is
 *       stopped with SIGSTOP for {@value #FREEZE_MS} ms, in a namespace whose socket buffers are shrunk so that the
 *       answers must wait in the provider. The provider's direct memory (Netty's pooled arenas) must stay within its
 *       {@code sluice.pending-bytes} cap plus a margin, and another consumer must be served all along; after SIGCONT
 *       the frozen consumer is answered again, and after SIGKILL its connection is gone from the provider. Result
 *       {@code frozen} (growthKiB, otherCalls, otherMaxMs, ...);</li>
 *   <li>{@code native <NIO|EPOLL|IO_URING>...}: for each kind, provider and consumer on {@code sluice.native=<kind>}:
 *       the provider's calls run on an event loop of that kind, concurrent calls and 1 MiB answers complete, and a
 *       connection that sends bytes without Dubbo's magic is closed while the consumer keeps being served. Result
 *       {@code native.<kind>} (calls).</li>
 *   <li>{@code limits}: a provider with {@code sluice.frame-timeout} and {@code sluice.max-connections-per-address}
 *       set on its {@code ProtocolConfig}: a peer that sends a header and trickles the body is closed after the frame
 *       timeout, a connection past the per-address limit is closed as it is accepted, and a real Dubbo consumer is
 *       served throughout. Result {@code limits} (trickleClosedMs, bytesTrickled).</li>
 *   <li>{@code pool}: providers on {@code threadpool=sluice} ({@link PoolService}): a {@code server=sluice} one with
 *       {@code threads=}{@value #POOL_THREADS} {@code queues=}{@value #POOL_QUEUES} serves a netty4 and a sluice
 *       consumer on its pool's workers; {@value #POOL_NAPPERS} callers of a method that sleeps 5 ms do not starve a
 *       fast one; calls that block grow the pool to {@code threads}, {@code threads + queues} of them are taken and
 *       the rest refused with Dubbo's "thread pool is exhausted" at the consumer; a {@code server=netty4} provider on
 *       the pool serves a sluice and a netty4 consumer. Results {@code pool.sluice-provider}, {@code pool.blocking},
 *       {@code pool.exhausted}, {@code pool.netty4-provider}.</li>
 * </ul>
 */
public final class DubboAdapterScenario {
    static final int GRACEFUL_CALLS = 48;
    static final int GRACEFUL_CHARS = 512 * 1024;
    static final int FREEZE_MS = 3_000;
    /** Callers of the frozen consumer, and the size of each answer: 16 MiB of answers on their way at any time. */
    static final int FROZEN_CALLERS = 32;
    static final int FROZEN_CHARS = 512 * 1024;
    static final long PENDING_CAP = 2L * 1024 * 1024;
    /** The largest socket buffer in the frozen case's namespace. */
    static final long SMALL_SOCKET_BUFFER = 256 * 1024;
    /** Allowed growth of the provider's direct memory beyond its pending-bytes cap while a consumer is frozen. */
    static final long FROZEN_MARGIN = 6L * 1024 * 1024;
    private static final long MIB = 1024 * 1024;
    /** The limits case's {@code sluice.frame-timeout}. */
    static final long LIMITS_FRAME_TIMEOUT_MS = 500;
    /** The limits case's {@code sluice.max-connections-per-address}. */
    static final int LIMITS_PER_ADDRESS = 4;

    private final String host = Scenario.testAddress();
    private final List<Runnable> stops = new ArrayList<>();

    private DubboAdapterScenario() {
    }

    public static void main(String[] args) {
        // Graceful case: Dubbo's server waits this long for consumers to leave, then the transport as long again for
        // each connection to flush what is queued.
        System.setProperty("dubbo.service.shutdown.wait", "4000");
        Scenario.run(() -> {
            DubboPeers.quietDefaults();
            DubboAdapterScenario scenario = new DubboAdapterScenario();
            try {
                switch (args[0]) {
                    case "graceful":
                        scenario.graceful();
                        break;
                    case "frozen":
                        scenario.frozen();
                        break;
                    case "limits":
                        scenario.limits();
                        break;
                    case "pool":
                        scenario.pool();
                        break;
                    case "native":
                        for (int i = 1; i < args.length; i++) {
                            scenario.nativeTransport(args[i]);
                        }
                        break;
                    default:
                        throw new IllegalArgumentException("unknown case " + args[0]);
                }
            } finally {
                for (int i = scenario.stops.size() - 1; i >= 0; i--) {
                    scenario.stops.get(i).run();
                }
            }
        });
    }

    private void graceful() throws Exception {
        BlobService.Impl impl = new BlobService.Impl();
        int port = DubboPeers.freePort();
        Provider provider = new Provider(port, Map.of(), impl);
        HoldingProxy proxy = new HoldingProxy(new InetSocketAddress(host, port));
        stops.add(() -> closeQuietly(proxy));
        BlobService blobs = consumer("netty4", proxy.port(), 30_000, Map.of());
        require(blobs.blob(10).length() == 10, "warm-up call");
        int warm = impl.ran.get();

        proxy.hold();
        ExecutorService callers = Executors.newFixedThreadPool(GRACEFUL_CALLS);
        stops.add(callers::shutdownNow);
        List<Future<String>> calls = new ArrayList<>();
        for (int i = 0; i < GRACEFUL_CALLS; i++) {
            calls.add(callers.submit(() -> blobs.blob(GRACEFUL_CHARS)));
        }
        Await.until(() -> impl.ran.get() == warm + GRACEFUL_CALLS, Duration.ofSeconds(30),
                "every call ran on the provider");
        for (Future<String> call : calls) {
            require(!call.isDone(), "an answer reached the consumer through the paused proxy");
        }
        long queued = (long) GRACEFUL_CALLS * GRACEFUL_CHARS;
        long buffers = socketBufferMax("tcp_wmem") + 2 * HoldingProxy.RECEIVE_BUFFER + HoldingProxy.CHUNK;
        require(queued > 2 * buffers, "the answers (" + queued + " bytes) would fit in the socket buffers on the way ("
                + buffers + " bytes): nothing would be left queued in the provider when it closes");

        long t0 = System.nanoTime();
        CompletableFuture<Void> stopped = CompletableFuture.runAsync(provider::stop);
        // Dubbo first sends the readonly event (held back too: it gives up after its timeout) and waits for the
        // consumers to leave; then the transport closes its listener and each connection after a flush.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!refusesConnections(port)) {
            require(System.nanoTime() < deadline, "the provider's transport did not begin to close within 30 s");
            java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
        }
        require(!stopped.isDone(), "the provider finished stopping while its answers were still held back");
        proxy.release();
        int completed = 0;
        for (Future<String> call : calls) {
            String answer = call.get(30, TimeUnit.SECONDS);
            require(answer.length() == GRACEFUL_CHARS, "an answer of " + answer.length() + " chars");
            completed++;
        }
        stopped.get(30, TimeUnit.SECONDS);
        Scenario.ok("graceful", "calls", completed, "queuedBytes", queued, "buffersBytes", buffers, "closeMs",
                millisSince(t0));
    }

    private void frozen() throws Exception {
        // Small socket buffers in this private namespace (the machine's own are untouched), so the answers to a
        // frozen consumer cannot all vanish into its kernel buffers: most of them must wait in the provider.
        require("namespace".equals(Scenario.network()), "the frozen case needs a private network namespace");
        long kernel = 0;
        for (String name : List.of("tcp_rmem", "tcp_wmem")) {
            Files.writeString(Paths.get("/proc/sys/net/ipv4/" + name), "4096 65536 " + SMALL_SOCKET_BUFFER);
            kernel += socketBufferMax(name);
        }
        long outstanding = (long) FROZEN_CALLERS * FROZEN_CHARS;
        require(outstanding > 2 * (kernel + PENDING_CAP), "the answers on their way (" + outstanding
                + " bytes) would fit in the socket buffers and the cap");
        BlobService.Impl impl = new BlobService.Impl();
        int port = DubboPeers.freePort();
        Provider provider = new Provider(port, Map.of("sluice.pending-bytes", Long.toString(PENDING_CAP)), impl);
        BlobService other = consumer("netty4", port, 5_000, Map.of());
        for (int i = 0; i < 20; i++) {
            require(other.blob(64 * 1024).length() == 64 * 1024, "warm-up call");
        }
        System.gc();
        long before = Fixtures.directMemory();

        Path java = Paths.get(System.getProperty("java.home"), "bin", "java");
        Process consumer = new ProcessBuilder(java.toString(), "-Xmx512m", "-cp", System.getProperty("java.class.path"),
                FrozenConsumerMain.class.getName(), host, Integer.toString(port), Integer.toString(FROZEN_CALLERS),
                Integer.toString(FROZEN_CHARS))
                .redirectErrorStream(true).start();
        stops.add(consumer::destroyForcibly);
        Lines lines = new Lines(consumer.getInputStream());
        lines.awaitDoneAbove(FROZEN_CALLERS, Duration.ofSeconds(60));
        require(channels(provider) == 2, "expected two consumer connections, found " + channels(provider));

        signal("STOP", consumer.pid());
        long frozenAt = impl.ran.get();
        long worst = 0;
        int otherCalls = 0;
        long otherMaxNanos = 0;
        long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(FREEZE_MS);
        while (System.nanoTime() < until) {
            long t = System.nanoTime();
            require(other.blob(64 * 1024).length() == 64 * 1024, "a call of the other consumer during the freeze");
            otherMaxNanos = Math.max(otherMaxNanos, System.nanoTime() - t);
            otherCalls++;
            worst = Math.max(worst, Fixtures.directMemory() - before);
        }
        long ranDuringFreeze = impl.ran.get() - frozenAt - otherCalls;
        require(worst < PENDING_CAP + FROZEN_MARGIN, "the provider's direct memory grew by " + worst / MIB
                + " MiB while a consumer was frozen (cap " + PENDING_CAP / MIB + " MiB + margin "
                + FROZEN_MARGIN / MIB + " MiB)");
        // Every call of the other consumer succeeded (each within its 5 s timeout); their worst time is reported, not
        // bounded more tightly, as it mostly measures the machine's load.
        require(otherCalls >= 10, "the other consumer made only " + otherCalls + " calls in " + FREEZE_MS + " ms");

        long answered = lines.lastDone();
        signal("CONT", consumer.pid());
        lines.awaitDoneAbove(answered, Duration.ofSeconds(30));
        signal("KILL", consumer.pid());
        require(consumer.waitFor(10, TimeUnit.SECONDS), "the consumer process did not die");
        Await.until(() -> channels(provider) == 1, Duration.ofSeconds(10),
                "the killed consumer's connection is gone from the provider");
        require(other.blob(1000).length() == 1000, "the other consumer after the kill");
        Scenario.ok("frozen", "growthKiB", worst / 1024, "outstandingMiB", outstanding / MIB, "capMiB",
                PENDING_CAP / MIB, "otherCalls", otherCalls,
                "otherMaxMs", TimeUnit.NANOSECONDS.toMillis(otherMaxNanos), "ranDuringFreeze", ranDuringFreeze,
                "answeredBeforeFreeze", answered, "beforeKiB", before / 1024, "answeredAfterThaw", lines.lastDone());
    }

    private void nativeTransport(String kind) throws Exception {
        BlobService.Impl impl = new BlobService.Impl();
        int port = DubboPeers.freePort();
        Map<String, String> params = Map.of("sluice.native", kind.toLowerCase(java.util.Locale.ROOT));
        Map<String, String> provider = new java.util.HashMap<>(params);
        provider.put("dispatcher", "direct"); // calls run on the I/O thread, so ioTransport() can see its kind
        new Provider(port, provider, impl);
        BlobService blobs = consumer("sluice", port, 10_000, params);
        String served = blobs.ioTransport();
        require(kind.equals(served), "asked for " + kind + ", the provider's calls ran on " + served);

        ExecutorService callers = Executors.newFixedThreadPool(16);
        stops.add(callers::shutdownNow);
        List<Future<Integer>> results = new ArrayList<>();
        for (int t = 0; t < 16; t++) {
            int salt = t;
            results.add(callers.submit(() -> {
                int ok = 0;
                for (int i = 0; i < 100; i++) {
                    int chars = 1 + (salt * 100 + i) % 4096;
                    ok += blobs.blob(chars).length() == chars ? 1 : 0;
                }
                return ok;
            }));
        }
        int ok = 0;
        for (Future<Integer> r : results) {
            ok += r.get(60, TimeUnit.SECONDS);
        }
        require(ok == 1600, "concurrent calls: " + ok + " of 1600 answered correctly");
        require(blobs.blob(1 << 20).length() == 1 << 20, "a 1 MiB answer");

        try (Socket garbage = new Socket()) {
            garbage.connect(new InetSocketAddress(host, port), 5_000);
            garbage.setSoTimeout(5_000);
            OutputStream out = garbage.getOutputStream();
            out.write(new byte[64]); // no magic
            out.flush();
            require(garbage.getInputStream().read() == -1, "the connection without the magic was answered");
        }
        require(blobs.blob(100).length() == 100, "the consumer after the bad connection");
        Scenario.ok("native." + kind, "calls", ok + 2);
    }

    private void limits() throws Exception {
        BlobService.Impl impl = new BlobService.Impl();
        int port = DubboPeers.freePort();
        Provider provider = new Provider(port, Map.of("sluice.frame-timeout", Long.toString(LIMITS_FRAME_TIMEOUT_MS),
                "sluice.max-connections-per-address", Integer.toString(LIMITS_PER_ADDRESS)), impl);
        BlobService blobs = consumer("sluice", port, 10_000, Map.of());
        require(blobs.blob(10).length() == 10, "a call before the hostile peers");

        // A header declaring 1,000 body bytes, then one byte every 50 ms: the frame cannot be whole in time.
        long closedMs;
        int trickled = 0;
        try (Socket slow = new Socket()) {
            slow.connect(new InetSocketAddress(host, port), 5_000);
            slow.setSoTimeout(50);
            slow.setTcpNoDelay(true);
            OutputStream out = slow.getOutputStream();
            out.write(Wire.header(0xd7, 0, 9, 1_000));
            out.flush();
            long start = System.nanoTime();
            boolean closed = false;
            while (!closed && trickled < 1_000 && System.nanoTime() - start < TimeUnit.SECONDS.toNanos(10)) {
                try {
                    closed = slow.getInputStream().read() == -1; // the 50 ms read timeout paces the trickle
                } catch (java.net.SocketTimeoutException pace) {
                    try {
                        out.write(0);
                        out.flush();
                        trickled++;
                    } catch (IOException reset) {
                        closed = true;
                    }
                } catch (IOException reset) {
                    closed = true;
                }
            }
            closedMs = millisSince(start);
            require(closed, "a body trickled a byte each 50 ms was still open after " + closedMs + " ms, "
                    + trickled + " bytes");
            require(closedMs >= LIMITS_FRAME_TIMEOUT_MS - 50, "closed after " + closedMs + " ms, before the "
                    + LIMITS_FRAME_TIMEOUT_MS + " ms frame timeout");
        }
        require(blobs.blob(100).length() == 100, "the consumer after the trickled body");

        // The consumer's connections count towards its address's limit too: fill the rest with served connections.
        int open = channels(provider);
        require(open >= 1 && open < LIMITS_PER_ADDRESS, "the provider holds " + open + " connections");
        List<Socket> admitted = new ArrayList<>();
        try {
            for (int i = open; i < LIMITS_PER_ADDRESS; i++) {
                Socket s = new Socket();
                admitted.add(s);
                s.connect(new InetSocketAddress(host, port), 5_000);
                s.setSoTimeout(5_000);
                s.getOutputStream().write(heartbeat(100 + i));
                require(Wire.read(s.getInputStream()).id() == 100 + i, "connection " + (i + 1) + " is served");
            }
            try (Socket over = new Socket()) {
                over.connect(new InetSocketAddress(host, port), 5_000);
                over.setSoTimeout(5_000);
                require(over.getInputStream().read() == -1, "connection " + (LIMITS_PER_ADDRESS + 1)
                        + " from one address was kept (limit " + LIMITS_PER_ADDRESS + ")");
            }
            require(blobs.blob(100).length() == 100, "the consumer while its address is at the limit");
        } finally {
            for (Socket s : admitted) {
                closeQuietly(s);
            }
        }
        Scenario.ok("limits", "trickleClosedMs", closedMs, "bytesTrickled", trickled, "consumerConnections", open);
    }

    /** The {@code threads} and {@code queues} of the pool case's {@code server=sluice} provider. */
    static final int POOL_THREADS = 8;
    static final int POOL_QUEUES = 2;
    /** Callers of the pool case's service that sleeps, fewer than {@link #POOL_THREADS}, more than 2 cores. */
    static final int POOL_NAPPERS = 6;

    private void pool() throws Exception {
        // A server=sluice provider with threadpool=sluice serves a plain Dubbo netty4 consumer and a sluice consumer.
        PoolService.Impl impl = new PoolService.Impl();
        int port = DubboPeers.freePort();
        Provider provider = new Provider(port, "sluice", "sluice", Map.of("threadname", "pool-sluice", "threads",
                Integer.toString(POOL_THREADS), "queues", Integer.toString(POOL_QUEUES)), PoolService.class, impl);
        require(provider.executor() instanceof ServicePool, "the provider's executor is " + provider.executor());
        ServicePool pool = (ServicePool) provider.executor();
        PoolService overNetty4 = consumer("netty4", PoolService.class, port, 30_000, Map.of());
        PoolService overSluice = consumer("sluice", PoolService.class, port, 30_000, Map.of());
        String netty4Served = onSluicePool(overNetty4.threadName(), "pool-sluice");
        String sluiceServed = onSluicePool(overSluice.threadName(), "pool-sluice");
        Scenario.ok("pool.sluice-provider", "netty4ConsumerServedOn", netty4Served, "sluiceConsumerServedOn",
                sluiceServed);

        // A service that sleeps 5 ms, called without pause by more callers than cores, does not starve a fast one.
        ExecutorService callers = Executors.newFixedThreadPool(POOL_NAPPERS + POOL_THREADS + POOL_QUEUES + 2);
        stops.add(callers::shutdownNow);
        java.util.concurrent.atomic.AtomicBoolean napping = new java.util.concurrent.atomic.AtomicBoolean(true);
        List<Future<Integer>> nappers = new ArrayList<>();
        for (int i = 0; i < POOL_NAPPERS; i++) {
            nappers.add(callers.submit(() -> {
                int naps = 0;
                while (napping.get()) {
                    require("napped:5".equals(overNetty4.nap(5)), "a call of the sleeping service");
                    naps++;
                }
                return naps;
            }));
        }
        int fast = 0;
        long worstNanos = 0;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        try {
            while (fast < 200 || impl.mostNapping.get() < POOL_NAPPERS) {
                require(System.nanoTime() < deadline, "the " + POOL_NAPPERS + " sleeping calls never ran at once (at"
                        + " most " + impl.mostNapping.get() + ")");
                long t0 = System.nanoTime();
                onSluicePool(overSluice.threadName(), "pool-sluice");
                worstNanos = Math.max(worstNanos, System.nanoTime() - t0);
                fast++;
            }
        } finally {
            napping.set(false);
        }
        int naps = 0;
        for (Future<Integer> n : nappers) {
            naps += n.get(30, TimeUnit.SECONDS);
        }
        require(worstNanos < TimeUnit.SECONDS.toNanos(2), "a fast call waited " + worstNanos / 1_000_000
                + " ms behind the sleeping ones");
        Scenario.ok("pool.blocking", "fastCalls", fast, "worstFastMs", worstNanos / 1_000_000, "naps", naps,
                "mostNapping", impl.mostNapping.get());

        // Calls that block fill the pool: it grows to threads, takes threads + queues, and refuses the rest with
        // Dubbo's thread-pool-exhausted answer, which reaches the consumer as an error, not a hang.
        int offered = POOL_THREADS + POOL_QUEUES + 2;
        // An answered call's task may still count for a moment after its answer left: start from an empty pool.
        Await.until(() -> pool.inFlight() == 0, Duration.ofSeconds(10), "the pool is empty: " + pool);
        List<Future<String>> holds = new ArrayList<>();
        for (int i = 0; i < offered; i++) {
            holds.add(callers.submit(overNetty4::hold));
        }
        Await.until(() -> impl.held.get() == POOL_THREADS && failed(holds) == offered - POOL_THREADS - POOL_QUEUES,
                Duration.ofSeconds(30), "the pool grew to " + POOL_THREADS + " threads and refused "
                        + (offered - POOL_THREADS - POOL_QUEUES) + " calls: " + pool);
        require(pool.inFlight() == POOL_THREADS + POOL_QUEUES && pool.threads() == POOL_THREADS, pool.toString());
        List<String> refusals = new ArrayList<>();
        try {
            overSluice.threadName();
            throw new AssertionError("a call while the pool is full was taken");
        } catch (org.apache.dubbo.rpc.RpcException e) {
            refusals.add(exhausted(e));
        }
        impl.gate.countDown();
        java.util.Set<String> servedOn = new java.util.TreeSet<>();
        for (Future<String> hold : holds) {
            try {
                servedOn.add(onSluicePool(hold.get(30, TimeUnit.SECONDS), "pool-sluice"));
            } catch (java.util.concurrent.ExecutionException e) {
                refusals.add(exhausted(e.getCause()));
            }
        }
        require(refusals.size() == offered - POOL_THREADS - POOL_QUEUES + 1, "refused " + refusals.size()
                + " calls: " + refusals);
        require(servedOn.size() == POOL_THREADS, "the held calls ran on " + servedOn.size() + " threads: " + servedOn);
        require(impl.held.get() == POOL_THREADS + POOL_QUEUES, "ran " + impl.held.get() + " held calls");
        onSluicePool(overNetty4.threadName(), "pool-sluice");
        Scenario.ok("pool.exhausted", "offered", offered, "served", impl.held.get(), "threads", servedOn.size(),
                "largest", pool.largestThreads(), "refused", refusals.size(), "consumerSaw", refusals.get(0));

        // A netty4 provider with the same pool serves sluice consumers (and its own).
        PoolService.Impl other = new PoolService.Impl();
        int netty4Port = DubboPeers.freePort();
        Provider netty4Provider = new Provider(netty4Port, "netty4", "sluice", Map.of("threadname", "pool-netty4"),
                PoolService.class, other);
        require(netty4Provider.executor() instanceof ServicePool, "the netty4 provider's executor is "
                + netty4Provider.executor());
        PoolService sluiceToNetty4 = consumer("sluice", PoolService.class, netty4Port, 30_000, Map.of());
        PoolService netty4ToNetty4 = consumer("netty4", PoolService.class, netty4Port, 30_000, Map.of());
        Scenario.ok("pool.netty4-provider", "sluiceConsumerServedOn",
                onSluicePool(sluiceToNetty4.threadName(), "pool-netty4"), "netty4ConsumerServedOn",
                onSluicePool(netty4ToNetty4.threadName(), "pool-netty4"));
    }

    /**
     * Checks that {@code thread} is a worker of the Sluice pool whose {@code threadname} is {@code name}: Dubbo's
     * server appends its address ({@code <name>-<host>:<port>}), its thread factory names the workers
     * {@code <name>-<host>:<port>-thread-<n>}, and the pool's monitor thread ({@code …-monitor}), which only Sluice's
     * pool has, is alive. Returns {@code thread}.
     */
    private static String onSluicePool(String thread, String name) {
        require(thread.startsWith(name + "-") && thread.contains("-thread-"), "the call ran on " + thread
                + ", not on a worker of " + name);
        boolean monitor = Thread.getAllStackTraces().keySet().stream()
                .anyMatch(t -> t.getName().startsWith(name + "-") && t.getName().endsWith("-monitor") && t.isAlive());
        require(monitor, "no thread " + name + "-monitor: the pool " + name + " is not Sluice's");
        return thread;
    }

    private static int failed(List<? extends Future<?>> calls) {
        int n = 0;
        for (Future<?> call : calls) {
            if (call.isDone()) {
                try {
                    call.get();
                } catch (Exception e) {
                    n++;
                }
            }
        }
        return n;
    }

    /** The message of a call refused because the provider's pool is full, checked to be Dubbo's; else throws. */
    private static String exhausted(Throwable e) {
        StringBuilder all = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause()) {
            all.append(t).append(" | ");
        }
        String text = all.toString();
        require(e instanceof org.apache.dubbo.rpc.RpcException && text.contains("thread pool is exhausted")
                && text.contains("Thread pool is EXHAUSTED! Thread Name: pool-sluice"), "not Dubbo's refusal: " + text);
        return "thread pool is exhausted";
    }

    /** A two-way fastjson2 heartbeat: an event request whose body is one JSONB null item. */
    private static byte[] heartbeat(long id) {
        return java.nio.ByteBuffer.allocate(21).put(Wire.header(0xf7, 0, id, 5)).putInt(1).put((byte) 0xaf).array();
    }

    /** A provider of {@link BlobService} on {@code server=sluice}; {@code params} go on the protocol. */
    private final class Provider {
        private final FrameworkModel model = new FrameworkModel();
        private final DubboBootstrap bootstrap;
        private final int port;
        private final ServiceConfig<?> service;

        Provider(int port, Map<String, String> params, BlobService impl) {
            this(port, "sluice", null, params, BlobService.class, impl);
        }

        /** A provider of {@code type} on {@code server}, with {@code threadpool} when not null. */
        <T> Provider(int port, String server, String threadpool, Map<String, String> params, Class<T> type, T impl) {
            ProtocolConfig protocol = DubboPeers.dubboProtocol(port);
            protocol.setServer(server);
            if (threadpool != null) {
                protocol.setThreadpool(threadpool);
            }
            protocol.setParameters(params);
            ServiceConfig<T> service = DubboPeers.service(type, impl);
            this.port = port;
            this.service = service;
            bootstrap = DubboBootstrap.newInstance(model)
                    .application(DubboPeers.application("adapter-provider"))
                    .registry(DubboPeers.noRegistry())
                    .protocol(protocol)
                    .service(service)
                    .start();
            stops.add(this::stop);
        }

        /** The executor Dubbo runs this provider's calls on (its ExecutorRepository keeps one per port). */
        ExecutorService executor() {
            return ExecutorRepository.getInstance(service.getApplicationModel())
                    .getExecutor(URL.valueOf("dubbo://" + Scenario.testAddress() + ":" + port));
        }

        /** Graceful, as a single-application JVM stops: the protocol's servers close first (see DubboNodes). */
        void stop() {
            if (!model.isDestroyed()) {
                DubboProtocol.getDubboProtocol(model).destroy();
                bootstrap.stop();
                model.destroy();
            }
        }
    }

    /** A consumer on {@code client=transporter} with its reference to {@code port}; {@code params} on the URL. */
    private BlobService consumer(String transporter, int port, int timeoutMillis, Map<String, String> params) {
        return consumer(transporter, BlobService.class, port, timeoutMillis, params);
    }

    private <T> T consumer(String transporter, Class<T> type, int port, int timeoutMillis, Map<String, String> params) {
        ReferenceConfig<T> reference = DubboPeers.reference(type, host, port, timeoutMillis);
        reference.setClient(transporter);
        reference.setConnections(1);
        reference.setParameters(params);
        FrameworkModel model = new FrameworkModel();
        DubboBootstrap boot = DubboBootstrap.newInstance(model)
                .application(DubboPeers.application("adapter-consumer"))
                .registry(DubboPeers.noRegistry())
                .reference(reference)
                .start();
        stops.add(() -> {
            boot.stop();
            model.destroy();
        });
        return reference.get();
    }

    /** The connections {@code provider}'s servers hold now (Dubbo's view, through the Transporter). */
    private static int channels(Provider provider) {
        int n = 0;
        for (ProtocolServer server : DubboProtocol.getDubboProtocol(provider.model).getServers()) {
            RemotingServer remoting = server.getRemotingServer();
            if (remoting != null) {
                n += remoting.getChannels().size();
            }
        }
        return n;
    }

    private static boolean refusesConnections(int port) {
        try (Socket probe = new Socket()) {
            probe.connect(new InetSocketAddress(Scenario.testAddress(), port), 1_000);
            return false;
        } catch (IOException e) {
            return true;
        }
    }

    /**
     * A TCP proxy for one consumer connection that can hold back the provider's answers: while held it stops reading
     * from the provider, whose socket it opened with a small receive buffer ({@value #RECEIVE_BUFFER} bytes, set
     * before connecting, so the kernel does not grow it), so little more than the provider's own send buffer can
     * leave the provider. Threads: an acceptor and two copiers, daemons.
     */
    private static final class HoldingProxy implements AutoCloseable {
        static final int RECEIVE_BUFFER = 16 * 1024;
        static final int CHUNK = 8 * 1024;
        private final java.net.ServerSocket listener = new java.net.ServerSocket(0);
        private final List<Socket> sockets = new java.util.concurrent.CopyOnWriteArrayList<>();
        private final Object gate = new Object();
        private boolean held; // guarded by gate

        HoldingProxy(InetSocketAddress target) throws IOException {
            Thread acceptor = new Thread(() -> {
                try {
                    while (true) {
                        Socket down = listener.accept();
                        Socket up = new Socket();
                        up.setReceiveBufferSize(RECEIVE_BUFFER);
                        up.connect(target, 5_000);
                        sockets.add(down);
                        sockets.add(up);
                        copier(down, up, false).start();
                        copier(up, down, true).start();
                    }
                } catch (IOException e) {
                    // closed
                }
            }, "holding-proxy-acceptor");
            acceptor.setDaemon(true);
            acceptor.start();
        }

        int port() {
            return listener.getLocalPort();
        }

        void hold() {
            synchronized (gate) {
                held = true;
            }
        }

        void release() {
            synchronized (gate) {
                held = false;
                gate.notifyAll();
            }
        }

        private Thread copier(Socket from, Socket to, boolean answers) {
            Thread t = new Thread(() -> {
                byte[] buf = new byte[CHUNK];
                try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                    while (true) {
                        if (answers) {
                            synchronized (gate) {
                                while (held) {
                                    gate.wait();
                                }
                            }
                        }
                        int n = in.read(buf);
                        if (n < 0) {
                            break;
                        }
                        out.write(buf, 0, n);
                        out.flush();
                    }
                } catch (IOException e) {
                    // a side closed
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } finally {
                    closeQuietly(from);
                    closeQuietly(to);
                }
            }, answers ? "holding-proxy-answers" : "holding-proxy-requests");
            t.setDaemon(true);
            return t;
        }

        @Override
        public void close() throws IOException {
            release();
            listener.close();
            for (Socket s : sockets) {
                closeQuietly(s);
            }
        }
    }

    /** The largest size the kernel lets a socket buffer grow to (third field of {@code net.ipv4.<name>}). */
    private static long socketBufferMax(String name) throws IOException {
        String[] fields = Files.readAllLines(Paths.get("/proc/sys/net/ipv4/" + name)).get(0).trim().split("\\s+");
        return Long.parseLong(fields[2]);
    }

    private static void signal(String signal, long pid) throws Exception {
        Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).inheritIO().start();
        require(kill.waitFor(10, TimeUnit.SECONDS) && kill.exitValue() == 0, "kill -" + signal + " " + pid);
    }

    /** Reads a child's output lines on a thread of its own; remembers the last DONE count. */
    private static final class Lines {
        private final AtomicLong lastDone = new AtomicLong();

        Lines(InputStream in) {
            Thread reader = new Thread(() -> {
                try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
                    String line;
                    while ((line = r.readLine()) != null) {
                        if (line.startsWith("DONE ")) {
                            lastDone.accumulateAndGet(Long.parseLong(line.substring(5).trim()), Math::max);
                        } else {
                            System.out.println("consumer: " + line);
                        }
                    }
                } catch (IOException | RuntimeException e) {
                    // the process ended
                }
            }, "consumer-output");
            reader.setDaemon(true);
            reader.start();
        }

        long lastDone() {
            return lastDone.get();
        }

        void awaitDoneAbove(long answered, Duration timeout) {
            Await.until(() -> lastDone.get() > answered, timeout, "the consumer process printed more than " + answered
                    + " answers");
        }
    }

    private static void closeQuietly(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception ignored) {
            // closing anyway
        }
    }

    private static void require(boolean condition, String message) {
        if (!condition) {
            throw new AssertionError(message);
        }
    }

    private static long millisSince(long t0) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
    }
}
