package dev.sluice.it.cluster;

import dev.sluice.it.harness.DubboPeers;
import org.apache.dubbo.config.ApplicationConfig;
import org.apache.dubbo.config.RegistryConfig;

/**
 * Dubbo configuration shared by the cluster scenario's provider and consumer: the {@link DubboPeers} defaults (quiet,
 * fastjson2, interface-level registration) with a ZooKeeper registry instead of direct URLs.
 *
 * <p>Used on the scenario's main thread of each JVM.
 */
final class ClusterDubbo {
    /** Graceful shutdown wait of the providers (Dubbo's default is 10 s; kept short to fit the build). */
    static final int SHUTDOWN_WAIT_MS = 1000;

    private ClusterDubbo() {}

    /**
     * Before any Dubbo class is touched: {@link DubboPeers#quietDefaults()}, the ZooKeeper client's and Curator's
     * logs at WARN, and interface-level service discovery only (the providers register only that).
     */
    static void defaults() {
        System.setProperty("dubbo.service.shutdown.wait", Integer.toString(SHUTDOWN_WAIT_MS));
        System.setProperty("dubbo.application.service-discovery.migration", "FORCE_INTERFACE");
        System.setProperty("org.slf4j.simpleLogger.log.org.apache.zookeeper", "warn");
        System.setProperty("org.slf4j.simpleLogger.log.org.apache.curator", "warn");
        // A multi-line WARN for every call slower than its timeout: thousands in a freeze, and the report counts them.
        System.setProperty("org.slf4j.simpleLogger.log.org.apache.dubbo.rpc.proxy.InvokerInvocationHandler", "error");
        DubboPeers.quietDefaults();
    }

    static ApplicationConfig application(String name) {
        return DubboPeers.application(name);
    }

    /** The ZooKeeper at {@code hostPort} as the registry only: not as config centre or metadata report. */
    static RegistryConfig registry(String hostPort) {
        RegistryConfig registry = new RegistryConfig("zookeeper://" + hostPort);
        registry.setUseAsConfigCenter(false);
        registry.setUseAsMetadataCenter(false);
        return registry;
    }
}
