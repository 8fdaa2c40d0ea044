package dev.sluice.transport.netty;

import dev.sluice.transport.ConnectionClosedException;
import dev.sluice.transport.IdleState;
import dev.sluice.transport.TransportHandler;
import dev.sluice.transport.TransportObserver;
import dev.sluice.transport.internal.LogLimiter;
import dev.sluice.transport.jfr.ConnectEvent;
import dev.sluice.transport.jfr.DisconnectEvent;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.util.ReferenceCountUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The last inbound handler of every Sluice channel: turns Netty events into {@link TransportHandler} calls and
 * keeps the {@link WriteQueue} in step with the channel (resume on writability, fail everything on close).
 * Runs on the channel's event loop.
 */
final class ConnectionHandler extends ChannelInboundHandlerAdapter {
    private static final Logger log = LoggerFactory.getLogger(ConnectionHandler.class);
    /** Lines a peer can provoke (docs/reliability.md A9b): closes for undecodable input, failures on what it sent. */
    private static final LogLimiter UNDECODABLE = new LogLimiter();
    private static final LogLimiter RECEIVED_THREW = new LogLimiter();

    private final NettyConnection connection;
    private final TransportHandler handler;
    private final Runnable onClosed;
    /** The last error seen on this channel, for the disconnect event. */
    private Throwable lastError;

    /** Receives counts for metrics; {@code null} when none is set. */
    private final TransportObserver observer;
    private final java.util.function.LongSupplier pendingBytes;

    ConnectionHandler(NettyConnection connection, TransportHandler handler, Runnable onClosed) {
        this(connection, handler, onClosed, null);
    }

    ConnectionHandler(NettyConnection connection, TransportHandler handler, Runnable onClosed,
                      TransportObserver observer) {
        this.observer = observer;
        this.pendingBytes = observer == null ? null : connection.writeQueue()::pendingBytes;
        this.connection = connection;
        this.handler = handler;
        this.onClosed = onClosed;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        if (observer != null) {
            observer.connectionOpened(pendingBytes);
        }
        ConnectEvent event = new ConnectEvent();
        if (event.shouldCommit()) {
            event.localAddress = String.valueOf(ctx.channel().localAddress());
            event.remoteAddress = String.valueOf(ctx.channel().remoteAddress());
            event.commit();
        }
        try {
            handler.connected(connection);
        } catch (Throwable t) {
            log.warn("TransportHandler.connected threw for {}", connection, t);
        }
        super.channelActive(ctx);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (observer != null) {
            observer.frameRead();
        }
        try {
            handler.received(connection, msg);
        } catch (Throwable t) {
            // The handler owns msg once called; it must release on its own failure paths.
            RECEIVED_THREW.warn(log, "TransportHandler.received threw for {}", connection, t);
        }
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) throws Exception {
        if (ctx.channel().isWritable()) {
            connection.writeQueue().channelWritable();
        } else {
            connection.writeQueue().channelUnwritable();
        }
        super.channelWritabilityChanged(ctx);
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
        if (evt instanceof IdleStateEvent) {
            IdleStateEvent e = (IdleStateEvent) evt;
            IdleState state;
            switch (e.state()) {
                case READER_IDLE:
                    state = IdleState.READER_IDLE;
                    break;
                case WRITER_IDLE:
                    state = IdleState.WRITER_IDLE;
                    break;
                default:
                    state = IdleState.ALL_IDLE;
                    break;
            }
            try {
                handler.idle(connection, state);
            } catch (Throwable t) {
                log.warn("TransportHandler.idle threw for {}", connection, t);
            }
            return;
        }
        ReferenceCountUtil.release(evt);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        Throwable reported = cause instanceof DecoderException && cause.getCause() != null ? cause.getCause() : cause;
        lastError = reported;
        try {
            handler.caught(connection, reported);
        } catch (Throwable t) {
            log.warn("TransportHandler.caught threw for {}", connection, t);
        }
        if (cause instanceof DecoderException || cause instanceof Error) {
            // The inbound stream cannot be trusted any more: close with the reason. An Error that reaches here
            // unwrapped came from another decoder of the pipeline (TLS), which may have kept the bytes that caused it.
            UNDECODABLE.warn(log, "Closing {}: undecodable input: {}", connection, reported.toString());
            if (observer != null) {
                observer.decodeError();
            }
            ctx.close();
        } else {
            log.debug("I/O error on {}", connection, cause);
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        ConnectionClosedException cause = new ConnectionClosedException(
                "Connection " + ctx.channel().localAddress() + " -> " + ctx.channel().remoteAddress() + " closed");
        connection.writeQueue().channelClosed(cause);
        connection.closedForObserver();
        if (observer != null) {
            observer.connectionClosed(pendingBytes);
        }
        DisconnectEvent event = new DisconnectEvent();
        if (event.shouldCommit()) {
            event.localAddress = String.valueOf(ctx.channel().localAddress());
            event.remoteAddress = String.valueOf(ctx.channel().remoteAddress());
            event.cause = lastError == null ? null : lastError.toString();
            event.commit();
        }
        try {
            handler.disconnected(connection, cause);
        } catch (Throwable t) {
            log.warn("TransportHandler.disconnected threw for {}", connection, t);
        }
        if (onClosed != null) {
            onClosed.run();
        }
        super.channelInactive(ctx);
    }
}
