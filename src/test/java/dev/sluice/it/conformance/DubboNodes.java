package dev.sluice.it.conformance;

import dev.sluice.it.harness.DubboPeers;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.dubbo.config.ProtocolConfig;
import org.apache.dubbo.config.ReferenceConfig;
import org.apache.dubbo.config.ServiceConfig;
import org.apache.dubbo.config.bootstrap.DubboBootstrap;
import org.apache.dubbo.remoting.Channel;
import org.apache.dubbo.remoting.RemotingServer;
import org.apache.dubbo.rpc.ProtocolServer;
import org.apache.dubbo.rpc.model.FrameworkModel;
import org.apache.dubbo.rpc.protocol.dubbo.DubboProtocol;

/**
 * Real Dubbo 3.3.6 providers and consumers for the conformance scenario, API-configured through {@link DubboPeers}
 * (registry N/A, direct URL, fastjson2 unless the pairing leaves Dubbo's default, no QoS). Each node has its own
 * {@link FrameworkModel}, so a provider can be
 * stopped and started again while a consumer in the same JVM keeps running, and two consumers never share a
 * connection.
 *
 * <p>Runs in the child JVM, on the scenario's thread.
 */
final class DubboNodes {
    /** Client Transporter name: select {@code sluice} with the system property {@code dubbo.consumer.client}. */
    static final String CLIENT_BY_PROPERTY = "sluice-by-property";

    /**
     * The {@code client=} a reference of a pairing's consumer names: none for {@value #CLIENT_BY_PROPERTY} (Dubbo's
     * consumer default applies) and for the consumer lever (it is selected by a parameter, not a Transporter).
     */
    static String clientOf(String transporter) {
        return CLIENT_BY_PROPERTY.equals(transporter) || LEVER.equals(transporter) ? null : transporter;
    }
    /**
     * Client name of the consumer lever: no {@code client=} on the reference, {@code sluice.consumer=fast} in its
     * parameters, so Sluice's {@code SluiceConsumerProtocol} answers the refer with its own invoker.
     */
    static final String LEVER = "sluice-consumer-lever";

    /** The serialization every node of this child JVM sets; null leaves Dubbo's default (hessian2). */
    private static volatile String serialization = "fastjson2";

    private DubboNodes() {}

    /** Sets the serialization of the nodes started from now on (one pairing per child JVM). */
    static void useSerialization(String name) {
        serialization = name;
    }

    /** A direct URL to {@code host:port}, with the serialization parameter only when one is set. */
    static String consumerUrl(String host, int port) {
        return serialization == null ? "dubbo://" + host + ":" + port
                : "dubbo://" + host + ":" + port + "?serialization=" + serialization;
    }

    /** {@code params}, plus {@code sluice.consumer=fast} for {@value #LEVER}. */
    static Map<String, String> withLever(String transporter, Map<String, String> params) {
        if (!LEVER.equals(transporter)) {
            return params;
        }
        Map<String, String> all = new java.util.HashMap<>(params);
        all.put("sluice.consumer", "fast");
        return all;
    }

    /** A service of {@code type} for {@link Provider#start}; {@code version} and {@code group} may be null. */
    static <T> ServiceConfig<T> service(Class<T> type, T impl, String version, String group) {
        ServiceConfig<T> service = DubboPeers.service(type, impl);
        service.setVersion(version);
        service.setGroup(group);
        return service;
    }

    /** A reference of {@code type} for {@link Consumer#start}, which fills in address, client and parameters. */
    static <T> ReferenceConfig<T> reference(Class<T> type, String version, String group) {
        ReferenceConfig<T> reference = new ReferenceConfig<>();
        reference.setInterface(type);
        reference.setVersion(version);
        reference.setGroup(group);
        return reference;
    }

    /** Protocol {@code dubbo} on {@code port} with {@code server=transporter}; {@code params} go on its URL. */
    static ProtocolConfig protocol(String transporter, int port, Map<String, String> params) {
        ProtocolConfig protocol = DubboPeers.dubboProtocol(port);
        protocol.setSerialization(serialization);
        protocol.setId("dubbo-" + port);
        protocol.setServer(transporter);
        protocol.setParameters(params);
        return protocol;
    }

    /** A provider exporting some services on one or more ports. */
    static final class Provider {
        final FrameworkModel model;
        final DubboBootstrap bootstrap;

        private Provider(List<ProtocolConfig> protocols, List<ServiceConfig<?>> services) {
            this.model = new FrameworkModel();
            DubboBootstrap boot = DubboBootstrap.newInstance(model)
                    .application(DubboPeers.application("sluice-it-provider"))
                    .registry(DubboPeers.noRegistry())
                    .protocols(protocols);
            services.forEach(boot::service);
            this.bootstrap = boot.start();
        }

        /** Exports {@code services} on {@code port} with {@code server=transporter}; {@code params} go on the URL. */
        static Provider start(String transporter, int port, Map<String, String> params,
                List<ServiceConfig<?>> services) {
            return new Provider(List.of(protocol(transporter, port, params)), services);
        }

        /** Exports each service on the protocols it names ({@link ServiceConfig#setProtocols}). */
        static Provider start(List<ProtocolConfig> protocols, List<ServiceConfig<?>> services) {
            return new Provider(protocols, services);
        }

        /** The connections the provider's server holds right now (Dubbo's view, through the Transporter). */
        List<Channel> channels() {
            List<Channel> all = new ArrayList<>();
            for (ProtocolServer server : DubboProtocol.getDubboProtocol(model).getServers()) {
                RemotingServer remoting = server.getRemotingServer();
                if (remoting != null) {
                    all.addAll(remoting.getChannels());
                }
            }
            return all;
        }

        /**
         * Stops gracefully: closes the protocol's servers first (readonly event to every consumer, provider pool
         * drained, connections closed after their queued responses), as a single-application JVM does before it
         * destroys its thread pools (ApplicationModel.onDestroy, step 3); then stops the application. This node's
         * framework model also holds Dubbo's default application, which would otherwise postpone the server close
         * until after the pools were shut down (and their running calls interrupted).
         */
        void stop() {
            DubboProtocol.getDubboProtocol(model).destroy();
            bootstrap.stop();
            model.destroy();
        }
    }

    /** A consumer of some references to provider addresses. */
    static final class Consumer {
        final FrameworkModel model;
        final DubboBootstrap bootstrap;
        private final String transporter;
        private final String host;
        private final int timeoutMillis;

        private Consumer(String application, String transporter, String host, int port, int timeoutMillis,
                Map<String, String> params, boolean dedicatedConnection, List<ReferenceConfig<?>> references) {
            this.model = new FrameworkModel();
            this.transporter = transporter;
            this.host = host;
            this.timeoutMillis = timeoutMillis;
            DubboBootstrap boot = DubboBootstrap.newInstance(model)
                    .application(DubboPeers.application(application))
                    .registry(DubboPeers.noRegistry());
            for (ReferenceConfig<?> ref : references) {
                configure(ref, port, params, dedicatedConnection);
                boot.reference(ref);
            }
            this.bootstrap = boot.start();
        }

        /**
         * Refers {@code references} at {@code host:port} with {@code client=transporter}, as
         * {@link DubboPeers#reference} does; {@code params} go on the consumer URLs. A dedicated connection
         * ({@code connections=1}) is not shared with the node's other references. For {@value #CLIENT_BY_PROPERTY}
         * the references name no client, so Dubbo's consumer default ({@code dubbo.consumer.client}) applies.
         */
        static Consumer start(String application, String transporter, String host, int port, int timeoutMillis,
                Map<String, String> params, boolean dedicatedConnection, List<ReferenceConfig<?>> references) {
            return new Consumer(application, transporter, host, port, timeoutMillis, params, dedicatedConnection,
                    references);
        }

        /**
         * Adds {@code ref} to this running consumer, at {@code port} of the same host and on a connection of its own
         * ({@code connections=1}); {@link ReferenceConfig#destroy()} closes it.
         */
        <T> T refer(ReferenceConfig<T> ref, int port, Map<String, String> params) {
            configure(ref, port, params, true);
            bootstrap.reference(ref);
            return ref.get();
        }

        private void configure(ReferenceConfig<?> ref, int port, Map<String, String> params, boolean dedicated) {
            ref.setUrl(consumerUrl(host, port));
            ref.setClient(clientOf(transporter));
            ref.setCheck(false);
            ref.setScope("remote");
            ref.setTimeout(timeoutMillis);
            ref.setRetries(0);
            ref.setParameters(withLever(transporter, params));
            if (dedicated) {
                ref.setConnections(1);
            }
        }

        void stop() {
            bootstrap.stop();
            model.destroy();
        }
    }
}
