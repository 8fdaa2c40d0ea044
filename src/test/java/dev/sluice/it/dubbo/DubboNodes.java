package dev.sluice.it.dubbo;

import dev.sluice.it.harness.DubboPeers;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.apache.dubbo.benchmark.service.UserService;
import org.apache.dubbo.benchmark.service.UserServiceServerImpl;
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
 * Real Dubbo 3.3.6 providers and consumers for the transport scenarios, API-configured through {@link DubboPeers}
 * (registry N/A, direct URL, fastjson2, no QoS). Each node has its own {@link FrameworkModel}, so a provider can be
 * stopped and started again while the consumer in the same JVM keeps running.
 *
 * <p>Runs in the child JVM, on the scenario's thread.
 */
final class DubboNodes {
    private DubboNodes() {}

    /** A provider exporting {@link UserService} and {@link BulkService} on one port. */
    static final class Provider {
        final FrameworkModel model;
        final DubboBootstrap bootstrap;
        final BulkServiceImpl bulk = new BulkServiceImpl();
        final int port;

        private Provider(String transporter, int port, Map<String, String> params) {
            this.port = port;
            this.model = new FrameworkModel();
            ProtocolConfig protocol = DubboPeers.dubboProtocol(port);
            protocol.setServer(transporter);
            protocol.setParameters(params);
            ServiceConfig<UserService> users = DubboPeers.service(UserService.class, new UserServiceServerImpl());
            ServiceConfig<BulkService> bulkService = DubboPeers.service(BulkService.class, bulk);
            this.bootstrap = DubboBootstrap.newInstance(model)
                    .application(DubboPeers.application("sluice-it-provider"))
                    .registry(DubboPeers.noRegistry())
                    .protocol(protocol)
                    .service(users)
                    .service(bulkService)
                    .start();
        }

        /** Exports on {@code port} with {@code server=transporter}; {@code params} go on the protocol URL. */
        static Provider start(String transporter, int port, Map<String, String> params) {
            return new Provider(transporter, port, params);
        }

        /** The connections the provider's server holds right now (Dubbo's view, through the Transporter). */
        List<Channel> channels() {
            List<Channel> all = new ArrayList<>();
            for (ProtocolServer server : DubboProtocol.getDubboProtocol(model).getServers()) {
                RemotingServer remoting = server.getRemotingServer();
                if (remoting != null) {
                    Collection<Channel> channels = remoting.getChannels();
                    all.addAll(channels);
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

    /** A consumer with references to both services of one provider address. */
    static final class Consumer {
        final FrameworkModel model;
        final DubboBootstrap bootstrap;
        final ReferenceConfig<UserService> usersRef;
        final ReferenceConfig<BulkService> bulkRef;
        final UserService users;
        final BulkService bulk;

        private Consumer(String transporter, String host, int port, int timeoutMillis, Map<String, String> params,
                boolean dedicatedConnection) {
            this.model = new FrameworkModel();
            usersRef = reference(UserService.class, transporter, host, port, timeoutMillis, params, dedicatedConnection);
            bulkRef = reference(BulkService.class, transporter, host, port, timeoutMillis, params, dedicatedConnection);
            this.bootstrap = DubboBootstrap.newInstance(model)
                    .application(DubboPeers.application("sluice-it-consumer"))
                    .registry(DubboPeers.noRegistry())
                    .reference(usersRef)
                    .reference(bulkRef)
                    .start();
            this.users = usersRef.get();
            this.bulk = bulkRef.get();
        }

        /**
         * Refers both services at {@code host:port} with {@code client=transporter}; {@code params} go on the
         * consumer URLs. A dedicated connection ({@code connections=1}) is not shared with other consumers. For
         * {@value DubboTransportScenario#CLIENT_BY_PROPERTY} the references name no client, so Dubbo's consumer
         * default ({@code dubbo.consumer.client}) applies.
         */
        static Consumer start(String transporter, String host, int port, int timeoutMillis,
                Map<String, String> params, boolean dedicatedConnection) {
            return new Consumer(transporter, host, port, timeoutMillis, params, dedicatedConnection);
        }

        private static <T> ReferenceConfig<T> reference(Class<T> type, String transporter, String host, int port,
                int timeoutMillis, Map<String, String> params, boolean dedicated) {
            ReferenceConfig<T> ref = DubboPeers.reference(type, host, port, timeoutMillis);
            ref.setClient(DubboTransportScenario.CLIENT_BY_PROPERTY.equals(transporter) ? null : transporter);
            ref.setParameters(params);
            if (dedicated) {
                ref.setConnections(1);
            }
            return ref;
        }

        /** Whether Dubbo's cluster would route a call to the provider now (false once it sent "readonly"). */
        boolean available() {
            return usersRef.getInvoker() != null && usersRef.getInvoker().isAvailable();
        }

        void stop() {
            bootstrap.stop();
            model.destroy();
        }
    }
}
