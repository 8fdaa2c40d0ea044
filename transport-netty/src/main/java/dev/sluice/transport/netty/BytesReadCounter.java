package dev.sluice.transport.netty;

import dev.sluice.transport.TransportObserver;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

/**
 * Counts the bytes read from a channel (after TLS) for a {@link TransportObserver}, and passes every read on
 * unchanged. In the pipeline only when an observer is set. Runs on the channel's event loop; shared by none.
 */
@ChannelHandler.Sharable
final class BytesReadCounter extends ChannelInboundHandlerAdapter {
    private final TransportObserver observer;

    BytesReadCounter(TransportObserver observer) {
        this.observer = observer;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof ByteBuf) {
            observer.bytesRead(((ByteBuf) msg).readableBytes());
        }
        ctx.fireChannelRead(msg);
    }
}
