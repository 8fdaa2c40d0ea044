package dev.sluice.rpc;

import dev.sluice.codec.dubbo.DubboRequest;
import dev.sluice.codec.dubbo.DubboResponse;
import dev.sluice.codec.dubbo.internal.DubboConstants;
import dev.sluice.transport.Connection;
import dev.sluice.transport.ConnectionClosedException;
import dev.sluice.transport.IdleState;
import dev.sluice.transport.SluiceException;
import dev.sluice.transport.TransportHandler;
import dev.sluice.transport.WriteListener;
import dev.sluice.transport.internal.LogLimiter;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The transport half of a {@link SluiceClient}: matches responses to waiting calls by id, answers the provider's
 * heartbeats, notes its readonly and writeable events, sends heartbeats when reads go idle and closes a connection
 * that stays silent for the idle timeout, and probes a connection suspected of a stall.
 *
 * <p>Threads: every method runs on the connection's event loop and never blocks. A response only completes its
 * {@link PendingCall}; its value is parsed later by the waiting caller or on the callback executor.
 */
final class ClientHandler implements TransportHandler {
    private static final Logger log = LoggerFactory.getLogger(ClientHandler.class);
    /** A provider can send readonly events as often as it likes (docs/reliability.md A9b). */
    private static final LogLimiter READONLY_EVENTS = new LogLimiter();
    /** Connection attribute set while the provider announced it is shutting down; read by calling threads. */
    static final String READONLY = "sluice.readonly";
    private static final String IDLE_COUNT = "sluice.idle";

    private final PendingCalls pending;
    private final Duration heartbeat;
    private final Duration idleTimeout;
    private final byte heartbeatSerialization;

    ClientHandler(PendingCalls pending, Duration heartbeat, Duration idleTimeout, Serialization serialization) {
        this.pending = pending;
        this.heartbeat = heartbeat;
        this.idleTimeout = idleTimeout;
        this.heartbeatSerialization = serialization.id();
    }

    @Override
    public void connected(Connection connection) {
        connection.attribute(IDLE_COUNT, new AtomicInteger());
    }

    @Override
    public void received(Connection connection, Object message) {
        assert connection.inEventLoop();
        Object idle = connection.attribute(IDLE_COUNT);
        if (idle != null) {
            ((AtomicInteger) idle).set(0);
        }
        if (message instanceof DubboResponse) {
            DubboResponse response = (DubboResponse) message;
            if (response.isHeartbeat()) {
                return;
            }
            PendingCall call = pending.take(response.id());
            if (call == null) {
                log.debug("Response {} from {} matches no waiting call (timed out?)", response.id(),
                        connection.remoteAddress());
                return;
            }
            if (response.isOk()) {
                if (response.hasException() && !call.meta.answers) {
                    call.responseAttachments = response.attachments();
                    call.fail(response.exception());
                } else {
                    call.succeed(response);
                }
            } else {
                int status = response.status();
                boolean retryable = status == DubboConstants.STATUS_SERVER_THREADPOOL_EXHAUSTED
                        || (status == DubboConstants.STATUS_SERVER_ERROR && response.errorMessage() != null
                                && response.errorMessage().contains("shutting down"));
                call.fail(PendingCalls.statusFailure(call, connection.remoteAddress(), status,
                        response.errorMessage(), retryable, null));
            }
            return;
        }
        if (message instanceof DubboRequest) {
            DubboRequest request = (DubboRequest) message;
            if (request.isHeartbeat() && request.isTwoWay()) {
                try {
                    connection.send(DubboResponse.replyHeartbeat(request), WriteListener.NONE);
                } catch (SluiceException e) {
                    log.debug("Heartbeat reply not sent", e);
                }
            } else if (request.isEvent() && DubboConstants.READONLY_EVENT.equals(request.eventData())) {
                READONLY_EVENTS.info(log, "Provider {} is shutting down (readonly event)", connection.remoteAddress());
                connection.attribute(READONLY, Boolean.TRUE);
            } else if (request.isEvent() && DubboConstants.WRITEABLE_EVENT.equals(request.eventData())) {
                connection.attribute(READONLY, null);
            }
        }
    }

    @Override
    public void idle(Connection connection, IdleState state) {
        assert connection.inEventLoop();
        if (state != IdleState.READER_IDLE) {
            return;
        }
        AtomicInteger count = (AtomicInteger) connection.attribute(IDLE_COUNT);
        int idlePeriods = count == null ? 1 : count.incrementAndGet();
        if ((long) idlePeriods * heartbeat.toMillis() >= idleTimeout.toMillis()) {
            // Nothing read for the whole idle timeout although we kept sending heartbeats: the peer is gone
            // (half-open connection). Drop it; the transport reconnects.
            log.warn("No reads from {} for {} ms; closing the connection to reconnect", connection.remoteAddress(),
                    idleTimeout.toMillis());
            connection.close();
            return;
        }
        sendHeartbeat(connection);
    }

    /** The stall probe is a two-way heartbeat, which a provider answers on its I/O thread. */
    @Override
    public boolean probe(Connection connection) {
        sendHeartbeat(connection);
        return true;
    }

    @Override
    public void stallChanged(Connection connection, boolean stalled) {
        log.debug("{} {}", connection, stalled ? "stalled: new calls refused, not sent" : "answers again");
    }

    private void sendHeartbeat(Connection connection) {
        try {
            connection.send(DubboRequest.heartbeat(pending.nextId(), heartbeatSerialization), WriteListener.NONE);
        } catch (SluiceException e) {
            log.debug("Heartbeat not sent to {}", connection.remoteAddress(), e);
        }
    }

    @Override
    public void disconnected(Connection connection, Throwable cause) {
        pending.failAll(connection, cause instanceof ConnectionClosedException ? (ConnectionClosedException) cause
                : new ConnectionClosedException("Connection closed", true, cause));
    }
}
