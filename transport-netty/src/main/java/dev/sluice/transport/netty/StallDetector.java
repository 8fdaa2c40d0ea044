package dev.sluice.transport.netty;

import dev.sluice.transport.TransportHandler;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundBuffer;
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
 * {@code 2.4T} after the first unanswered write.
 *
 * <p><b>Silence counts only while our bytes are not moving.</b> A frame enters the pipeline long before its last byte
 * reaches the socket when it is large or the path is slow, and the probe waits behind it. So while the channel's
 * outbound buffer is making progress (its front write advanced or completed since the last check), the peer is
 * taking our bytes: both clocks (since the write, since the probe) start again. A frozen peer's receive window
 * closes once its buffer is full, our bytes stop moving, and its silence counts from then. What the kernel's send
 * buffer has taken is not seen here, so only an upload larger than that buffer is protected.
 *
 * <p>Two guards keep a slow or paused <em>client</em> from being taken for a stalled peer:
 * <ul>
 *   <li><b>Local pauses are not counted.</b> The checks measure how late they run (as jHiccup does). A check that
 *       runs more than half the stall timeout late means this event loop was held up (a GC pause, a starved CPU, a
 *       blocked loop): the time beyond one period is taken off the silence being judged, and that check judges
 *       nothing, so that what the peer sent meanwhile is read first. The silence judged is the time this client
 *       could have read, not the wall-clock time. Lateness below that bound is the ordinary jitter of a busy
 *       machine: were it a pause too, a loaded machine whose every check runs a little late would never judge at
 *       all, and a frozen peer would go unnoticed exactly when load makes it likeliest.</li>
 *   <li><b>Never all at once.</b> The mark itself goes through {@link StallGuard}: at most half of the process's
 *       connections in use may be stalled at once, since most peers silent together points at this process or
 *       its host. A connection refused the mark stays available and probes again.</li>
 * </ul>
 *
 * <p>Threads: the channel's event loop only (every method is a Netty callback or a task scheduled on that loop).
 */
final class StallDetector extends ChannelDuplexHandler {
    private static final Logger log = LoggerFactory.getLogger(StallDetector.class);

    private final NettyConnection connection;
    private final TransportHandler handler;
    private final StallGuard guard;
    private final long timeoutNanos;
    /** Time of the first write after the last read; 0 when nothing was written since the last read. */
    private long writtenSince;
    /** {@link #paused} when {@link #writtenSince} was taken. */
    private long pausedAtWrite;
    /** When the probe was sent; 0 when none is out. */
    private long probeSent;
    /** {@link #paused} when {@link #probeSent} was taken. */
    private long pausedAtProbe;
    private boolean probing = true;
    private final long periodNanos;
    /** When the last check ran; to notice that this event loop itself was held up. */
    private long lastCheck;
    /** Total time this loop was held up, as the checks measured it: not counted as the peer's silence. */
    private long paused;
    /** Something was written since the last check. */
    private boolean wroteSinceCheck;
    /** When a check last saw this connection in use (written to, or waiting for an answer); read by the guard. */
    private volatile long inUseAt;
    /** The guard refused the mark in this silence already (logged once per silence). */
    private boolean refusedLogged;
    private ScheduledFuture<?> tick;
    /** The front message of the channel's outbound buffer at the last check, and how far it had been written. */
    private Object outboundFront;
    private long outboundFrontProgress;

    StallDetector(NettyConnection connection, TransportHandler handler, long timeoutNanos) {
        this(connection, handler, timeoutNanos, StallGuard.PROCESS);
    }

    StallDetector(NettyConnection connection, TransportHandler handler, long timeoutNanos, StallGuard guard) {
        this.connection = connection;
        this.handler = handler;
        this.timeoutNanos = timeoutNanos;
        this.guard = guard;
        this.periodNanos = Math.max(TimeUnit.MILLISECONDS.toNanos(5), timeoutNanos / 5);
    }

    /** Any thread (the guard). */
    boolean isStalled() {
        return connection.isStalled();
    }

    /** Any thread (the guard): written to or waiting for an answer within the last ten stall timeouts. */
    boolean inUse(long now) {
        long at = inUseAt;
        return at != 0 && now - at < 10 * timeoutNanos;
    }

    /** Event loop of this connection, called by {@link StallGuard#tryStall} under the guard's monitor. */
    void markStalled() {
        connection.stalled(true);
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
        guard.register(this);
        // Fixed delay, not fixed rate: after a pause, one late check, not a burst of catch-up checks before any read.
        tick = ctx.executor().scheduleWithFixedDelay(() -> check(ctx), periodNanos, periodNanos,
                TimeUnit.NANOSECONDS);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
        writtenSince = 0;
        probeSent = 0;
        refusedLogged = false;
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
            pausedAtWrite = paused;
        }
        wroteSinceCheck = true;
        ctx.write(msg, promise);
    }

    private void check(ChannelHandlerContext ctx) {
        assert ctx.executor().inEventLoop();
        long now = System.nanoTime();
        long gap = now - lastCheck;
        lastCheck = now;
        if (wroteSinceCheck || writtenSince != 0) {
            inUseAt = nonZero(now);
            wroteSinceCheck = false;
        }
        if (gap > periodNanos + timeoutNanos / 2) {
            // This loop was held up itself (a GC pause, a starved CPU, a blocked loop): that time is not the peer's
            // silence, and what the peer sent meanwhile may be waiting in the socket, unread. Let the loop read it
            // before judging the peer: a later check decides.
            paused += gap - periodNanos;
            return;
        }
        if (!probing || !ctx.channel().isActive() || connection.isStalled() || writtenSince == 0) {
            return;
        }
        if (outboundMoved(ctx)) {
            // Our bytes are reaching the peer: what it has not answered yet may be behind them. Start again.
            writtenSince = nonZero(now);
            pausedAtWrite = paused;
            if (probeSent != 0) {
                probeSent = writtenSince;
                pausedAtProbe = paused;
            }
            return;
        }
        if (probeSent != 0) {
            long silent = now - probeSent - (paused - pausedAtProbe);
            if (silent >= timeoutNanos) {
                stall(now, silent);
            }
            return;
        }
        if (now - writtenSince - (paused - pausedAtWrite) >= timeoutNanos) {
            sendProbe(now);
        }
    }

    /**
     * Event loop: whether the channel's outbound buffer made progress since the last call (its front write was
     * written further, or completed and another took its place); false when it holds nothing.
     */
    private boolean outboundMoved(ChannelHandlerContext ctx) {
        ChannelOutboundBuffer out = ctx.channel().unsafe().outboundBuffer();
        Object front = out == null ? null : out.current();
        long progress = front == null ? 0 : out.currentProgress();
        boolean moved = front != null && (front != outboundFront || progress != outboundFrontProgress);
        outboundFront = front;
        outboundFrontProgress = progress;
        return moved;
    }

    private void stall(long now, long silent) {
        String refused = guard.tryStall(this, now);
        if (refused != null) {
            if (!refusedLogged) {
                refusedLogged = true;
                log.info("{} has not answered its liveness probe for {} ms but stays available: {}; probing again",
                        connection, TimeUnit.NANOSECONDS.toMillis(silent), refused);
            }
            sendProbe(now);
            return;
        }
        log.warn("{} is stalled: written {} ms ago, nothing read since, and the liveness probe sent {} ms ago"
                + " is unanswered (stall timeout {} ms; {} ms of this client's own pauses not counted); reported"
                + " unavailable until it reads again", connection, TimeUnit.NANOSECONDS.toMillis(now - writtenSince),
                TimeUnit.NANOSECONDS.toMillis(now - probeSent), TimeUnit.NANOSECONDS.toMillis(timeoutNanos),
                TimeUnit.NANOSECONDS.toMillis(paused - pausedAtWrite));
        notifyHandler(true);
    }

    private void sendProbe(long now) {
        probeSent = nonZero(now);
        pausedAtProbe = paused;
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
        outboundFront = null;
        guard.unregister(this);
        if (tick != null) {
            tick.cancel(false);
            tick = null;
        }
    }
}
