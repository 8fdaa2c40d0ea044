package dev.sluice.it.conformance;

import dev.sluice.it.rpc.model.TypesServiceImpl;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * The answering side of a {@link Pairing}, as {@link ConformanceChecks} sees it: one server on {@link #port()}
 * serving TypesService unversioned, 1.0 (answers prefixed {@code v1:}) and 2.0 in group {@code a} ({@code v2a:}),
 * and the benchmark UserService. {@link DubboProviderSide} is a real Dubbo provider over a named Transporter,
 * {@link SluiceServerSide} the standalone server.
 *
 * <p>Built and closed on the scenario's main thread.
 */
interface ServerSide extends AutoCloseable {
    int port();

    /** The unversioned TypesService implementation: its one-way latch and its {@code slow} gate. */
    TypesServiceImpl types();

    /** Response attachments the server adds to every answer by itself. */
    Map<String, String> ownResponseAttachments();

    /** Name prefix of the event-loop threads that carry this server's connections. */
    String eventLoopThread();

    /** Calls of the main server accepted and not answered yet (those of {@code slow}, in the checks). */
    int inFlight();

    /**
     * Starts a graceful close of the main server: readonly event to every client, in-flight calls finish (waiting
     * up to {@code wait}), then the connections close. Completes when closed.
     */
    CompletableFuture<Void> closeGracefully(Duration wait);

    /** How long {@link #closeGracefully} may take once the calls it waits for are answered. */
    Duration closeLimit();

    /**
     * A server on a port of its own that closes connections idle for about 1 s, serving TypesService version
     * {@link HeartbeatServer#VERSION} with answers prefixed {@code hb:}.
     */
    HeartbeatServer startHeartbeatServer();

    /** The server of the heartbeat check. */
    interface HeartbeatServer extends AutoCloseable {
        String VERSION = "hb";

        int port();

        /**
         * Waits {@code millis} while the client whose socket has local port {@code clientPort} stays idle; returns
         * the heartbeats the server read from it meanwhile, or -1 when this server cannot tell.
         */
        int idle(int clientPort, long millis) throws InterruptedException;

        @Override
        void close();
    }

    @Override
    void close();
}
