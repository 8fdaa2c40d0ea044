package dev.sluice.transport.netty;

import dev.sluice.transport.TransportHandler;
import dev.sluice.transport.TransportOptions;
import dev.sluice.transport.codec.Codec;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.timeout.IdleStateHandler;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;

/**
 * Builds the pipeline every Sluice channel shares: {@code [tls] [idle] [stall] frame-decoder connection}. There is no
 * outbound encoder: callers encode on their own threads, and the event loop only writes finished frames.
 * Called on the channel's event loop from a {@code ChannelInitializer}.
 */
final class ChannelSetup {
    private ChannelSetup() {
    }

    /** Applies {@link TransportOptions#socketBuffers fixed socket buffer sizes}, when set. */
    static void socketBuffers(Channel ch, TransportOptions options) {
        if (options.socketSendBuffer() > 0) {
            ch.config().setOption(ChannelOption.SO_SNDBUF, options.socketSendBuffer());
        }
        if (options.socketReceiveBuffer() > 0) {
            ch.config().setOption(ChannelOption.SO_RCVBUF, options.socketReceiveBuffer());
        }
    }

    static NettyConnection init(Channel ch, TransportOptions options, Codec codec, TransportHandler handler,
                                SslContext ssl, String peerHost, int peerPort, Runnable onClosed) {
        return init(ch, options, codec, handler, ssl, peerHost, peerPort, onClosed, 0, null);
    }

    /**
     * @param frameTimeoutNanos most time a frame may take to arrive once its first byte is buffered; 0 disables
     * @param onFrameTimeout run on the event loop when the connection is closed for a frame timeout
     */
    static NettyConnection init(Channel ch, TransportOptions options, Codec codec, TransportHandler handler,
                                SslContext ssl, String peerHost, int peerPort, Runnable onClosed,
                                long frameTimeoutNanos, Runnable onFrameTimeout) {
        NettyConnection connection = new NettyConnection(ch, codec.encoder(), options);
        ch.attr(NettyConnection.KEY).set(connection);
        ChannelPipeline p = ch.pipeline();
        if (ssl != null) {
            SslHandler tls;
            if (ssl.isClient()) {
                tls = ssl.newHandler(ch.alloc(), peerHost, peerPort);
                SSLEngine engine = tls.engine();
                SSLParameters params = engine.getSSLParameters();
                // Hostname verification on by default: the certificate must name the host we dialled. Netty 4.2's
                // own default is HTTPS too; turning it off must clear it, not merely leave it unset.
                params.setEndpointIdentificationAlgorithm(options.verifyHostname() ? "HTTPS" : null);
                engine.setSSLParameters(params);
            } else {
                tls = ssl.newHandler(ch.alloc());
            }
            p.addLast("tls", tls);
        }
        long r = options.readerIdle().toMillis();
        long w = options.writerIdle().toMillis();
        long a = options.allIdle().toMillis();
        if (r > 0 || w > 0 || a > 0) {
            p.addLast("idle", new IdleStateHandler(r, w, a, TimeUnit.MILLISECONDS));
        }
        if (connection.observer() != null) {
            p.addLast("bytes-in", new BytesReadCounter(connection.observer()));
        }
        long stall = options.stallTimeout().toNanos();
        if (stall > 0) {
            p.addLast("stall", new StallDetector(connection, handler, stall));
        }
        p.addLast("frame-decoder", new FrameDecoderAdapter(codec.newDecoder(connection), frameTimeoutNanos,
                onFrameTimeout));
        p.addLast("connection", new ConnectionHandler(connection, handler, onClosed, connection.observer()));
        return connection;
    }
}
