package dev.sluice.it.cluster;

import dev.sluice.it.harness.Scenario;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.apache.dubbo.config.ReferenceConfig;
import org.apache.dubbo.config.bootstrap.DubboBootstrap;
import org.apache.dubbo.rpc.Invoker;
import org.apache.dubbo.rpc.cluster.ClusterInvoker;

/**
 * Main class of one consumer JVM of the mixed-fleet scenario ({@link ClusterMixedFleetScenario}, in its network
 * namespace): a Dubbo 3.3.6 consumer of {@link ClusterService} through the scenario's ZooKeeper, {@value #CALLERS}
 * callers in a closed loop ({@link Load}), failover with {@code retries=}{@value #RETRIES}, timeout
 * {@value #TIMEOUT_MS} ms. Its {@code client} is what the scenario says, or unset; its class path may lack Sluice
 * (see {@code IsolatedJvm.classPathWithout}), which it reports.
 *
 * <p>Args: {@code name zookeeperHostPort client|- statusFile stopFile}. Prints {@code RESULT name=consumer-start},
 * starts the load once a provider can be called, then, every 50 ms until the stop file appears, replaces the status
 * file with one line: {@code ports=<ports of the available providers> succeeded=<calls answered so far>}. On the
 * stop file it stops the load, waits for the callers, and prints {@code RESULT name=consumer} with the counts (a
 * call not returned by then is lost), the failures by type and which client transports ran in this JVM.
 *
 * <p>Runs on the JVM's main thread; the callers are {@link Load}'s threads.
 */
public final class FleetConsumer {
    static final int CALLERS = 4;
    static final int TIMEOUT_MS = 5000;
    static final int RETRIES = 2;
    static final long START_LIMIT_MS = 120_000;
    static final String SLUICE_TRANSPORTER = "dev.sluice.dubbo.SluiceTransporter";

    private FleetConsumer() {}

    public static void main(String[] args) {
        Scenario.run(() -> {
            String name = args[0];
            String zookeeper = args[1];
            String client = args[2];
            Path status = Paths.get(args[3]);
            Path stopFile = Paths.get(args[4]);
            ClusterDubbo.defaults(ClusterDubbo.CONSUMER_SHUTDOWN_WAIT_MS);
            boolean sluiceJar = loadable(SLUICE_TRANSPORTER);
            ReferenceConfig<ClusterService> reference = new ReferenceConfig<>();
            reference.setInterface(ClusterService.class);
            if (!client.equals("-")) {
                reference.setClient(client);
            }
            reference.setCheck(false);
            reference.setScope("remote");
            reference.setTimeout(TIMEOUT_MS);
            reference.setCluster("failover");
            reference.setRetries(RETRIES);
            if (ClusterDubbo.discovery().equals("instance")) {
                // Application-level discovery maps the interface to the providers' application; without a metadata
                // centre holding that mapping, the reference names it.
                reference.setProvidedBy(ClusterDubbo.PROVIDER_APPLICATION);
            }
            DubboBootstrap bootstrap = DubboBootstrap.getInstance()
                    .application(ClusterDubbo.application("sluice-fleet-" + name))
                    .registry(ClusterDubbo.registry(zookeeper))
                    .reference(reference)
                    .start();
            Scenario.ok("consumer-start", "name", name, "client", client, "sluiceJar", sluiceJar);
            Invoker<?> invoker = reference.getInvoker();
            if (!(invoker instanceof ClusterInvoker)) {
                throw new IllegalStateException("the reference's invoker is no ClusterInvoker: " + invoker.getClass());
            }
            ClusterService service = reference.get();
            // The load starts once a provider can be called: calls before that fail "No provider available", which
            // is the consumer starting, not the rollout this scenario measures.
            long start = System.nanoTime();
            while (available((ClusterInvoker<?>) invoker).isEmpty()) {
                if (System.nanoTime() - start > TimeUnit.MILLISECONDS.toNanos(START_LIMIT_MS)) {
                    throw new AssertionError("no provider available after " + START_LIMIT_MS + " ms");
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
            }
            Load load = new Load(service, CALLERS);
            load.start();
            while (!Files.exists(stopFile)) {
                if (!load.crashes().isEmpty()) {
                    throw new AssertionError("a caller thread died: " + load.crashes().get(0));
                }
                writeStatus(status, (ClusterInvoker<?>) invoker, load);
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
            }
            load.stop();
            int stuck = load.awaitCallers(10L * (1 + RETRIES) * TIMEOUT_MS);
            List<Load.Call> finished = load.finished();
            Map<String, Long> failures = new TreeMap<>();
            long succeeded = 0;
            for (Load.Call c : finished) {
                if (c.ok()) {
                    succeeded++;
                } else {
                    failures.merge(c.outcome(), 1L, Long::sum);
                }
            }
            boolean sluiceClient = threadRuns("sluice-dubbo-client");
            boolean nettyClient = threadRuns("NettyClientWorker");
            bootstrap.stop();
            Scenario.ok("consumer", "name", name, "client", client, "sluiceJar", sluiceJar, "sent", load.sent(),
                    "succeeded", succeeded, "failed", finished.size() - succeeded,
                    "lost", load.sent() - finished.size(), "stuckCallers", stuck, "sluiceClient", sluiceClient,
                    "nettyClient", nettyClient, "failures", failures.isEmpty() ? "none" : failures.toString());
        });
    }

    /** The status line the scenario polls, replaced atomically. */
    private static void writeStatus(Path status, ClusterInvoker<?> invoker, Load load) throws Exception {
        TreeSet<Integer> ports = available(invoker);
        String line = "ports=" + String.join(",", ports.stream().map(String::valueOf).toList()) + " succeeded="
                + load.succeeded() + "\n";
        Path tmp = status.resolveSibling(status.getFileName() + ".tmp");
        Files.writeString(tmp, line, StandardCharsets.UTF_8);
        Files.move(tmp, status, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    /** Ports of the providers in the directory whose invokers are available. */
    private static TreeSet<Integer> available(ClusterInvoker<?> invoker) {
        TreeSet<Integer> ports = new TreeSet<>();
        for (Invoker<?> i : invoker.getDirectory().getAllInvokers()) {
            if (i.isAvailable()) {
                ports.add(i.getUrl().getPort());
            }
        }
        return ports;
    }

    private static boolean loadable(String className) {
        try {
            Class.forName(className, false, FleetConsumer.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }

    private static boolean threadRuns(String prefix) {
        return Thread.getAllStackTraces().keySet().stream().anyMatch(t -> t.getName().startsWith(prefix));
    }
}
