package dev.sluice.it.conformance;

import dev.sluice.it.rpc.model.TypesService;
import org.apache.dubbo.benchmark.service.UserService;

/**
 * The calling side of a {@link Pairing}, as {@link ConformanceChecks} sees it: proxies of the services the
 * {@link ServerSide} serves, and the caller's attachment API. {@link SluiceClientSide} is the standalone client,
 * {@link DubboConsumerSide} a real Dubbo consumer over a named Transporter.
 *
 * <p>Built and closed on the scenario's main thread; the proxies may be called from any thread.
 */
interface ClientSide extends AutoCloseable {
    /** Application name of the consumer and its Dubbo attachment {@code remote.application}. */
    String APPLICATION = "sluice-interop-consumer";

    /** The unversioned TypesService; {@code fire} is one-way. */
    TypesService types();

    /** TypesService of {@code version} and {@code group} (null: none) at the main server. */
    TypesService types(String version, String group);

    UserService users();

    /** Sets a request attachment of the next call this thread makes. */
    void attach(String key, Object value);

    /** A response attachment of the last call this thread made. */
    Object responseAttachment(String key);

    /**
     * Fails unless the client holds no call waiting for a response (after a one-way call). A Dubbo consumer has no
     * public view of its pending calls: nothing to check there.
     */
    void requireNothingPending();

    /** Fails unless {@code refusal} is this client's typed error for a call the server refused. */
    void requireTypedRefusal(RuntimeException refusal);

    /** Name prefix of the event-loop threads that carry this client's calls. */
    String eventLoopThread();

    /**
     * A second client of TypesService {@code version} at {@code port} of the same host, on a connection of its own;
     * with heartbeats when {@code heartbeats}, so it keeps a connection the server would close when idle.
     */
    Peer peer(int port, String version, boolean heartbeats);

    /** Heartbeat period of {@link #peer} with heartbeats, for the metrics. */
    long heartbeatMillis();

    /** A second client with a connection of its own, see {@link #peer}; closing it closes the connection. */
    final class Peer implements AutoCloseable {
        private final TypesService types;
        private final Runnable requireConnected;
        private final Runnable close;

        /** {@code requireConnected} fails unless the client still considers its server usable. */
        Peer(TypesService types, Runnable requireConnected, Runnable close) {
            this.types = types;
            this.requireConnected = requireConnected;
            this.close = close;
        }

        TypesService types() {
            return types;
        }

        /** Fails unless the client still considers its server usable. */
        void requireConnected() {
            requireConnected.run();
        }

        @Override
        public void close() {
            close.run();
        }
    }

    @Override
    void close();
}
