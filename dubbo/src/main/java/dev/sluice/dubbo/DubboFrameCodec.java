package dev.sluice.dubbo;

import dev.sluice.codec.dubbo.DecodeLimits;
import dev.sluice.transport.Connection;
import dev.sluice.transport.codec.Codec;
import dev.sluice.transport.codec.FrameDecoder;
import dev.sluice.transport.codec.FrameEncoder;
import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.util.function.Function;
import org.apache.dubbo.remoting.Codec2;
import org.apache.dubbo.remoting.exchange.Request;
import org.apache.dubbo.remoting.exchange.Response;
import org.apache.dubbo.remoting.utils.PayloadDropper;

/**
 * Sluice's codec SPI over Dubbo's {@link Codec2} (the one the URL names; {@code DubboCountCodec} for the dubbo
 * protocol), for one Dubbo endpoint.
 *
 * <p>The encoder runs on the sending thread and writes Dubbo's frame straight into the pooled buffer that goes onto
 * the write queue, through a {@link ByteBufChannelBuffer} view: no second copy on the event loop (Dubbo's netty4
 * transport copies every frame again in its {@code MessageToByteEncoder}). It takes {@link OutboundMessage}s, which
 * carry the Dubbo channel whose URL Dubbo's codec reads ({@code payload}, serialization). Dubbo checks the
 * {@code payload} limit while encoding; a request above it fails on the caller's thread with
 * {@link DubboCodecException} (nothing queued, buffer released by the transport).
 *
 * <p>The buffer the transport allocates for a frame is sized by {@link EncodedSizeHint} from the frames before it, so
 * the codec rarely has to grow it.
 *
 * <p>Decoders ({@link DubboFrameDecoder}) are per connection and run on its event loop; with body limits, each
 * walks the bodies before Dubbo's codec reads them ({@link BodyCheck}).
 */
final class DubboFrameCodec implements Codec {
    private final Codec2 codec;
    private final int payloadLimit;
    private final Function<Connection, SluiceChannel> channels;
    private final DecodeLimits bodyLimits;
    private final FrameEncoder encoder = new Encoder();

    /**
     * A codec whose decoders hand every body to Dubbo's codec unchecked.
     *
     * @param channels gives the Dubbo channel of a connection (creating it on first use)
     */
    DubboFrameCodec(Codec2 codec, int payloadLimit, Function<Connection, SluiceChannel> channels) {
        this(codec, payloadLimit, channels, null);
    }

    /**
     * @param bodyLimits the limits each body is walked for before Dubbo's codec reads it; null for no walk
     */
    DubboFrameCodec(Codec2 codec, int payloadLimit, Function<Connection, SluiceChannel> channels,
                    DecodeLimits bodyLimits) {
        this.codec = codec;
        this.payloadLimit = payloadLimit;
        this.channels = channels;
        this.bodyLimits = bodyLimits;
    }

    @Override
    public FrameEncoder encoder() {
        return encoder;
    }

    @Override
    public FrameDecoder newDecoder(Connection connection) {
        return new DubboFrameDecoder(codec, payloadLimit, () -> channels.apply(connection),
                bodyLimits == null ? null : new BodyCheck(bodyLimits));
    }

    /**
     * Runs on the sending threads; its only state is the size hints, one for requests and one for responses (their
     * sizes differ: a client sends requests, a server responses, and both send heartbeats).
     */
    private final class Encoder implements FrameEncoder {
        private final EncodedSizeHint requests = new EncodedSizeHint();
        private final EncodedSizeHint responses = new EncodedSizeHint();

        @Override
        public int sizeHint(Object message) {
            EncodedSizeHint hint = hintFor(message);
            return hint == null ? EncodedSizeHint.MIN : hint.get();
        }

        /** The hint for calls and their results; null for events (heartbeats, readonly) and anything else. */
        private EncodedSizeHint hintFor(Object message) {
            if (message instanceof OutboundMessage) {
                Object m = ((OutboundMessage) message).message;
                if (m instanceof Request) {
                    return ((Request) m).isEvent() ? null : requests;
                }
                if (m instanceof Response) {
                    return ((Response) m).isEvent() ? null : responses;
                }
            }
            return null;
        }

        @Override
        public void encode(Object message, ByteBuf out) {
            if (!(message instanceof OutboundMessage)) {
                throw new IllegalArgumentException("the Dubbo adapter sends OutboundMessage, not "
                        + (message == null ? "null" : message.getClass().getName()));
            }
            OutboundMessage m = (OutboundMessage) message;
            int start = out.writerIndex();
            try {
                codec.encode(m.channel, new ByteBufChannelBuffer(out), m.message);
            } catch (IOException e) {
                throw new DubboCodecException("Could not encode " + PayloadDropper.getRequestWithoutData(m.message), e);
            }
            if (out.writerIndex() == start && m.message instanceof Response) {
                // ExchangeCodec could not encode the response, rewound the buffer and already sent a short error
                // response (status 25/50) with the same id through the channel: queue nothing for this one.
                throw new ResponseReplacedException();
            }
            EncodedSizeHint hint = hintFor(m);
            if (hint != null) {
                hint.record(out.writerIndex() - start);
            }
        }
    }
}
