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
    /**
     * System property choosing the service discovery of every JVM of a scenario: {@code interface} (the default:
     * providers register interface-level URLs, consumers read only those) or {@code instance} (Dubbo 3's
     * application-level discovery: providers register their instance, consumers read only instances and fetch the
     * service URLs from the provider's metadata). Child JVMs get it from their parent ({@link #discovery()}).
     */
    static final String DISCOVERY_PROPERTY = "sluice.cluster.discovery";
    /** The application name of every provider of the cluster scenarios. */
    static final String PROVIDER_APPLICATION = "sluice-cluster-provider";

    private ClusterDubbo() {}

    /**
     * Before any Dubbo class is touched: the graceful shutdown wait, {@link DubboPeers#quietDefaults()}, the
     * ZooKeeper client's and Curator's logs at WARN, and one kind of service discovery only
     * ({@link #DISCOVERY_PROPERTY}).
     */
    static void defaults(int shutdownWaitMillis) {
        System.setProperty("dubbo.service.shutdown.wait", Integer.toString(shutdownWaitMillis));
        System.setProperty("dubbo.application.service-discovery.migration",
                instanceDiscovery() ? "FORCE_APPLICATION" : "FORCE_INTERFACE");
        System.setProperty("org.slf4j.simpleLogger.log.org.apache.zookeeper", "warn");
        System.setProperty("org.slf4j.simpleLogger.log.org.apache.curator", "warn");
        // A multi-line WARN for every call slower than its timeout: thousands in a freeze, and the report counts them.
        System.setProperty("org.slf4j.simpleLogger.log.org.apache.dubbo.rpc.proxy.InvokerInvocationHandler", "error");
        DubboPeers.quietDefaults();
    }

    static ApplicationConfig application(String name) {
        ApplicationConfig app = DubboPeers.application(name);
        if (instanceDiscovery()) {
            app.setRegisterMode("instance");
        }
        return app;
    }

    /** This JVM's {@link #DISCOVERY_PROPERTY}, for its children. */
    static String discovery() {
        return System.getProperty(DISCOVERY_PROPERTY, "interface");
    }

    private static boolean instanceDiscovery() {
        return discovery().equals("instance");
    }

    /** The ZooKeeper at {@code hostPort} as the registry only: not as config centre or metadata report. */
    static RegistryConfig registry(String hostPort) {
        RegistryConfig registry = new RegistryConfig("zookeeper://" + hostPort);
        registry.setUseAsConfigCenter(false);
        registry.setUseAsMetadataCenter(false);
        return registry;
    }
}
