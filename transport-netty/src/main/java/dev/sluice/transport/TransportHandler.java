package dev.sluice.transport;

/**
 * The protocol layer's view of connection events. Every method runs on the connection's event loop: it must not
 * block. Hand slow work (service invocation, user callbacks) to an executor.
 */
public interface TransportHandler {
    /** The connection is open and may be sent on. */
    default void connected(Connection connection) {
    }

    /**
     * A decoded inbound message. Ownership passes to the handler: a message holding a buffer (reference counted)
     * must be released by whoever finally consumes it.
     */
    void received(Connection connection, Object message);

    /** An idle timer fired; see {@link TransportOptions} for the periods. */
    default void idle(Connection connection, IdleState state) {
    }

    /** A failure on the connection (decode error, I/O error). The connection may still be open. */
    default void caught(Connection connection, Throwable cause) {
    }

    /** The connection closed; {@code cause} is why, or a {@link ConnectionClosedException} for a plain close. */
    default void disconnected(Connection connection, Throwable cause) {
    }

    /**
     * Stall detection ({@link TransportOptions#stallTimeout()}) asks for a liveness probe: send the protocol's
     * request that the peer answers on its I/O thread whatever its service threads are doing (Dubbo: a two-way
     * heartbeat). Return false when the protocol has none; stall detection then stays off for this connection.
     */
    default boolean probe(Connection connection) {
        return false;
    }

    /**
     * The connection became stalled ({@code stalled} true: the probe went unanswered for the stall timeout) or was
     * read from again ({@code stalled} false). {@link Connection#isStalled()} already says so when this runs.
     */
    default void stallChanged(Connection connection, boolean stalled) {
    }
}
