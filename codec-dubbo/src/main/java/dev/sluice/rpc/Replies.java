package dev.sluice.rpc;

import dev.sluice.codec.dubbo.DubboConstants;
import dev.sluice.codec.dubbo.DubboRequest;
import dev.sluice.codec.dubbo.DubboResponse;
import dev.sluice.transport.Connection;
import dev.sluice.transport.ConnectionClosedException;
import dev.sluice.transport.LogLimiter;
import dev.sluice.transport.PendingBytesExceededException;
import dev.sluice.transport.WriteListener;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The reply path of a {@link SluiceServer}: sends a response, and counts and logs one that cannot be sent (with a
 * short error response in its place where the connection still takes one).
 *
 * <p>Threads: any, and never throws. The event loop replies to heartbeats and refused requests
 * ({@link ServerHandler}); a service thread replies with a call's result, or the thread that completes an
 * asynchronous result ({@link ServiceInvoker}); a write failure is counted on the event loop ({@code ReplyListener}).
 */
final class Replies {
    private static final Logger log = LoggerFactory.getLogger(Replies.class);
    /** A peer that stops reading makes every answer a drop: a line a second (docs/reliability.md A9b). */
    private static final LogLimiter DROPS = new LogLimiter();

    private final AtomicLong dropped = new AtomicLong();

    /** Responses dropped so far (see {@link SluiceServer.Stats#droppedResponses()}). */
    long dropped() {
        return dropped.get();
    }

    /** A value or exception response to {@code request}, with the response attachments when the caller takes them. */
    static DubboResponse withAttachments(DubboRequest request, Object value, Throwable error,
                                         Map<String, Object> extra) {
        Map<String, Object> attachments = null;
        if (request.supportsResponseAttachments()) {
            if (extra == null) {
                attachments = DubboResponse.DEFAULT_ATTACHMENTS;
            } else {
                attachments = new HashMap<>(DubboResponse.DEFAULT_ATTACHMENTS);
                attachments.putAll(extra);
            }
        }
        return error != null
                ? DubboResponse.exception(request.id(), request.serializationId(), error, attachments)
                : DubboResponse.value(request.id(), request.serializationId(), value, attachments);
    }

    /** Answers {@code request} unless it is one-way. */
    void answer(Connection connection, DubboRequest request, DubboResponse response) {
        if (request.isTwoWay()) {
            reply(connection, response);
        }
    }

    /**
     * Sends {@code response}; never throws. A response that cannot be sent is counted and logged as dropped, and the
     * caller is answered with a short error response instead where the connection still takes one: a response over
     * the pending-bytes cap (the call ran; without an answer its caller would wait out its whole timeout), or one
     * the codec failed to encode (an {@link Error}, which the encoder does not turn into a BAD_RESPONSE itself).
     * A response refused because the connection closed, or queued and then failed at the write, is counted and
     * logged; nothing can reach that caller any more.
     */
    void reply(Connection connection, DubboResponse response) {
        try {
            connection.send(response, new ReplyListener(connection, response.id()));
        } catch (PendingBytesExceededException e) {
            dropped(connection, response, e);
            replyInstead(connection, response, DubboConstants.STATUS_SERVER_ERROR, "The response to request "
                    + response.id() + " was dropped by server " + connection.localAddress() + ": " + e.messageBytes()
                    + " bytes would exceed the connection's pending-bytes cap of " + e.cap() + " (" + e.pendingBytes()
                    + " bytes already queued); the consumer reads too slowly. The call was executed.");
        } catch (ConnectionClosedException e) {
            dropped(connection, response, e);
        } catch (Throwable t) { // NOPMD: an Error while encoding must still answer the caller
            dropped(connection, response, t);
            replyInstead(connection, response, DubboConstants.STATUS_BAD_RESPONSE, "Server "
                    + connection.localAddress() + " failed to encode the response to request " + response.id()
                    + ": " + t + ". The call was executed.");
        }
    }

    private void dropped(Connection connection, DubboResponse response, Throwable cause) {
        dropped.incrementAndGet();
        DROPS.warn(log, "Dropped the response to request {} from {}: {}", response.id(), connection.remoteAddress(),
                cause.toString());
    }

    /** Sends a short error in place of a response that could not be sent; a failure here is only logged. */
    private static void replyInstead(Connection connection, DubboResponse dropped, byte status, String text) {
        if (dropped.isHeartbeat()) {
            return; // nobody waits on a heartbeat's answer with a call
        }
        try {
            connection.send(DubboResponse.error(dropped.id(), dropped.serializationId(), status, text),
                    WriteListener.NONE);
        } catch (Throwable t) { // NOPMD: never let a failed substitute escape a completion callback
            DROPS.warn(log, "Could not answer request {} from {} with an error either: {}", dropped.id(),
                    connection.remoteAddress(), t.toString());
        }
    }

    /** Counts a response that was queued and then failed at the write (connection closed under it). Event loop. */
    private final class ReplyListener implements WriteListener {
        private final Connection connection;
        private final long id;

        ReplyListener(Connection connection, long id) {
            this.connection = connection;
            this.id = id;
        }

        @Override
        public void onWritten() {
        }

        @Override
        public void onWriteFailed(Throwable cause) {
            dropped.incrementAndGet();
            DROPS.warn(log, "Dropped the response to request {} from {}: the write failed: {}", id,
                    connection.remoteAddress(), cause.toString());
        }
    }
}
