package dev.sluice.transport.netty;

import dev.sluice.transport.FrameTimeoutException;
import dev.sluice.transport.codec.FrameDecoder;
import dev.sluice.transport.internal.LogLimiter;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.codec.DecoderException;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Feeds inbound bytes to the protocol's {@link FrameDecoder}, keeping bytes of incomplete frames for the next read.
 * Runs on the channel's event loop. When the decoder throws anything, the stream is unusable: the readable bytes are
 * dropped (no busy loop re-reading them), every later byte is discarded unread, and the error goes down the pipeline
 * as a {@link DecoderException}, where the connection handler closes the channel with that reason. That includes an
 * {@link Error} (a {@code StackOverflowError} in a deep parse, an {@code OutOfMemoryError} from a body's array): it
 * is not rethrown as such, so it never leaves the frame in the buffer to be decoded again on every read, and the
 * loop's other connections go on (docs/reliability.md A9a).
 *
 * <p><b>Frame timeout.</b> With a positive timeout, a frame must arrive whole within that time of its first byte
 * being buffered: the clock starts when bytes are left over after a decode that consumed something (a new frame
 * began) or after the first read of a partial frame, and stops when nothing is left over. A frame still incomplete
 * when it runs out closes the connection with a logged {@link FrameTimeoutException}, so a peer that sends a header
 * and then trickles the body cannot hold a connection and its buffered bytes indefinitely (every trickled byte
 * resets the idle timer). Bytes of a frame the decoder refused from its header are skipped as they arrive and never
 * buffered, so they do not count.
 */
final class FrameDecoderAdapter extends ByteToMessageDecoder {
    private static final Logger log = LoggerFactory.getLogger(FrameDecoderAdapter.class);
    /** A peer can provoke these lines, one per connection it opens (docs/reliability.md A9b). */
    private static final LogLimiter TIMEOUTS = new LogLimiter();

    private final FrameDecoder decoder;
    private final long timeoutNanos;
    private final Runnable onTimeout;
    /** Event loop only: an incomplete frame is buffered, since {@link #partialSince}. */
    private boolean partial;
    private long partialSince;
    private ScheduledFuture<?> check;
    /** Event loop only: the decoder threw; the connection is closing and every byte is dropped. */
    private boolean failed;

    FrameDecoderAdapter(FrameDecoder decoder) {
        this(decoder, 0, null);
    }

    /**
     * @param timeoutNanos the frame timeout; 0 or less disables it
     * @param onTimeout run (on the event loop) when a connection is closed for a frame timeout, e.g. to count it
     */
    FrameDecoderAdapter(FrameDecoder decoder, long timeoutNanos, Runnable onTimeout) {
        this.decoder = decoder;
        this.timeoutNanos = timeoutNanos;
        this.onTimeout = onTimeout;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (failed) {
            in.skipBytes(in.readableBytes());
            return;
        }
        int before = in.readerIndex();
        try {
            decoder.decode(in, out);
        } catch (Throwable t) {
            in.skipBytes(in.readableBytes());
            partial = false;
            failed = true;
            if (t instanceof RuntimeException) {
                throw (RuntimeException) t; // Netty wraps it in a DecoderException
            }
            // Netty passes an Error on unwrapped, which the connection handler would not take as a reason to close.
            throw new DecoderException(t);
        }
        if (timeoutNanos > 0) {
            track(ctx, in, in.readerIndex() != before);
        }
    }

    private void track(ChannelHandlerContext ctx, ByteBuf in, boolean consumed) {
        if (!in.isReadable()) {
            partial = false;
            return;
        }
        if (consumed || !partial) {
            partial = true;
            partialSince = System.nanoTime();
        }
        if (check == null) {
            schedule(ctx, timeoutNanos);
        }
    }

    private void schedule(ChannelHandlerContext ctx, long delayNanos) {
        check = ctx.executor().schedule(() -> check(ctx), delayNanos, TimeUnit.NANOSECONDS);
    }

    private void check(ChannelHandlerContext ctx) {
        check = null;
        if (!partial || !ctx.channel().isActive()) {
            return;
        }
        long waited = System.nanoTime() - partialSince;
        if (waited < timeoutNanos) {
            schedule(ctx, timeoutNanos - waited);
            return;
        }
        ByteBuf buffered = internalBuffer();
        FrameTimeoutException e = new FrameTimeoutException(TimeUnit.NANOSECONDS.toMillis(waited),
                TimeUnit.NANOSECONDS.toMillis(timeoutNanos), buffered.readableBytes(), ctx.channel().remoteAddress());
        TIMEOUTS.warn(log, "Closing {}: {}", ctx.channel(), e.getMessage());
        partial = false;
        if (onTimeout != null) {
            onTimeout.run();
        }
        ctx.fireExceptionCaught(e);
        ctx.close();
    }

    @Override
    protected void handlerRemoved0(ChannelHandlerContext ctx) {
        ScheduledFuture<?> c = check;
        if (c != null) {
            c.cancel(false);
            check = null;
        }
        decoder.close();
    }
}
