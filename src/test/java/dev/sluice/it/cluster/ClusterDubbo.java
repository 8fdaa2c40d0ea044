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
    /** Graceful shutdown wait of the providers: Dubbo's default is 10 s, kept short here to fit the build. */
    static final int PROVIDER_SHUTDOWN_WAIT_MS = 1000;
    /**
     * The consumer's: Dubbo's default. It also bounds how long Dubbo's exchange layer keeps the calls of a closed
     * connection waiting before it fails them, which is part of what the scenario measures.
     */
    static final int CONSUMER_SHUTDOWN_WAIT_MS = 10_000;

    private ClusterDubbo() {}

    /**
     * Before any Dubbo class is touched: the graceful shutdown wait, {@link DubboPeers#quietDefaults()}, the
     * ZooKeeper client's and Curator's logs at WARN, and interface-level service discovery only (the providers
     * register only that).
     */
    static void defaults(int shutdownWaitMillis) {
        System.setProperty("dubbo.service.shutdown.wait", Integer.toString(shutdownWaitMillis));
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
