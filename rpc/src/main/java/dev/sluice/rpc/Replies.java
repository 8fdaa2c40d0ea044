package dev.sluice.rpc;

import dev.sluice.codec.dubbo.DubboRequest;
import dev.sluice.codec.dubbo.DubboResponse;
import dev.sluice.codec.dubbo.internal.DubboConstants;
import dev.sluice.transport.Connection;
import dev.sluice.transport.ConnectionClosedException;
import dev.sluice.transport.PendingBytesExceededException;
import dev.sluice.transport.WriteListener;
import dev.sluice.transport.internal.LogLimiter;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The reply path of a {@link SluiceServer}: sends a response, and counts and logs one that cannot be sent (with a
 * short error response in its place where the connection still takes one, at once or once its backlog drains).
 *
 * <p>Threads: any, and never throws. The event loop replies to heartbeats and refused requests
 * ({@link ServerHandler}); a service thread replies with a call's result, or the thread that completes an
 * asynchronous result ({@link ServiceInvoker}); a write failure is counted, and held-back substitutes are sent, on
 * the event loop ({@code ReplyListener}).
 */
final class Replies {
    private static final Logger log = LoggerFactory.getLogger(Replies.class);
    /** A peer that stops reading makes every answer a drop: a line a second (docs/reliability.md A9b). */
    private static final LogLimiter DROPS = new LogLimiter();
    /** Its own budget, so the reason a connection was closed is not lost among the drops that led to it. */
    private static final LogLimiter BACKLOG_CLOSES = new LogLimiter();

    /** Most substitute answers one connection may hold back for its pending-bytes cap (see {@link #reply}). */
    static final int MAX_WAITING = 256;
    private static final String BACKLOG = "sluice.replyBacklog";

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
     *
     * <p>A substitute refused for the cap as well (the usual case: the backlog that refused the response is still
     * there) waits in the connection's {@link Backlog} and is sent as soon as the backlog has drained enough to take
     * it, on the completion of any earlier reply's write (docs/reliability.md C18c). Waiting costs one short error
     * response each, and at most {@link #MAX_WAITING} per connection: beyond that the connection is closed, which
     * every caller on it then learns.
     */
    void reply(Connection connection, DubboResponse response) {
        try {
            connection.send(response, new ReplyListener(connection, response.id()));
        } catch (PendingBytesExceededException e) {
            dropped(connection, response, e);
            // An error response is already short: it waits itself. A value or exception is replaced by a status 80.
            DubboResponse instead = !response.isOk() ? response : DubboResponse.error(response.id(),
                    response.serializationId(), DubboConstants.STATUS_SERVER_ERROR, "The response to request "
                    + response.id() + " was dropped by server " + connection.localAddress() + ": " + e.messageBytes()
                    + " bytes would exceed the connection's pending-bytes cap of " + e.cap() + " (" + e.pendingBytes()
                    + " bytes already queued); the consumer reads too slowly. The call was executed.");
            replyInstead(connection, response, instead);
        } catch (ConnectionClosedException e) {
            dropped(connection, response, e);
        } catch (Throwable t) { // NOPMD: an Error while encoding must still answer the caller
            dropped(connection, response, t);
            replyInstead(connection, response, DubboResponse.error(response.id(), response.serializationId(),
                    DubboConstants.STATUS_BAD_RESPONSE, "Server " + connection.localAddress() + " failed to encode"
                    + " the response to request " + response.id() + ": " + t + ". The call was executed."));
        }
    }

    private void dropped(Connection connection, DubboResponse response, Throwable cause) {
        dropped.incrementAndGet();
        DROPS.warn(log, "Dropped the response to request {} from {}: {}", response.id(), connection.remoteAddress(),
                cause.toString());
    }

    /**
     * Sends a short error in place of a response that could not be sent; one refused for the cap waits in the
     * connection's backlog. Any other failure is only logged.
     */
    private void replyInstead(Connection connection, DubboResponse dropped, DubboResponse instead) {
        if (dropped.isHeartbeat()) {
            return; // nobody waits on a heartbeat's answer with a call
        }
        Backlog backlog = backlog(connection);
        if (backlog.waiting.incrementAndGet() > MAX_WAITING) {
            backlog.waiting.decrementAndGet();
            if (backlog.closing.compareAndSet(false, true)) {
                BACKLOG_CLOSES.warn(log, "Closing the connection from {}: {} answers wait for its pending-bytes"
                        + " cap, the most one connection may hold; the consumer does not read",
                        connection.remoteAddress(), MAX_WAITING);
                connection.close();
            }
            return;
        }
        backlog.answers.offer(instead);
        backlog.send(connection); // the backlog may have drained meanwhile, with no write left to say so
    }

    /** The connection's backlog of substitutes, created on its first use. */
    private Backlog backlog(Connection connection) {
        Object b = connection.attribute(BACKLOG);
        if (b == null) {
            synchronized (this) { // rare: the first answer a connection holds back
                b = connection.attribute(BACKLOG);
                if (b == null) {
                    b = new Backlog();
                    connection.attribute(BACKLOG, b);
                }
            }
        }
        return (Backlog) b;
    }

    /**
     * Substitute answers refused for a connection's pending-bytes cap, waiting for its backlog to drain. Threads: any;
     * {@link #send} runs on the thread that queued a substitute and on the event loop as each earlier reply is
     * written, so every substitute is tried again after the write that makes room for it.
     */
    private static final class Backlog {
        final ConcurrentLinkedQueue<DubboResponse> answers = new ConcurrentLinkedQueue<>();
        /** Substitutes queued or being sent; bounded by {@link #MAX_WAITING}. */
        final AtomicInteger waiting = new AtomicInteger();
        final AtomicBoolean closing = new AtomicBoolean();

        void send(Connection connection) {
            for (DubboResponse r; (r = answers.poll()) != null; ) {
                try {
                    connection.send(r, new WriteListener() {
                        @Override
                        public void onWritten() {
                            send(connection); // room again for the next one
                        }

                        @Override
                        public void onWriteFailed(Throwable cause) {
                        }
                    });
                    waiting.decrementAndGet();
                } catch (PendingBytesExceededException e) {
                    answers.offer(r); // still full: the next completed write tries again
                    return;
                } catch (Throwable t) { // NOPMD: never let a failed substitute escape a completion callback
                    waiting.decrementAndGet();
                    DROPS.warn(log, "Could not answer request {} from {} with an error either: {}", r.id(),
                            connection.remoteAddress(), t.toString());
                }
            }
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
            Object backlog = connection.attribute(BACKLOG);
            if (backlog != null) {
                ((Backlog) backlog).send(connection);
            }
        }

        @Override
        public void onWriteFailed(Throwable cause) {
            dropped.incrementAndGet();
            DROPS.warn(log, "Dropped the response to request {} from {}: the write failed: {}", id,
                    connection.remoteAddress(), cause.toString());
        }
    }
}
