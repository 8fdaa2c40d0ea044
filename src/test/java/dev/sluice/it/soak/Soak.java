package dev.sluice.it.soak;

import dev.sluice.it.rpc.model.Item;
import dev.sluice.it.rpc.model.SluiceAttachments;
import dev.sluice.it.rpc.model.TypesService;
import dev.sluice.rpc.RpcException;
import dev.sluice.rpc.RpcTimeoutException;
import dev.sluice.rpc.SluiceClient;
import dev.sluice.rpc.SluiceServer;
import dev.sluice.testing.LeakGate;
import dev.sluice.transport.SluiceException;
import dev.sluice.transport.TransportOptions;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.internal.PlatformDependent;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
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
 * Soak: {@code threads} callers hammer one {@link SluiceServer} through one {@link SluiceClient} for {@code minutes}
 * while the server is killed ({@link SluiceServer#closeNow()}) and restarted on the same port every
 * {@code killEverySeconds}. Every call must end within its timeout plus a margin, with a value or a typed error;
 * a call that does neither is <em>lost</em> (a watchdog checks every call in flight). Prints calls sent, succeeded,
 * failed (by error type), lost, untyped errors, wrong values, kills, and direct memory before and after.
 *
 * <p>Run (after {@code mvn -B install -DskipTests -pl transport-netty,codec-dubbo}):
 * <pre>
 * mvn -B -pl integration-tests test -Dtest=SoakTest -Dsoak.minutes=2 -Dsurefire.failIfNoSpecifiedTests=false
 * </pre>
 * which runs it under the test JVM's PARANOID leak detection and writes
 * {@code integration-tests/target/soak-report.txt};
 * or as a plain main with {@code --minutes 2 --threads 32 --kill-every 10}.
 */
public final class Soak {
    private Soak() {
    }

    /** What to run. */
    public static final class Config {
        double minutes = 2;
        int threads = 32;
        int killEverySeconds = 10;
        int downMillis = 300;
        int callTimeoutMillis = 1000;
        int marginMillis = 2000;

        static Config fromSystemProperties() {
            Config c = new Config();
            c.minutes = Double.parseDouble(System.getProperty("soak.minutes", "2"));
            c.threads = Integer.getInteger("soak.threads", 32);
            c.killEverySeconds = Integer.getInteger("soak.killEvery", 10);
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
                    case "--kill-every": c.killEverySeconds = Integer.parseInt(args[i + 1]); break;
                    case "--down-ms": c.downMillis = Integer.parseInt(args[i + 1]); break;
                    case "--timeout-ms": c.callTimeoutMillis = Integer.parseInt(args[i + 1]); break;
                    default: throw new IllegalArgumentException("unknown option " + args[i]);
                }
            }
            return c;
        }

        @Override
        public String toString() {
            return threads + " threads, " + minutes + " min, server killed every " + killEverySeconds + " s (down "
                    + downMillis + " ms), call timeout " + callTimeoutMillis + " ms + " + marginMillis + " ms margin";
        }
    }

    /** The figures. */
    public static final class Report {
        final LongAdder sent = new LongAdder();
        final LongAdder succeeded = new LongAdder();
        final LongAdder failed = new LongAdder();
        final LongAdder lost = new LongAdder();
        final LongAdder untyped = new LongAdder();
        final LongAdder wrong = new LongAdder();
        final Map<String, LongAdder> failures = new ConcurrentHashMap<>();
        final List<String> samples = java.util.Collections.synchronizedList(new ArrayList<>());
        private final Map<String, Boolean> sampled = new ConcurrentHashMap<>();
        int kills;
        long seconds;
        long directBefore;
        long directAfter;
        long pooledBefore;
        long pooledAfter;
        int leaks = -1;
        String config;

        public long lost() {
            return lost.sum();
        }

        public long untyped() {
            return untyped.sum();
        }

        public long wrong() {
            return wrong.sum();
        }

        public long sent() {
            return sent.sum();
        }

        public long succeeded() {
            return succeeded.sum();
        }

        public long failed() {
            return failed.sum();
        }

        public int leaks() {
            return leaks;
        }

        public int kills() {
            return kills;
        }

        void fail(String type, Throwable e) {
            failed.increment();
            failures.computeIfAbsent(type, k -> new LongAdder()).increment();
            if (sampled.putIfAbsent(type, Boolean.TRUE) == null) {
                samples.add(type + ": " + e.getMessage());
            }
        }

        @Override
        public String toString() {
            StringBuilder b = new StringBuilder("Sluice soak: ").append(config).append('\n');
            b.append(String.format("  duration %d s, %d server kills (%d cores, %s)%n", seconds, kills,
                    Runtime.getRuntime().availableProcessors(), System.getProperty("java.vm.version")));
            b.append(String.format("  calls sent      %,d%n", sent.sum()));
            b.append(String.format("  succeeded       %,d%n", succeeded.sum()));
            b.append(String.format("  failed (typed)  %,d%n", failed.sum()));
            failures.entrySet().stream().sorted(Map.Entry.comparingByKey()).forEach(e ->
                    b.append(String.format("      %-44s %,d%n", e.getKey(), e.getValue().sum())));
            b.append(String.format("  lost            %,d%n", lost.sum()));
            b.append(String.format("  untyped errors  %,d%n", untyped.sum()));
            b.append(String.format("  wrong values    %,d%n", wrong.sum()));
            b.append(String.format(
                    "  direct memory   %,d -> %,d bytes (Netty counter); pooled arenas %,d -> %,d bytes%n",
                    directBefore, directAfter, pooledBefore, pooledAfter));
            b.append("  leaks reported  ").append(leaks < 0 ? "n/a (run under the test JVM for PARANOID tracking)"
                    : String.valueOf(leaks)).append('\n');
            for (String s : samples) {
                b.append("  e.g. ").append(s).append('\n');
            }
            return b.toString();
        }
    }

    public static void main(String[] args) throws Exception {
        Report r = run(Config.fromArgs(args));
        System.out.println(r);
        System.exit(r.lost() == 0 && r.untyped() == 0 && r.wrong() == 0 && r.leaks() <= 0 ? 0 : 1);
    }

    /** Runs the soak and returns its figures. */
    public static Report run(Config config) throws Exception {
        Report report = new Report();
        report.config = config.toString();
        ServerHolder holder = new ServerHolder();
        holder.start(0);
        int port = holder.server.port();
        SluiceClient client = SluiceClient.builder().address("127.0.0.1", port)
                .timeout(Duration.ofMillis(config.callTimeoutMillis)).failIfNotConnected(true)
                .options(TransportOptions.builder().connectTimeout(Duration.ofSeconds(1))
                        .reconnectBackoff(Duration.ofMillis(20), Duration.ofMillis(200)).build())
                .build();
        TypesService s = client.proxy(TypesService.class);
        for (int i = 0; i < 200; i++) {
            s.echo("warm-up " + i);
        }
        report.directBefore = PlatformDependent.usedDirectMemory();
        report.pooledBefore = PooledByteBufAllocator.DEFAULT.metric().usedDirectMemory();

        long start = System.nanoTime();
        long deadline = start + (long) (config.minutes * 60e9);
        long limitNanos = TimeUnit.MILLISECONDS.toNanos(config.callTimeoutMillis + config.marginMillis);
        AtomicLongArray inFlightSince = new AtomicLongArray(config.threads);
        AtomicLongArray flagged = new AtomicLongArray(config.threads);
        AtomicLong callIds = new AtomicLong();
        long[] currentCall = new long[config.threads];
        List<Thread> callers = new ArrayList<>();
        for (int t = 0; t < config.threads; t++) {
            int slot = t;
            Thread caller = new Thread(() -> {
                ThreadLocalRandom rnd = ThreadLocalRandom.current();
                while (System.nanoTime() < deadline) {
                    long id = callIds.incrementAndGet();
                    currentCall[slot] = id;
                    report.sent.increment();
                    inFlightSince.set(slot, System.nanoTime());
                    boolean ok = false;
                    try {
                        ok = call(s, rnd.nextInt(4), id, config, report);
                    } finally {
                        inFlightSince.set(slot, 0);
                    }
                    if (!ok) {
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
                    long id = currentCall[i];
                    if (since != 0 && now - since > limitNanos && flagged.get(i) != id) {
                        flagged.set(i, id);
                        report.lost.increment();
                        report.samples.add("lost: call " + id + " on " + callers.get(i).getName()
                                + " still running after "
                                + TimeUnit.NANOSECONDS.toMillis(now - since) + " ms");
                    }
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
            }
        }, "soak-watchdog");
        watchdog.setDaemon(true);
        watchdog.start();

        // The killer: forceful stop, a pause, a restart on the same port.
        long nextKill = System.nanoTime() + TimeUnit.SECONDS.toNanos(config.killEverySeconds);
        while (System.nanoTime() < deadline) {
            LockSupport.parkNanos(Math.max(0, Math.min(nextKill, deadline) - System.nanoTime()));
            if (System.nanoTime() >= deadline) {
                break;
            }
            holder.server.closeNow().get(10, TimeUnit.SECONDS);
            report.kills++;
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(config.downMillis));
            holder.start(port);
            nextKill = System.nanoTime() + TimeUnit.SECONDS.toNanos(config.killEverySeconds);
        }
        for (Thread caller : callers) {
            caller.join(config.callTimeoutMillis + config.marginMillis + 5_000L);
            if (caller.isAlive()) {
                report.lost.increment();
                report.samples.add("lost: " + caller.getName() + " never returned");
            }
        }
        watchdog.interrupt();
        report.seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start);

        client.close();
        holder.server.close();
        report.directAfter = PlatformDependent.usedDirectMemory();
        report.pooledAfter = PooledByteBufAllocator.DEFAULT.metric().usedDirectMemory();
        if (LeakGate.active()) {
            report.leaks = LeakGate.collectLeaks().size();
        }
        return report;
    }

    /** One call of kind {@code op}; true if it succeeded. Classifies every outcome. */
    private static boolean call(TypesService s, int op, long id, Config config, Report report) {
        try {
            switch (op) {
                case 0: {
                    String v = "echo-" + id;
                    return check(v.equals(s.echo(v)), report);
                }
                case 1: {
                    List<Item> items = s.items(20);
                    return check(items.size() == 20 && items.get(19).getName().equals("item19"), report);
                }
                case 2: {
                    String v = "async-" + id;
                    CompletableFuture<String> f = s.async(v, 0);
                    return check(("async:" + v).equals(f.get(config.callTimeoutMillis + config.marginMillis,
                            TimeUnit.MILLISECONDS)), report);
                }
                default: {
                    String v = "x".repeat(4096) + id;
                    return check(v.equals(s.echo(v)), report);
                }
            }
        } catch (ExecutionException e) {
            classify(e.getCause(), report);
        } catch (TimeoutException e) {
            report.lost.increment(); // the future neither completed nor failed in time
            report.samples.add("lost: async call " + id + " did not complete within timeout + margin");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            report.untyped.increment();
        } catch (Throwable t) {
            classify(t, report);
        }
        return false;
    }

    private static void classify(Throwable e, Report report) {
        if (e instanceof RpcTimeoutException) {
            report.fail(((RpcTimeoutException) e).wasSent() ? "RpcTimeoutException (no response)"
                    : "RpcTimeoutException (not sent)", e);
        } else if (e instanceof RpcException) {
            report.fail("RpcException status " + ((RpcException) e).status(), e);
        } else if (e instanceof SluiceException) {
            String type = e.getClass().getSimpleName();
            if (e instanceof dev.sluice.transport.ConnectionClosedException) {
                type += ((dev.sluice.transport.ConnectionClosedException) e).wasSent() ? " (sent)" : " (not sent)";
            }
            report.fail(type, e);
        } else {
            report.untyped.increment();
            report.samples.add("untyped: " + e);
        }
    }

    /** Counts a completed call as succeeded, or as a wrong value. */
    private static boolean check(boolean right, Report report) {
        (right ? report.succeeded : report.wrong).increment();
        return right;
    }

    /** The current server; restarted on the same port after each kill. */
    private static final class ServerHolder {
        volatile SluiceServer server;

        void start(int port) throws InterruptedException {
            RuntimeException last = null;
            for (int attempt = 0; attempt < 100; attempt++) {
                try {
                    server = SluiceServer.builder().port(port)
                            .register(TypesService.class, SluiceAttachments.service()).start();
                    return;
                } catch (SluiceException e) { // the port not free yet
                    last = e;
                    Thread.sleep(50);
                }
            }
            throw last;
        }
    }

    /** Writes the report next to the build output. */
    static void write(Report report, Path file) throws IOException {
        Files.createDirectories(file.getParent());
        Files.writeString(file, report.toString());
    }
}
