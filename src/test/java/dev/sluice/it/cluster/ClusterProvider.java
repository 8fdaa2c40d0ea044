package dev.sluice.it.cluster;

import dev.sluice.it.harness.DubboPeers;
import dev.sluice.it.harness.ExecutionLog;
import dev.sluice.it.harness.Scenario;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.apache.dubbo.config.ProtocolConfig;
import org.apache.dubbo.config.bootstrap.DubboBootstrap;

/**
 * Main class of one provider JVM of the cluster scenario (started by {@link ProviderProcess}, in the scenario's
 * network namespace): a real Dubbo 3.3.6 provider of {@link ClusterService} with {@code server=<transport>},
 * registered in the scenario's ZooKeeper, recording every execution in an {@link ExecutionLog}.
 *
 * <p>Args: {@code transport port zookeeperHostPort executionLogFile stopFile}. Prints
 * {@code RESULT name=provider-start} once exported. It then runs until the stop file appears (an orderly stop of
 * the Dubbo application, then {@code RESULT name=provider-stop} and the harness's leak gate) or until the
 * scenario signals it: SIGKILL, SIGSTOP/SIGCONT, or SIGTERM, which runs Dubbo's own graceful shutdown hook
 * (unregister, wait, readonly event, close) as any {@code kill <pid>} of a Dubbo application would.
 *
 * <p>Runs on the JVM's main thread; the service runs on Dubbo's provider threads.
 */
public final class ClusterProvider {
    private ClusterProvider() {}

    public static void main(String[] args) {
        Scenario.run(() -> {
            String transport = args[0];
            int port = Integer.parseInt(args[1]);
            String zookeeper = args[2];
            Path executions = Paths.get(args[3]);
            Path stopFile = Paths.get(args[4]);
            ClusterDubbo.defaults(ClusterDubbo.PROVIDER_SHUTDOWN_WAIT_MS);
            try (ExecutionLog log = ExecutionLog.open(executions)) {
                long t0 = System.nanoTime();
                ProtocolConfig protocol = DubboPeers.dubboProtocol(port);
                protocol.setServer(transport);
                DubboBootstrap bootstrap = DubboBootstrap.getInstance()
                        .application(ClusterDubbo.application(ClusterDubbo.PROVIDER_APPLICATION))
                        .registry(ClusterDubbo.registry(zookeeper))
                        .protocol(protocol)
                        .service(DubboPeers.service(ClusterService.class, new ClusterServiceImpl(log)))
                        .start();
                Scenario.ok("provider-start", "transport", transport, "port", port, "ms",
                        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0));
                // The scenario's control channel is this file: stdin is /dev/null and signals are the faults.
                while (!Files.exists(stopFile)) {
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
                }
                bootstrap.stop();
                Scenario.ok("provider-stop", "executions", log.count());
            }
        });
    }
}
