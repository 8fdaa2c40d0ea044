package dev.sluice.transport.netty;

import dev.sluice.transport.TransportHandler;
import dev.sluice.transport.codec.Codec;
import java.util.Objects;

/**
 * What the two Netty transport builders add to {@link TransportBuilder}: the codec of the protocol and the
 * handler that receives its messages, both required.
 *
 * <p>Threads: not thread-safe; build on one thread.
 */
abstract class ChannelBuilder<B extends ChannelBuilder<B>> extends TransportBuilder<B> {
    private Codec codec;
    private TransportHandler handler;

    ChannelBuilder(boolean client) {
        super(client);
    }

    @SuppressWarnings("unchecked")
    public B codec(Codec codec) {
        this.codec = Objects.requireNonNull(codec, "codec");
        return (B) this;
    }

    @SuppressWarnings("unchecked")
    public B handler(TransportHandler handler) {
        this.handler = Objects.requireNonNull(handler, "handler");
        return (B) this;
    }

    final Codec codec() {
        return Objects.requireNonNull(codec, "codec is required");
    }

    final TransportHandler handler() {
        return Objects.requireNonNull(handler, "handler is required");
    }
}
