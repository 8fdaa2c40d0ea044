package dev.sluice.transport.netty;

import dev.sluice.transport.codec.FrameDecoder;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.util.List;

/**
 * Feeds inbound bytes to the protocol's {@link FrameDecoder}, keeping bytes of incomplete frames for the next read.
 * Runs on the channel's event loop. When the decoder throws, the stream is unusable: the readable bytes are
 * dropped (no busy loop re-reading them) and the error goes down the pipeline, where the connection handler
 * closes the channel with that reason.
 */
final class FrameDecoderAdapter extends ByteToMessageDecoder {
    private final FrameDecoder decoder;

    FrameDecoderAdapter(FrameDecoder decoder) {
        this.decoder = decoder;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        try {
            decoder.decode(in, out);
        } catch (RuntimeException e) {
            in.skipBytes(in.readableBytes());
            throw e;
        }
    }

    @Override
    protected void handlerRemoved0(ChannelHandlerContext ctx) {
        decoder.close();
    }
}
