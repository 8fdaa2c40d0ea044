package dev.sluice.it.cluster;

import dev.sluice.codec.dubbo.DecodeLimits;
import dev.sluice.dubbo.SluiceTransporter;
import dev.sluice.it.harness.ChildProcess;
import dev.sluice.it.harness.ChildResult;
import dev.sluice.it.harness.DubboPeers;
import dev.sluice.it.harness.IsolatedJvm;
import dev.sluice.it.harness.Scenario;
import dev.sluice.rpc.SluiceServer;
import dev.sluice.transport.TransportOptions;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;

/**
 * Child-JVM scenario (run by {@code ClusterMixedFleetTest}, inside a private network namespace): a provider fleet
 * rolled out to Sluice and rolled back, provider by provider, while consumers that do and do not have the Sluice jar
 * keep calling. A real ZooKeeper registry ({@link EmbeddedZooKeeper}, in this JVM), two provider JVMs
 * ({@link ClusterProvider}) and two consumer JVMs ({@link FleetConsumer}), all children of this one:
 * <ul>
 *   <li>{@code no-jar}: a class path without Sluice (its jar and the modules it holds left out) and no
 *       {@code client} set, as every consumer of a team that has not adopted Sluice;</li>
 *   <li>{@code sluice}: the Sluice jar and {@code client=sluice}.</li>
 * </ul>
 * Steps, each waiting until both consumers can call every provider running (their directories hold an available
 * invoker for its port): both providers on {@code netty4}; then one at a time stopped in order (Dubbo's graceful
 * stop: unregister, wait, close) and started again on its port with {@code server=sluice}; a hold with only Sluice
 * providers; then one at a time back to {@code netty4} (the rollback); a last hold. The providers register as
 * Dubbo 3.3.6 does plus whatever the Sluice jar on their class path adds. Every JVM uses the service discovery
 * {@link ClusterDubbo#DISCOVERY_PROPERTY} names (interface-level unless set), which this JVM hands down.
 *
 * <p>Prints {@code RESULT name=consumer-<name>} per consumer (its own counts: sent, succeeded, failed, lost, which
 * client transports ran, and how many calls succeeded while only Sluice providers ran) and {@code RESULT
 * name=fleet}. Fails when a consumer cannot call a provider within {@value #AVAILABLE_LIMIT_MS} ms of its start,
 * quoting the consumers' "Unsupported client type" lines; the test judges the counts.
 */
public final class ClusterMixedFleetScenario {
    static final String NO_JAR = "no-jar";
    static final String WITH_JAR = "sluice";
    private static final long AVAILABLE_LIMIT_MS = 90_000;
    private static final long HOLD_MS = 3000;
    private static final Duration PROVIDER_LIMIT = Duration.ofSeconds(400);
    private static final Duration CONSUMER_LIMIT = Duration.ofSeconds(420);

    private final Path dir;
    private final List<Consumer> consumers = new ArrayList<>();
    private final List<ProviderProcess> providers = new ArrayList<>();
    private final List<String> events = new ArrayList<>();
    private final long t0 = System.nanoTime();

    private ClusterMixedFleetScenario(Path dir) {
        this.dir = dir;
    }

    public static void main(String[] args) {
        Scenario.run(() -> {
            Path dir = Files.createDirectories(Scenario.workDirectory().resolve("fleet"));
            System.setProperty("sluice.it.logdir", Scenario.workDirectory().resolve("children").toString());
            ClusterDubbo.defaults(ClusterDubbo.CONSUMER_SHUTDOWN_WAIT_MS);
            new ClusterMixedFleetScenario(dir).run();
        });
    }

    private void run() throws Exception {
        try (EmbeddedZooKeeper zookeeper = EmbeddedZooKeeper.start(Scenario.testAddress(), dir)) {
            String zk = zookeeper.hostPort();
            ProviderProcess[] fleet = new ProviderProcess[2];
            for (int i = 0; i < fleet.length; i++) {
                fleet[i] = startProvider("p" + (i + 1) + "-netty4", "netty4", DubboPeers.freePort(), zk);
            }
            // Without Sluice: the sluice-dubbo jar (or classes) and the modules it is built from.
            consumers.add(Consumer.start(NO_JAR, "-", zk, dir, IsolatedJvm.of(FleetConsumer.class)
                    .classPathWithout(SluiceTransporter.class, TransportOptions.class, DecodeLimits.class,
                            SluiceServer.class)));
            consumers.add(Consumer.start(WITH_JAR, "sluice", zk, dir, IsolatedJvm.of(FleetConsumer.class)));
            awaitAvailable(fleet);
            hold("netty4");

            for (int i = 0; i < fleet.length; i++) {
                fleet[i] = replace(fleet[i], "p" + (i + 1) + "-sluice", "sluice", fleet, zk);
            }
            long[] before = succeeded();
            hold("sluice");
            long[] after = succeeded();

            for (int i = 0; i < fleet.length; i++) {
                fleet[i] = replace(fleet[i], "p" + (i + 1) + "-netty4-again", "netty4", fleet, zk);
            }
            hold("rolled-back");

            List<ChildResult> results = stopConsumers();
            for (int i = 0; i < consumers.size(); i++) {
                ChildResult r = results.get(i);
                r.assertPassed("consumer-start", "consumer", Scenario.LEAK_GATE);
                Scenario.ok("consumer-" + consumers.get(i).name, "sent", r.metric("consumer", "sent"),
                        "succeeded", r.metric("consumer", "succeeded"), "failed", r.metric("consumer", "failed"),
                        "lost", r.metric("consumer", "lost"), "sluiceJar", r.metric("consumer", "sluiceJar"),
                        "sluiceClient", r.metric("consumer", "sluiceClient"),
                        "nettyClient", r.metric("consumer", "nettyClient"),
                        "succeededWhileAllSluice", after[i] - before[i],
                        "failures", r.metric("consumer", "failures"));
            }
            for (ProviderProcess p : fleet) {
                p.requestStop();
            }
            for (ProviderProcess p : fleet) {
                p.awaitExit(Duration.ofSeconds(60)).assertPassed("provider-start", "provider-stop",
                        Scenario.LEAK_GATE);
            }
            Scenario.ok("fleet", "discovery", ClusterDubbo.discovery(), "ms",
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0));
            System.out.println("events:\n" + String.join("\n", events));
        } finally {
            for (Consumer c : consumers) {
                if (!c.process.exited()) {
                    c.process.kill();
                }
            }
            for (ProviderProcess p : providers) {
                if (!p.exited()) {
                    p.thaw();
                    p.kill();
                }
            }
        }
    }

    private ProviderProcess startProvider(String name, String transport, int port, String zk) {
        ProviderProcess p = ProviderProcess.start(name, transport, port, zk, dir, PROVIDER_LIMIT);
        providers.add(p);
        event("started " + name + " (server=" + transport + ") on port " + port);
        return p;
    }

    /**
     * One provider's switch: {@code old} stopped gracefully, then started again on its port as {@code name} with
     * {@code server=transport}, then awaited by both consumers.
     */
    private ProviderProcess replace(ProviderProcess old, String name, String transport, ProviderProcess[] fleet,
            String zk) throws InterruptedException {
        old.requestStop();
        old.awaitExit(Duration.ofSeconds(60)).assertPassed("provider-start", "provider-stop", Scenario.LEAK_GATE);
        event("stopped " + old.name());
        ProviderProcess started = startProvider(name, transport, old.port(), zk);
        for (int i = 0; i < fleet.length; i++) {
            if (fleet[i] == old) {
                fleet[i] = started;
            }
        }
        awaitAvailable(fleet);
        return started;
    }

    /** Until both consumers can call every provider of {@code fleet}; fails after {@link #AVAILABLE_LIMIT_MS}. */
    private void awaitAvailable(ProviderProcess[] fleet) throws InterruptedException {
        Set<Integer> ports = Arrays.stream(fleet).map(ProviderProcess::port).collect(Collectors.toCollection(
                TreeSet::new));
        long start = System.nanoTime();
        for (Consumer c : consumers) {
            while (!c.available().containsAll(ports)) {
                for (ProviderProcess p : fleet) {
                    if (p.exited()) {
                        throw new AssertionError("provider " + p.name() + " exited: " + p.resultIfExited());
                    }
                }
                if (c.process.exited()) {
                    throw new AssertionError("consumer " + c.name + " exited: " + c.process.resultIfExited());
                }
                if (TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) > AVAILABLE_LIMIT_MS) {
                    throw new AssertionError("after " + AVAILABLE_LIMIT_MS + " ms consumer " + c.name
                            + " can call the providers on ports " + c.available() + ", not all of " + ports
                            + " (" + Arrays.stream(fleet).map(ProviderProcess::name).toList() + "); consumers said:\n"
                            + refusals());
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
            }
        }
        event("both consumers can call " + Arrays.stream(fleet).map(ProviderProcess::name).toList());
    }

    /** Stops the consumers and returns the lines of their output naming an unsupported client type. */
    private String refusals() throws InterruptedException {
        StringBuilder sb = new StringBuilder();
        for (ChildResult r : stopConsumers()) {
            (r.stdout() + "\n" + r.stderr()).lines()
                    .filter(l -> l.contains("Unsupported client type") || l.startsWith("RESULT name=consumer "))
                    .limit(5)
                    .forEach(l -> sb.append("  ").append(r.name()).append(": ").append(l).append('\n'));
        }
        return sb.toString();
    }

    private List<ChildResult> stopConsumers() throws InterruptedException {
        for (Consumer c : consumers) {
            c.process.requestStop();
        }
        List<ChildResult> results = new ArrayList<>();
        for (Consumer c : consumers) {
            results.add(c.process.awaitExit(Duration.ofSeconds(90)));
        }
        return results;
    }

    private void hold(String phase) {
        long[] before = succeeded();
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(HOLD_MS));
        long[] after = succeeded();
        event("phase " + phase + ": calls succeeded by " + consumers.get(0).name + " " + (after[0] - before[0])
                + ", by " + consumers.get(1).name + " " + (after[1] - before[1]));
    }

    private long[] succeeded() {
        long[] counts = new long[consumers.size()];
        for (int i = 0; i < counts.length; i++) {
            counts[i] = consumers.get(i).succeeded();
        }
        return counts;
    }

    private void event(String what) {
        events.add(String.format(java.util.Locale.ROOT, "  +%6.2f s  %s", (System.nanoTime() - t0) / 1e9, what));
    }

    /** One consumer JVM, seen from here: its process and the status file it keeps replacing. */
    private static final class Consumer {
        final String name;
        final ChildProcess process;
        final Path status;

        private Consumer(String name, ChildProcess process, Path status) {
            this.name = name;
            this.process = process;
            this.status = status;
        }

        static Consumer start(String name, String client, String zk, Path dir, IsolatedJvm jvm) {
            Path status = dir.resolve(name + ".status");
            Path stopFile = dir.resolve(name + ".stop");
            jvm.name("fleet-consumer-" + name)
                    .network(IsolatedJvm.Network.HOST)
                    .systemProperty(IsolatedJvm.ADDRESS_PROPERTY, Scenario.testAddress())
                    .systemProperty(ClusterDubbo.DISCOVERY_PROPERTY, ClusterDubbo.discovery())
                    .jvmFlags("-Xmx256m")
                    .timeout(CONSUMER_LIMIT)
                    .args(name, zk, client, status.toString(), stopFile.toString());
            return new Consumer(name, ChildProcess.start(jvm, "consumer " + name, stopFile), status);
        }

        /** Ports of the providers this consumer can call now; empty before its first status line. */
        Set<Integer> available() {
            Set<Integer> ports = new TreeSet<>();
            String ports0 = field("ports");
            if (!ports0.isEmpty()) {
                for (String p : ports0.split(",")) {
                    ports.add(Integer.parseInt(p));
                }
            }
            return ports;
        }

        long succeeded() {
            String s = field("succeeded");
            return s.isEmpty() ? 0 : Long.parseLong(s);
        }

        private String field(String key) {
            String line;
            try {
                line = Files.exists(status) ? Files.readString(status, StandardCharsets.UTF_8).trim() : "";
            } catch (IOException e) {
                return "";
            }
            for (String kv : line.split(" ")) {
                if (kv.startsWith(key + "=")) {
                    return kv.substring(key.length() + 1);
                }
            }
            return "";
        }
    }
}
