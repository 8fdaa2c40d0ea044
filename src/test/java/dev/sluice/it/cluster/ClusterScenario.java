package dev.sluice.it.cluster;

import dev.sluice.it.harness.ChildResult;
import dev.sluice.it.harness.DubboPeers;
import dev.sluice.it.harness.ExecutionLog;
import dev.sluice.it.harness.Scenario;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.apache.dubbo.config.ReferenceConfig;
import org.apache.dubbo.config.bootstrap.DubboBootstrap;
import org.apache.dubbo.rpc.Invoker;
import org.apache.dubbo.rpc.cluster.ClusterInvoker;

/**
 * Child-JVM scenario (run by {@code ClusterScaleOutTest}, inside a private network namespace): a Dubbo cluster as
 * a user runs it — a real ZooKeeper registry ({@link EmbeddedZooKeeper}, in this JVM), three provider JVMs
 * ({@link ClusterProvider}) and a consumer (in this JVM) with 16 callers, timeout 1 s, cluster {@code failover}
 * with {@code retries=2} — and, under load, one provider at a time killed, frozen and thawed, stopped gracefully
 * and restarted. The provider JVMs are children of this one, so they share its namespace.
 *
 * <p>Args: {@code transport [consumerParams]}. {@code transport} names the Dubbo Transporter of both sides
 * ({@code netty4}, or {@code sluice} for {@code server=sluice} and {@code client=sluice}); {@code consumerParams}
 * ({@code k=v&k=v}, or {@code -} for none) go on the consumer's reference URL, e.g. a transport option to compare
 * against the same run without it.
 *
 * <p>Phases, in order, each a span of the load (the report counts calls by the phase they ended in):
 * <ol>
 *   <li>{@code warmup} (at least {@value #WARMUP_MS} ms and {@value #WARMUP_CALLS} successful calls, at most
 *       {@value #WARMUP_CAP_MS} ms: JIT, pools and connections warm, so that {@code before} is a fair baseline),
 *       {@code before} ({@value #BEFORE_MS} ms): three providers;</li>
 *   <li>{@code freeze}: provider p2 stopped with SIGSTOP for {@value #FREEZE_MS} ms, then SIGCONT;</li>
 *   <li>{@code thawed};</li>
 *   <li>{@code stopping}: p3 gets SIGTERM, and Dubbo's shutdown hook stops it gracefully; until it exited;</li>
 *   <li>{@code down}: two providers;</li>
 *   <li>{@code restart}: p3 started again on its port, until the consumer can call it; {@code restarted};</li>
 *   <li>{@code killed}: p1 killed with SIGKILL.</li>
 * </ol>
 * Then the callers stop; the providers still running stop in order and pass the harness's leak gate. Prints
 * {@code RESULT name=cluster} with the counts ({@link Tally#metrics()}), {@code RESULT name=failures} (failed
 * calls by error type) and writes {@value #REPORT} in its work directory. The scenario itself fails only when it
 * could not do what it says (a provider that did not start, stop or die as told); the test judges the counts.
 */
public final class ClusterScenario {
    /** The report file, in the scenario's work directory. */
    public static final String REPORT = "cluster-report.txt";

    static final int CALLERS = 16;
    static final int TIMEOUT_MS = 1000;
    static final int RETRIES = 2;
    /** Warm-up: at least this long and this many successful calls (JIT, connections, pools), at most the cap. */
    static final long WARMUP_MS = 2000;
    static final long WARMUP_CALLS = 10_000;
    static final long WARMUP_CAP_MS = 25_000;
    static final long BEFORE_MS = 4000;
    static final long FREEZE_MS = 10_000;
    static final long THAWED_MS = 3000;
    static final long DOWN_MS = 2000;
    static final long RESTARTED_MS = 2000;
    static final long KILLED_MS = 3000;

    private static final Duration PROVIDER_LIMIT = Duration.ofSeconds(190);
    private static final long START_LIMIT_MS = 120_000;

    private final String transport;
    private final String consumerParamsText;
    private final Map<String, String> consumerParams;
    private final Path dir;
    private final List<Tally.Phase> phases = new ArrayList<>();
    private final List<ProviderProcess> providers = new ArrayList<>();
    private final List<String> events = new ArrayList<>();
    private Load load;
    private long loadStart;

    private ClusterScenario(String transport, String consumerParamsText, Map<String, String> consumerParams,
            Path dir) {
        this.transport = transport;
        this.consumerParamsText = consumerParamsText;
        this.consumerParams = consumerParams;
        this.dir = dir;
    }

    public static void main(String[] args) {
        Scenario.run(() -> {
            String transport = args[0];
            String paramsText = args.length > 1 && !args[1].isBlank() ? args[1] : "-";
            Map<String, String> params = parseParams(paramsText);
            Path dir = Files.createDirectories(Scenario.workDirectory().resolve("cluster"));
            // Provider logs beside this scenario's own, not under a target/ of the child's working directory.
            System.setProperty("sluice.it.logdir", Scenario.workDirectory().resolve("providers").toString());
            ClusterDubbo.defaults(ClusterDubbo.CONSUMER_SHUTDOWN_WAIT_MS);
            new ClusterScenario(transport, paramsText, params, dir).run();
        });
    }

    /** {@code k=v&k=v}; {@code -} or empty for none. */
    static Map<String, String> parseParams(String text) {
        Map<String, String> params = new LinkedHashMap<>();
        if (text.isBlank() || text.equals("-")) {
            return params;
        }
        for (String pair : text.split("&")) {
            int eq = pair.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("consumer parameter '" + pair + "' is not key=value");
            }
            params.put(pair.substring(0, eq), pair.substring(eq + 1));
        }
        return params;
    }

    private void run() throws Exception {
        long t0 = System.nanoTime();
        String loadAvgStart = loadAverage();
        AttemptFilter.clear();
        try (EmbeddedZooKeeper zookeeper = EmbeddedZooKeeper.start(Scenario.testAddress(), dir)) {
            String zk = zookeeper.hostPort();
            for (int i = 1; i <= 3; i++) {
                providers.add(ProviderProcess.start("p" + i, transport, DubboPeers.freePort(), zk, dir,
                        PROVIDER_LIMIT));
            }
            ProviderProcess p1 = providers.get(0);
            ProviderProcess p2 = providers.get(1);
            ProviderProcess p3 = providers.get(2);

            DubboBootstrap bootstrap = DubboBootstrap.getInstance();
            ReferenceConfig<ClusterService> reference = reference();
            bootstrap.application(ClusterDubbo.application("sluice-cluster-consumer"))
                    .registry(ClusterDubbo.registry(zk))
                    .reference(reference)
                    .start();
            ClusterService service = reference.get();
            awaitAvailable(reference, List.of(p1, p2, p3), START_LIMIT_MS);
            checkTransports();
            Scenario.ok("cluster-start", "ms", millisSince(t0), "transport", transport, "zookeeper", zk,
                    "consumerParams", consumerParamsText);

            load = new Load(service, CALLERS);
            loadStart = System.nanoTime();
            load.start();
            warmUp();
            hold("before", BEFORE_MS);

            p2.freeze();
            event("SIGSTOP " + p2.name() + " (pid " + p2.pid() + ", port " + p2.port() + ")");
            hold("freeze", FREEZE_MS);
            p2.thaw();
            event("SIGCONT " + p2.name());
            hold("thawed", THAWED_MS);

            long stopping = System.nanoTime();
            p3.terminate();
            event("SIGTERM " + p3.name() + " (pid " + p3.pid() + ", port " + p3.port() + ")");
            ChildResult stopped = p3.awaitExit(Duration.ofSeconds(30));
            span("stopping", stopping);
            event(p3.name() + " exited with " + stopped.exitCode());
            if (stopped.timedOut() || stopped.exitCode() != 143 || stopped.result("provider-start").isEmpty()) {
                throw new AssertionError("SIGTERM should end the provider through its shutdown hooks (exit 143): "
                        + stopped);
            }
            hold("down", DOWN_MS);

            long restart = System.nanoTime();
            ProviderProcess p3again = ProviderProcess.start("p3-restarted", transport, p3.port(), zk, dir,
                    PROVIDER_LIMIT);
            providers.add(p3again);
            event("started " + p3again.name() + " on port " + p3.port());
            awaitAvailable(reference, List.of(p1, p2, p3again), START_LIMIT_MS);
            span("restart", restart);
            event(p3again.name() + " available to the consumer");
            hold("restarted", RESTARTED_MS);

            long killed = System.nanoTime();
            p1.kill();
            event("SIGKILL " + p1.name() + " (pid " + p1.pid() + ", port " + p1.port() + ")");
            hold("killed", KILLED_MS);
            ChildResult dead = p1.awaitExit(Duration.ofSeconds(10));
            if (dead.exitCode() != 137) {
                throw new AssertionError("SIGKILL should end the provider with exit 137: " + dead);
            }

            load.stop();
            // A call lasts (1 + retries) timeouts plus Dubbo's bookkeeping, a few seconds even on a starved machine;
            // only one that has not returned after ten times that is counted lost.
            int stuck = load.awaitCallers(10L * (1 + RETRIES) * TIMEOUT_MS);
            long loadEnd = System.nanoTime();
            event("load stopped; callers still inside a call: " + stuck
                    + (stuck == 0 ? "" : ", calls " + load.inFlight()));
            if (!load.crashes().isEmpty()) {
                throw new AssertionError("a caller thread died: " + load.crashes().get(0), load.crashes().get(0));
            }

            bootstrap.stop();
            for (ProviderProcess p : List.of(p2, p3again)) {
                p.requestStop();
            }
            for (ProviderProcess p : List.of(p2, p3again)) {
                p.awaitExit(Duration.ofSeconds(60)).assertPassed("provider-start", "provider-stop",
                        Scenario.LEAK_GATE);
            }

            Tally tally = new Tally(load.sent(), load.finished(), AttemptFilter.attemptsByCall(),
                    executions(), phases, p2.port());
            Scenario.ok("cluster", concat(new Object[] {"transport", transport, "consumerParams", consumerParamsText,
                    "loadMs",
                    TimeUnit.NANOSECONDS.toMillis(loadEnd - loadStart), "stuckCallers", stuck,
                    "loadAvgStart", loadAvgStart, "loadAvgEnd", loadAverage()}, tally.metrics()));
            Object[] failures = new Object[tally.failedByType.size() * 2];
            int i = 0;
            for (Map.Entry<String, Long> e : tally.failedByType.entrySet()) {
                failures[i++] = e.getKey();
                failures[i++] = e.getValue();
            }
            Scenario.ok("failures", failures);
            String title = "transport " + transport + ", consumer parameters "
                    + (consumerParams.isEmpty() ? "none" : consumerParams) + "; " + CALLERS + " callers, timeout "
                    + TIMEOUT_MS + " ms, failover retries=" + RETRIES + ", providers " + describe()
                    + "\n  machine: " + Runtime.getRuntime().availableProcessors() + " cores, load average (1 min) "
                    + loadAvgStart + " at the start, " + loadAverage() + " at the end";
            String report = tally.report(title) + "  events:\n" + String.join("\n", events) + "\n";
            Files.writeString(Scenario.workDirectory().resolve(REPORT), report, StandardCharsets.UTF_8);
            System.out.println(report);
        } finally {
            // Whatever failed above: no provider outlives the scenario (the harness's reaper would kill it too).
            for (ProviderProcess p : providers) {
                if (!p.exited()) {
                    try {
                        p.thaw();
                        p.kill();
                    } catch (RuntimeException e) {
                        System.err.println("cannot end provider " + p.name() + ": " + e);
                    }
                }
            }
        }
    }

    private ReferenceConfig<ClusterService> reference() {
        ReferenceConfig<ClusterService> reference = new ReferenceConfig<>();
        reference.setInterface(ClusterService.class);
        reference.setClient(transport);
        reference.setCheck(false);
        reference.setScope("remote");
        reference.setTimeout(TIMEOUT_MS);
        reference.setCluster("failover");
        reference.setRetries(RETRIES);
        reference.setFilter(AttemptFilter.NAME);
        reference.setParameters(new HashMap<>(consumerParams));
        return reference;
    }

    /** Phase {@code warmup}: see {@link #WARMUP_CALLS}. */
    private void warmUp() {
        hold("warmup", WARMUP_MS, WARMUP_CAP_MS, () -> load.succeeded() >= WARMUP_CALLS);
        event("warm-up: " + load.succeeded() + " calls succeeded");
    }

    /** Holds the load for {@code millis} as phase {@code name}, failing early when a caller died. */
    private void hold(String name, long millis) {
        hold(name, millis, millis, () -> true);
    }

    /**
     * Holds the load as phase {@code name} for at least {@code minMillis}, then until {@code done} holds or
     * {@code maxMillis} have passed; fails early when a caller died.
     */
    private void hold(String name, long minMillis, long maxMillis, BooleanSupplier done) {
        long start = System.nanoTime();
        long min = start + TimeUnit.MILLISECONDS.toNanos(minMillis);
        long max = start + TimeUnit.MILLISECONDS.toNanos(maxMillis);
        for (long now = start; now < max && (now < min || !done.getAsBoolean()); now = System.nanoTime()) {
            if (!load.crashes().isEmpty()) {
                throw new AssertionError("a caller thread died: " + load.crashes().get(0));
            }
            long until = now < min ? min : max;
            LockSupport.parkNanos(Math.min(until - now, TimeUnit.MILLISECONDS.toNanos(20)));
        }
        span(name, start);
    }

    /** Records phase {@code name} from {@code start} until now. */
    private void span(String name, long start) {
        long end = System.nanoTime();
        phases.add(new Tally.Phase(name, start, end));
        event(String.format(java.util.Locale.ROOT, "phase %s: %.1f s", name, (end - start) / 1e9));
    }

    private void event(String what) {
        long at = load == null ? 0 : System.nanoTime() - loadStart;
        events.add(String.format(java.util.Locale.ROOT, "    +%6.2f s  %s", at / 1e9, what));
    }

    /**
     * Waits until the consumer's directory holds an available invoker for each of {@code ports} — the providers
     * registered in ZooKeeper, the consumer notified and connected — failing early when a provider JVM exited.
     */
    private void awaitAvailable(ReferenceConfig<ClusterService> reference, List<ProviderProcess> expected,
            long limitMillis) {
        Set<Integer> ports = ports(expected);
        Invoker<?> invoker = reference.getInvoker();
        if (!(invoker instanceof ClusterInvoker)) {
            throw new IllegalStateException("the reference's invoker is no ClusterInvoker: " + invoker.getClass());
        }
        long start = System.nanoTime();
        Set<Integer> available = new TreeSet<>();
        while (true) {
            available.clear();
            for (Invoker<?> i : ((ClusterInvoker<?>) invoker).getDirectory().getAllInvokers()) {
                if (i.isAvailable()) {
                    available.add(i.getUrl().getPort());
                }
            }
            if (available.containsAll(ports)) {
                return;
            }
            for (ProviderProcess p : expected) {
                if (p.exited()) {
                    ChildResult r = p.resultIfExited();
                    if (r != null) {
                        r.assertPassed("provider-start");
                    }
                    throw new AssertionError("provider " + p.name() + " exited while the consumer waited for it: "
                            + r);
                }
            }
            if (millisSince(start) > limitMillis) {
                throw new AssertionError("after " + limitMillis + " ms the consumer can call the providers on ports "
                        + available + ", not all of " + ports);
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
        }
    }

    /** The transports really in use: their event-loop threads run in this (consumer) JVM. */
    private void checkTransports() {
        String prefix = transport.equals("sluice") ? "sluice-dubbo-client" : "NettyClientWorker";
        boolean running = Thread.getAllStackTraces().keySet().stream().anyMatch(t -> t.getName().startsWith(prefix));
        if (!running) {
            throw new AssertionError("no event-loop thread of the " + transport + " client (" + prefix + "*) runs");
        }
    }

    /** Every execution each provider recorded: call id to the ports of the providers that ran it. */
    private Map<Long, List<Integer>> executions() {
        Map<Long, List<Integer>> byCall = new HashMap<>();
        for (ProviderProcess p : providers) {
            for (long id : ExecutionLog.read(p.executionLog())) {
                byCall.computeIfAbsent(id, k -> new ArrayList<>(2)).add(p.port());
            }
        }
        return byCall;
    }

    private String describe() {
        List<String> parts = new ArrayList<>();
        for (ProviderProcess p : providers) {
            parts.add(p.name() + "=" + p.port());
        }
        return String.join(" ", parts);
    }

    private static Set<Integer> ports(List<ProviderProcess> ps) {
        Set<Integer> ports = new TreeSet<>();
        for (ProviderProcess p : ps) {
            ports.add(p.port());
        }
        return ports;
    }

    /** The 1-minute load average of the machine, to tell a run on a busy machine; "?" where unknown. */
    private static String loadAverage() {
        try {
            return Files.readString(Path.of("/proc/loadavg"), StandardCharsets.US_ASCII).split(" ")[0];
        } catch (java.io.IOException | RuntimeException e) {
            return "?";
        }
    }

    private static Object[] concat(Object[] a, Object[] b) {
        Object[] all = new Object[a.length + b.length];
        System.arraycopy(a, 0, all, 0, a.length);
        System.arraycopy(b, 0, all, a.length, b.length);
        return all;
    }

    private static long millisSince(long startNanos) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
    }
}
