package dev.sluice.transport.netty;

import dev.sluice.transport.TransportHandler;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Notices a peer that holds its connection open but has stopped answering (a frozen process, a black-holing path),
 * and tells it from a peer that is merely slow to answer one call.
 *
 * <p>Rule, with {@code T} the stall timeout ({@link dev.sluice.transport.TransportOptions#stallTimeout()}):
 * <ol>
 *   <li>When something was written and nothing at all has been read for {@code T} since the first such write,
 *       the protocol's liveness probe is sent ({@link TransportHandler#probe}); the peer answers it on its I/O
 *       thread, so a long-running call or a saturated service pool still answers it.</li>
 *   <li>When nothing is read for {@code T} after the probe was sent, the connection is stalled
 *       ({@link NettyConnection#isStalled()}, {@link TransportHandler#stallChanged}).</li>
 *   <li>Any byte read clears the stall and starts over. Nothing here closes the connection or fails a call: calls
 *       in flight keep their own timeouts, and the idle rules close a connection that stays silent.</li>
 * </ol>
 * A check runs every {@code T / 5} (at least every 5 ms), so detection takes between {@code 2T} and about
 * {@code 2.4T} after the first unanswered write. A check that runs late (more than two periods after the previous
 * one: this event loop was itself held up, by a GC pause or a starved CPU) only notes the time, so that the bytes
 * that arrived meanwhile are read before the peer is judged: the client's own pause is not the peer's stall.
 *
 * <p>Threads: the channel's event loop only (every method is a Netty callback or a task scheduled on that loop).
 */
final class StallDetector extends ChannelDuplexHandler {
    private static final Logger log = LoggerFactory.getLogger(StallDetector.class);

    private final NettyConnection connection;
    private final TransportHandler handler;
    private final long timeoutNanos;
    /** Time of the first write after the last read; 0 when nothing was written since the last read. */
    private long writtenSince;
    /** When the probe was sent; 0 when none is out. */
    private long probeSent;
    private boolean probing = true;
    private final long periodNanos;
    /** When the last check ran; to notice that this event loop itself was held up. */
    private long lastCheck;
    private ScheduledFuture<?> tick;

    StallDetector(NettyConnection connection, TransportHandler handler, long timeoutNanos) {
        this.connection = connection;
        this.handler = handler;
        this.timeoutNanos = timeoutNanos;
        this.periodNanos = Math.max(TimeUnit.MILLISECONDS.toNanos(5), timeoutNanos / 5);
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        if (ctx.channel().isActive()) {
            start(ctx);
        }
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        start(ctx);
        super.channelActive(ctx);
    }

    private void start(ChannelHandlerContext ctx) {
        if (tick != null) {
            return;
        }
        lastCheck = System.nanoTime();
        tick = ctx.executor().scheduleAtFixedRate(() -> check(ctx), periodNanos, periodNanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
        writtenSince = 0;
        probeSent = 0;
        if (connection.isStalled()) {
            connection.stalled(false);
            log.info("{} answers again; no longer stalled", connection);
            notifyHandler(false);
        }
        ctx.fireChannelRead(msg);
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) throws Exception {
        if (writtenSince == 0) {
            writtenSince = nonZero(System.nanoTime());
        }
        ctx.write(msg, promise);
    }

    private void check(ChannelHandlerContext ctx) {
        assert ctx.executor().inEventLoop();
        long now = System.nanoTime();
        boolean late = now - lastCheck > 2 * periodNanos;
        lastCheck = now;
        if (late) {
            // This loop was held up itself (a GC pause, a starved CPU): what the peer sent meanwhile may be waiting
            // in the socket, unread. Let the loop read it before judging the peer: the next check decides.
            return;
        }
        if (!probing || !ctx.channel().isActive() || connection.isStalled() || writtenSince == 0) {
            return;
        }
        if (probeSent != 0) {
            if (now - probeSent >= timeoutNanos) {
                connection.stalled(true);
                log.warn("{} is stalled: written {} ms ago, nothing read since, and the liveness probe sent {} ms ago"
                        + " is unanswered (stall timeout {} ms); reported unavailable until it reads again",
                        connection, TimeUnit.NANOSECONDS.toMillis(now - writtenSince),
                        TimeUnit.NANOSECONDS.toMillis(now - probeSent), TimeUnit.NANOSECONDS.toMillis(timeoutNanos));
                notifyHandler(true);
            }
            return;
        }
        if (now - writtenSince >= timeoutNanos) {
            probeSent = nonZero(now);
            boolean sent;
            try {
                sent = handler.probe(connection);
            } catch (Throwable t) {
                log.debug("Stall probe to {} not sent: {}", connection, t.toString());
                probeSent = 0; // try again on the next tick
                return;
            }
            if (!sent) {
                probing = false;
                probeSent = 0;
                log.debug("The protocol on {} has no liveness probe; stall detection is off for it", connection);
            }
        }
    }

    private void notifyHandler(boolean stalled) {
        try {
            handler.stallChanged(connection, stalled);
        } catch (Throwable t) {
            log.warn("TransportHandler.stallChanged threw for {}", connection, t);
        }
    }

    private static long nonZero(long nanos) {
        return nanos == 0 ? 1 : nanos;
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        stop();
        super.channelInactive(ctx);
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        stop();
    }

    private void stop() {
        if (tick != null) {
            tick.cancel(false);
            tick = null;
        }
    }
}
