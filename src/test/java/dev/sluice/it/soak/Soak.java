package dev.sluice.it.soak;

import dev.sluice.it.harness.ChildResult;
import dev.sluice.it.harness.CountedService;
import dev.sluice.it.harness.CountingServer;
import dev.sluice.rpc.RpcException;
import dev.sluice.rpc.RpcTimeoutException;
import dev.sluice.rpc.SluiceClient;
import dev.sluice.testing.LeakGate;
import dev.sluice.transport.ConnectionClosedException;
import dev.sluice.transport.ConnectionStalledException;
import dev.sluice.transport.NativeTransport;
import dev.sluice.transport.PendingBytesExceededException;
import dev.sluice.transport.SendState;
import dev.sluice.transport.SluiceException;
import dev.sluice.transport.TransportOptions;
import dev.sluice.transport.netty.EventLoops;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.internal.PlatformDependent;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

/**
 * Soak: {@code threads} callers hammer a {@link CountingServer} (a {@code SluiceServer} in a child JVM) through one
 * {@link SluiceClient} for {@code minutes}. Every {@code eventEverySeconds} the server process meets a fault, in
 * turn: it is frozen (SIGSTOP) for {@code freezeMillis} and continued (SIGCONT), or killed (SIGKILL) and a new one
 * started on the same port. The server records the id of every call it runs; at the end the soak compares each
 * call's outcome at the client with what the servers ran:
 * <ul>
 * <li><em>lost</em>: a call that neither returned nor failed within its timeout plus a margin (a watchdog checks
 * every call in flight), must be 0;
 * <li><em>not sent but executed</em>: the client was told "not sent" ({@link SendState#NOT_SENT}) and a server ran
 * it anyway, must be 0;
 * <li><em>duplicated</em>: a call that ran more than once, or that succeeded without having run exactly once, must
 * be 0;
 * <li>leaks (the test JVM's leak gate and the children's), untyped errors and wrong values, all 0.
 * </ul>
 * Failures are reported by type and send state, with direct memory before and after.
 *
 * <p>Run it through {@link SoakTest} (see there); or as a plain main with
 * {@code --minutes 2 --threads 32 --transport EPOLL --event-every 10 --freeze-ms 3000}, on the test classpath
 * (the server's JVM is started on the same classpath).
 *
 * <p>The callers, the watchdog and the fault loop are threads of their own; {@link #run} blocks until the end.
 */
public final class Soak {
    /** Outcome codes, one per call. */
    private static final byte OK = 0;
    private static final byte NOT_SENT = 1;
    private static final byte SENT = 2;
    private static final byte UNKNOWN = 3;
    private static final byte ANSWERED = 4;
    private static final byte WRONG = 5;
    private static final byte LOST = 6;
    private static final byte UNTYPED = 7;

    private Soak() {
    }

    /** What to run. */
    public static final class Config {
        double minutes = 2;
        int threads = 32;
        NativeTransport transport = NativeTransport.NIO;
        int eventEverySeconds = 10;
        int freezeMillis = 3000;
        int downMillis = 300;
        int callTimeoutMillis = 1000;
        int marginMillis = 2000;

        static Config fromSystemProperties(NativeTransport transport) {
            Config c = new Config();
            c.transport = transport;
            c.minutes = Double.parseDouble(System.getProperty("soak.minutes", "2"));
            c.threads = Integer.getInteger("soak.threads", 32);
            c.eventEverySeconds = Integer.getInteger("soak.eventEvery", 10);
            c.freezeMillis = Integer.getInteger("soak.freezeMillis", 3000);
            c.downMillis = Integer.getInteger("soak.downMillis", 300);
            c.callTimeoutMillis = Integer.getInteger("soak.timeoutMillis", 1000);
            return c;
        }

        static Config fromArgs(String[] args) {
            Config c = new Config();
            for (int i = 0; i + 1 < args.length; i += 2) {
                switch (args[i]) {
                    case "--minutes": c.minutes = Double.parseDouble(args[i + 1]); break;
                    case "--threads": c.threads = Integer.parseInt(args[i + 1]); break;
                    case "--transport": c.transport = NativeTransport.valueOf(args[i + 1]); break;
                    case "--event-every": c.eventEverySeconds = Integer.parseInt(args[i + 1]); break;
                    case "--freeze-ms": c.freezeMillis = Integer.parseInt(args[i + 1]); break;
                    case "--down-ms": c.downMillis = Integer.parseInt(args[i + 1]); break;
                    case "--timeout-ms": c.callTimeoutMillis = Integer.parseInt(args[i + 1]); break;
                    default: throw new IllegalArgumentException("unknown option " + args[i]);
                }
            }
            return c;
        }

        @Override
        public String toString() {
            return threads + " threads on " + transport + ", " + minutes + " min; every " + eventEverySeconds
                    + " s the server JVM is, in turn, frozen (SIGSTOP) for " + freezeMillis
                    + " ms then continued, or killed (SIGKILL) and restarted (" + downMillis + " ms down before the"
                    + " restart); call timeout " + callTimeoutMillis + " ms + " + marginMillis + " ms margin";
        }
    }

    /** The figures. */
    public static final class Report {
        final LongAdder sent = new LongAdder();
        final Map<String, LongAdder> failures = new ConcurrentHashMap<>();
        final List<String> samples = Collections.synchronizedList(new ArrayList<>());
        private final Map<String, Boolean> sampled = new ConcurrentHashMap<>();
        /** Calls by outcome code. */
        final long[] byOutcome = new long[8];
        /** Executions by the outcome the client saw for that call. */
        final long[] executedByOutcome = new long[8];
        long lostByWatchdog;
        long executions;
        long executedCalls;
        long notSentButExecuted;
        long executedMoreThanOnce;
        long succeededNotRunOnce;
        long unknownIdsExecuted;
        int kills;
        int freezes;
        int servers;
        long seconds;
        long directBefore;
        long directAfter;
        long pooledBefore;
        long pooledAfter;
        String serverStop;
        int leaks = -1;
        int childLeaks;
        int childFailures;
        String config;

        public long lost() {
            return byOutcome[LOST] + lostByWatchdog;
        }

        public long untyped() {
            return byOutcome[UNTYPED];
        }

        public long wrong() {
            return byOutcome[WRONG];
        }

        public long succeeded() {
            return byOutcome[OK];
        }

        public long notSentButExecuted() {
            return notSentButExecuted;
        }

        /** Calls run more than once, plus succeeded calls that did not run exactly once. */
        public long duplicated() {
            return executedMoreThanOnce + succeededNotRunOnce + unknownIdsExecuted;
        }

        /** Leaks in the test JVM (-1 when not under the leak gate) plus those the server JVMs reported. */
        public int leaks() {
            return Math.max(leaks, 0) + childLeaks;
        }

        public int childFailures() {
            return childFailures;
        }

        public int kills() {
            return kills;
        }

        public int freezes() {
            return freezes;
        }

        void fail(String type, Throwable e) {
            failures.computeIfAbsent(type, k -> new LongAdder()).increment();
            if (sampled.putIfAbsent(type, Boolean.TRUE) == null) {
                samples.add(type + ": " + e.getMessage());
            }
        }

        @Override
        public String toString() {
            StringBuilder b = new StringBuilder("Sluice soak: ").append(config).append('\n');
            b.append(String.format("  duration %d s; %d freezes, %d kills, %d server JVMs (%d cores, %s)%n", seconds,
                    freezes, kills, servers, Runtime.getRuntime().availableProcessors(),
                    System.getProperty("java.vm.version")));
            b.append(String.format("  calls               %,d%n", sent.sum()));
            b.append(String.format("  succeeded           %,d%n", byOutcome[OK]));
            b.append(String.format("  failed              %,d  (not sent %,d, sent/no response %,d, unknown %,d,"
                    + " answered with an error %,d)%n", byOutcome[NOT_SENT] + byOutcome[SENT] + byOutcome[UNKNOWN]
                    + byOutcome[ANSWERED], byOutcome[NOT_SENT], byOutcome[SENT], byOutcome[UNKNOWN],
                    byOutcome[ANSWERED]));
            failures.entrySet().stream().sorted(Map.Entry.comparingByKey()).forEach(e ->
                    b.append(String.format("      %-52s %,d%n", e.getKey(), e.getValue().sum())));
            b.append(String.format("  executed (servers)  %,d executions of %,d calls; of the calls that failed"
                    + " sent/no response %,d ran, unknown %,d ran%n", executions, executedCalls,
                    executedByOutcome[SENT], executedByOutcome[UNKNOWN]));
            b.append(String.format("  not sent, executed  %,d   (must be 0)%n", notSentButExecuted));
            b.append(String.format("  duplicated          %,d   (ran more than once %,d; succeeded but ran %s once"
                    + " %,d; ids no caller made %,d)%n", duplicated(), executedMoreThanOnce, "not exactly",
                    succeededNotRunOnce, unknownIdsExecuted));
            b.append(String.format("  lost                %,d%n", lost()));
            b.append(String.format("  untyped errors      %,d%n", byOutcome[UNTYPED]));
            b.append(String.format("  wrong values        %,d%n", byOutcome[WRONG]));
            b.append(String.format("  direct memory       client: %,d -> %,d bytes (Netty counter); pooled arenas"
                    + " %,d -> %,d bytes%n", directBefore, directAfter, pooledBefore, pooledAfter));
            b.append("  last server at its stop: ").append(serverStop).append('\n');
            b.append("  leaks reported      client: ").append(leaks < 0
                    ? "n/a (run under the test JVM for PARANOID tracking)" : String.valueOf(leaks))
                    .append(", server JVMs: ").append(childLeaks).append('\n');
            b.append("  server JVMs failed  ").append(childFailures).append(" (leak gate or error in a server that"
                    + " was stopped, not killed)\n");
            for (String s : samples) {
                b.append("  e.g. ").append(s).append('\n');
            }
            return b.toString();
        }
    }

    public static void main(String[] args) throws Exception {
        Report r = run(Config.fromArgs(args), Files.createTempDirectory("sluice-soak"));
        System.out.println(r);
        boolean ok = r.lost() == 0 && r.untyped() == 0 && r.wrong() == 0 && r.notSentButExecuted() == 0
                && r.duplicated() == 0 && r.leaks() == 0 && r.childFailures() == 0;
        System.exit(ok ? 0 : 1);
    }

    /** Per caller thread: the id and outcome code of every call it made, in primitive arrays. */
    private static final class Outcomes {
        long[] ids = new long[1 << 14];
        byte[] codes = new byte[1 << 14];
        int size;

        void add(long id, byte code) {
            if (size == ids.length) {
                ids = Arrays.copyOf(ids, size * 2);
                codes = Arrays.copyOf(codes, size * 2);
            }
            ids[size] = id;
            codes[size] = code;
            size++;
        }
    }

    /** Runs the soak and returns its figures; the servers' files go to {@code directory}. */
    public static Report run(Config config, Path directory) throws Exception {
        if (EventLoops.resolve(config.transport) != config.transport) {
            throw new IllegalStateException(config.transport + " is not available on this machine");
        }
        Report report = new Report();
        report.config = config.toString();
        int port = freePort();
        Duration childLimit = Duration.ofSeconds((long) (config.minutes * 60) + 300);
        List<CountingServer.Handle> servers = new ArrayList<>();
        CountingServer.Handle server = CountingServer.start("soak-server-0", config.transport, port, directory,
                childLimit).awaitReady(Duration.ofSeconds(60));
        servers.add(server);
        SluiceClient client = SluiceClient.builder().address("127.0.0.1", port)
                .timeout(Duration.ofMillis(config.callTimeoutMillis)).failIfNotConnected(true)
                .options(TransportOptions.builder().nativeTransport(config.transport)
                        .connectTimeout(Duration.ofSeconds(1))
                        .reconnectBackoff(Duration.ofMillis(20), Duration.ofMillis(200)).build())
                .build();
        CountedService s = client.proxy(CountedService.class);
        AtomicLong callIds = new AtomicLong();
        Outcomes warmUp = new Outcomes();
        for (int i = 0; i < 200; i++) {
            long id = callIds.incrementAndGet();
            s.echo(id, "warm-up " + i);
            warmUp.add(id, OK);
        }
        report.directBefore = PlatformDependent.usedDirectMemory();
        report.pooledBefore = PooledByteBufAllocator.DEFAULT.metric().usedDirectMemory();

        long start = System.nanoTime();
        long deadline = start + (long) (config.minutes * 60e9);
        long limitNanos = TimeUnit.MILLISECONDS.toNanos(config.callTimeoutMillis + config.marginMillis);
        AtomicLongArray inFlightSince = new AtomicLongArray(config.threads);
        AtomicLongArray currentCall = new AtomicLongArray(config.threads);
        long[] flagged = new long[config.threads];
        List<Outcomes> outcomes = new ArrayList<>();
        outcomes.add(warmUp);
        List<Thread> callers = new ArrayList<>();
        for (int t = 0; t < config.threads; t++) {
            int slot = t;
            Outcomes mine = new Outcomes();
            outcomes.add(mine);
            Thread caller = new Thread(() -> {
                ThreadLocalRandom rnd = ThreadLocalRandom.current();
                while (System.nanoTime() < deadline) {
                    long id = callIds.incrementAndGet();
                    currentCall.set(slot, id);
                    report.sent.increment();
                    inFlightSince.set(slot, System.nanoTime());
                    byte code;
                    try {
                        code = call(s, rnd.nextInt(4), id, config, report);
                    } finally {
                        inFlightSince.set(slot, 0);
                    }
                    mine.add(id, code);
                    if (code != OK) {
                        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2)); // do not spin while it is down
                    }
                }
            }, "soak-caller-" + t);
            caller.setDaemon(true);
            callers.add(caller);
            caller.start();
        }

        Thread watchdog = new Thread(() -> {
            while (!Thread.currentThread().isInterrupted()) {
                long now = System.nanoTime();
                for (int i = 0; i < config.threads; i++) {
                    long since = inFlightSince.get(i);
                    long id = currentCall.get(i);
                    if (since != 0 && now - since > limitNanos && flagged[i] != id) {
                        flagged[i] = id;
                        synchronized (report) {
                            report.lostByWatchdog++;
                        }
                        report.samples.add("lost: call " + id + " on " + callers.get(i).getName()
                                + " still running after " + TimeUnit.NANOSECONDS.toMillis(now - since) + " ms");
                    }
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
            }
        }, "soak-watchdog");
        watchdog.setDaemon(true);
        watchdog.start();

        // The faults, in turn: freeze and continue; kill and restart on the same port.
        long nextEvent = System.nanoTime() + TimeUnit.SECONDS.toNanos(config.eventEverySeconds);
        boolean freezeNext = true;
        while (true) {
            LockSupport.parkNanos(Math.max(0, Math.min(nextEvent, deadline) - System.nanoTime()));
            if (System.nanoTime() >= deadline) {
                break;
            }
            if (freezeNext) {
                server.process().freeze();
                report.freezes++;
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(config.freezeMillis));
                server.process().thaw();
            } else {
                server.process().kill();
                server.process().awaitExit(Duration.ofSeconds(30));
                report.kills++;
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(config.downMillis));
                server = CountingServer.start("soak-server-" + servers.size(), config.transport, port, directory,
                        childLimit).awaitReady(Duration.ofSeconds(60));
                servers.add(server);
            }
            freezeNext = !freezeNext;
            nextEvent = System.nanoTime() + TimeUnit.SECONDS.toNanos(config.eventEverySeconds);
        }
        for (Thread caller : callers) {
            caller.join(config.callTimeoutMillis + config.marginMillis + 5_000L);
            if (caller.isAlive()) {
                synchronized (report) {
                    report.lostByWatchdog++;
                }
                report.samples.add("lost: " + caller.getName() + " never returned");
            }
        }
        watchdog.interrupt();
        report.seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start);
        client.close();

        // An orderly stop of the last server: after it, no call can still run anywhere.
        server.process().requestStop();
        ChildResult last = server.process().awaitExit(Duration.ofSeconds(60));
        report.serverStop = last.result("server-stop").map(Object::toString).orElse("no stop report: " + last);
        for (CountingServer.Handle h : servers) {
            ChildResult r = h.process().awaitExit(Duration.ofSeconds(30));
            report.childLeaks += r.leakReports().size();
            if (h == server && !r.failures().isEmpty()) {
                report.childFailures++;
                report.samples.add("server JVM " + r.name() + " failed: " + r.failures());
            }
        }
        report.servers = servers.size();
        tally(report, outcomes, servers);

        report.directAfter = PlatformDependent.usedDirectMemory();
        report.pooledAfter = PooledByteBufAllocator.DEFAULT.metric().usedDirectMemory();
        if (LeakGate.active()) {
            report.leaks = LeakGate.collectLeaks().size();
        }
        return report;
    }

    /** Compares what each caller was told with what the servers ran. */
    private static void tally(Report report, List<Outcomes> outcomes, List<CountingServer.Handle> servers) {
        Map<Long, Integer> runs = new HashMap<>();
        for (CountingServer.Handle h : servers) {
            for (long id : h.executions()) {
                runs.merge(id, 1, Integer::sum);
                report.executions++;
            }
        }
        report.executedCalls = runs.size();
        long known = 0;
        for (Outcomes o : outcomes) {
            for (int i = 0; i < o.size; i++) {
                byte code = o.codes[i];
                long id = o.ids[i];
                if (o != outcomes.get(0)) {
                    report.byOutcome[code]++;
                }
                Integer ran = runs.get(id);
                int n = ran == null ? 0 : ran;
                if (n > 0) {
                    known++;
                    report.executedByOutcome[code]++;
                }
                if (n > 1) {
                    report.executedMoreThanOnce++;
                    report.samples.add("duplicated: call " + id + " ran " + n + " times (client outcome " + code
                            + ")");
                }
                if (code == NOT_SENT && n > 0) {
                    report.notSentButExecuted++;
                    report.samples.add("not sent but executed: call " + id);
                }
                if (code == OK && n != 1) {
                    report.succeededNotRunOnce++;
                    report.samples.add("succeeded but ran " + n + " times: call " + id);
                }
            }
        }
        report.unknownIdsExecuted = runs.size() - known;
    }

    /** One call of kind {@code op}; its outcome code. Classifies every failure by type and send state. */
    private static byte call(CountedService s, int op, long id, Config config, Report report) {
        try {
            switch (op) {
                case 0: {
                    String v = "echo-" + id;
                    return v.equals(s.echo(id, v)) ? OK : WRONG;
                }
                case 1: {
                    List<String> items = s.items(id, 20);
                    return items.size() == 20 && items.get(19).equals("item19") ? OK : WRONG;
                }
                case 2: {
                    String v = "async-" + id;
                    CompletableFuture<String> f = s.async(id, v);
                    return ("async:" + v).equals(f.get(config.callTimeoutMillis + config.marginMillis,
                            TimeUnit.MILLISECONDS)) ? OK : WRONG;
                }
                default: {
                    String v = "x".repeat(4096) + id;
                    return v.equals(s.echo(id, v)) ? OK : WRONG;
                }
            }
        } catch (ExecutionException e) {
            return classify(e.getCause(), report);
        } catch (TimeoutException e) {
            report.samples.add("lost: async call " + id + " did not complete within timeout + margin");
            return LOST; // the future neither completed nor failed in time
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return UNTYPED;
        } catch (Throwable t) {
            return classify(t, report);
        }
    }

    private static byte classify(Throwable e, Report report) {
        SendState state;
        if (e instanceof RpcTimeoutException) {
            state = ((RpcTimeoutException) e).sendState();
        } else if (e instanceof ConnectionClosedException) {
            state = ((ConnectionClosedException) e).sendState();
        } else if (e instanceof ConnectionStalledException) {
            state = ((ConnectionStalledException) e).sendState();
        } else if (e instanceof PendingBytesExceededException) {
            state = SendState.NOT_SENT; // refused before it was queued
        } else if (e instanceof RpcException) {
            report.fail("RpcException status " + ((RpcException) e).status(), e);
            return ANSWERED;
        } else if (e instanceof SluiceException) {
            report.fail(e.getClass().getSimpleName() + " (no send state)", e);
            return UNKNOWN;
        } else {
            report.samples.add("untyped: " + e);
            return UNTYPED;
        }
        report.fail(e.getClass().getSimpleName() + " (" + state + ")", e);
        switch (state) {
            case NOT_SENT: return NOT_SENT;
            case SENT: return SENT;
            default: return UNKNOWN;
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    /** Writes the report. */
    static void write(Report report, Path file) throws IOException {
        Files.createDirectories(file.getParent());
        Files.writeString(file, report.toString());
    }
}
