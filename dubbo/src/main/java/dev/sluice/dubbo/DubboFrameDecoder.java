package dev.sluice.dubbo;

import dev.sluice.transport.FrameTooLargeException;
import dev.sluice.transport.codec.FrameDecoder;
import dev.sluice.transport.codec.HeaderFramer;
import dev.sluice.transport.internal.DubboHeader;
import dev.sluice.transport.internal.LogLimiter;
import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.util.List;
import java.util.function.Supplier;
import org.apache.dubbo.common.Version;
import org.apache.dubbo.remoting.Channel;
import org.apache.dubbo.remoting.Codec2;
import org.apache.dubbo.remoting.exchange.Request;
import org.apache.dubbo.remoting.exchange.Response;
import org.apache.dubbo.remoting.exchange.support.MultiMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decodes one connection's inbound bytes with Dubbo's own {@link Codec2} (the URL's {@code codec}, i.e.
 * {@code DubboCountCodec}), reading the cumulation buffer in place through a {@link ByteBufChannelBuffer} view.
 *
 * <p>Frames are cut by the transport's {@link HeaderFramer} on {@link DubboHeader#LAYOUT} (the same framing as the
 * standalone decoder), and the codec gets one whole frame at a time, so that:
 * <ul>
 *   <li>bytes of an incomplete frame are kept for the next read without calling the codec (nothing is decoded
 *       twice), and Dubbo's codec never returns a {@link MultiMessage} (one is unpacked anyway, should it);</li>
 *   <li>no frame above the {@code payload} limit is ever buffered: it is decided from the header and its body is
 *       skipped as it arrives. An oversized <em>response</em> becomes a {@code CLIENT_ERROR} (90) response with its
 *       id, as Dubbo's codec does, but without Dubbo's bug of then parsing the skipped body as telnet text
 *       (docs/wire-format.md §1.7). An oversized two-way <em>request</em> becomes a broken request, which Dubbo's
 *       {@code HeaderExchangeHandler} answers with {@code BAD_REQUEST} (40), the status a Dubbo provider's
 *       service-level check gives; the connection stays open either way.</li>
 *   <li>with a {@link BodyCheck} (the {@code sluice.body-check} URL key, on by default), a body in hessian2 or
 *       fastjson2 that breaks a bounds walker's limit (number text, depth, values per frame) is refused the same
 *       way before Dubbo's codec sees it, named by the limit and its URL key (docs/reliability.md H36).</li>
 * </ul>
 * A negative body length is reported the same way (a broken request or a {@code CLIENT_ERROR} response with the
 * frame's id, saying "Invalid body length") and the frame taken as having no body, so the next frame still decodes;
 * read as unsigned it would have skipped about 4 GiB, every later frame of the connection.
 *
 * <p>Input that does not start with Dubbo's magic is refused as soon as its first byte differs, with a
 * {@link DubboCodecException} naming the bytes: the transport closes the connection with that reason, and every byte
 * after it is discarded without output. It never reaches Dubbo's codec, whose telnet
 * fallback copied every buffered byte on each read while waiting for a line end (quadratic work for trickled garbage,
 * and no close). A codec failure on a frame propagates the same way.
 *
 * <p>Decoded messages hold no buffers: Dubbo's codec copies each body into its own byte array.
 *
 * <p>Runs on the connection's event loop only (one instance per connection).
 */
final class DubboFrameDecoder implements FrameDecoder {
    private static final Logger log = LoggerFactory.getLogger(DubboFrameDecoder.class);
    /** One 16-byte header buys a line: shared by every connection, one a second (docs/reliability.md A9b). */
    private static final LogLimiter SKIPPED = new LogLimiter();
    /** A body refused by the body check: the same budget, a line of its own (docs/reliability.md H36). */
    private static final LogLimiter REFUSED = new LogLimiter();

    private final Codec2 codec;
    private final int payloadLimit;
    private final Supplier<? extends Channel> channel;
    /** Cuts frames, refuses a wrong magic and skips the bodies of frames refused from their header. */
    private final HeaderFramer framer;
    /** Walks each body before the codec reads it; null when the URL turns that off. */
    private final BodyCheck bodyCheck;

    /**
     * @param codec Dubbo's codec for the endpoint's URL
     * @param payloadLimit the URL's {@code payload}; 0 or less disables the check
     * @param channel the connection's Dubbo channel, resolved at the first decode (the connection is active then)
     */
    DubboFrameDecoder(Codec2 codec, int payloadLimit, Supplier<? extends Channel> channel) {
        this(codec, payloadLimit, channel, null);
    }

    /**
     * @param bodyCheck walks each body before the codec reads it; null for none
     */
    DubboFrameDecoder(Codec2 codec, int payloadLimit, Supplier<? extends Channel> channel, BodyCheck bodyCheck) {
        this.bodyCheck = bodyCheck;
        this.codec = codec;
        this.payloadLimit = payloadLimit;
        this.channel = channel;
        this.framer = new HeaderFramer(DubboHeader.LAYOUT, payloadLimit, new Frames());
    }

    @Override
    public void decode(ByteBuf in, List<Object> out) {
        framer.decode(in, out);
    }

    /** The adapter's side of {@link HeaderFramer}: Dubbo's codec decodes each whole frame. Event loop only. */
    private final class Frames implements HeaderFramer.Frames {
        @Override
        public void frame(ByteBuf in, int start, int bodyLength, List<Object> out) {
            int frameLength = DubboHeader.LENGTH + bodyLength;
            String refusal = bodyCheck == null ? null : bodyCheck.refusal(in, start, bodyLength);
            if (refusal != null) {
                rejected(REFUSED, in, start, bodyLength, refusal, out);
                return;
            }
            // The codec sees exactly one frame: a slice shares the bytes (no copy) and needs no release of its own.
            ByteBuf frame = in.slice(start, frameLength);
            if (!decodeWithCodec(frame, out)) {
                throw new IllegalStateException("Dubbo codec asked for more input on a complete " + frameLength
                        + "-byte frame from " + channel.get());
            }
        }

        @Override
        public void refused(ByteBuf in, int start, long declared, long limit, List<Object> out) {
            if (declared < 0) {
                rejected(SKIPPED, in, start, declared, "Invalid body length " + declared + " in frame header",
                        out);
            } else if (payloadLimit <= 0) {
                // No payload limit: only what one buffer can hold. Dubbo's codec would not cope either.
                throw HeaderFramer.tooLarge(declared, limit, "Inbound Dubbo frame body");
            } else {
                boolean request = (in.getByte(start + 2) & DubboHeader.FLAG_REQUEST) != 0;
                rejected(SKIPPED, in, start, declared, new FrameTooLargeException(declared, payloadLimit,
                        request ? "Request body" : "Response body").getMessage(), out);
            }
        }

        @Override
        public RuntimeException badMagic(String detail) {
            // Dubbo would hand these bytes to its telnet codec, which copies all of them on every read.
            return new DubboCodecException("Not a Dubbo frame from " + channel.get() + ": " + detail);
        }
    }

    /** Returns false (reader index restored) when the codec needs more input. */
    private boolean decodeWithCodec(ByteBuf src, List<Object> out) {
        int save = src.readerIndex();
        Channel ch = channel.get();
        Object msg;
        try {
            msg = codec.decode(ch, new ByteBufChannelBuffer(src));
        } catch (IOException e) {
            throw new DubboCodecException("Could not decode input from " + ch, e);
        }
        if (msg == Codec2.DecodeResult.NEED_MORE_INPUT) {
            src.readerIndex(save);
            return false;
        }
        if (src.readerIndex() == save) {
            throw new IllegalStateException("Dubbo codec returned " + msg + " without reading input from " + ch);
        }
        if (msg instanceof MultiMessage) {
            for (Object one : (MultiMessage) msg) {
                out.add(one);
            }
        } else if (msg != null) {
            out.add(msg);
        }
        return true;
    }

    /**
     * Reports a frame refused from its header or by the body check (a broken two-way request, a {@code CLIENT_ERROR}
     * response, nothing for one-way requests and events), logged through {@code limiter}; the framer skips it.
     */
    private void rejected(LogLimiter limiter, ByteBuf in, int start, long bodyLength, String why, List<Object> out) {
        int flag = in.getByte(start + 2);
        long id = in.getLong(start + 4);
        boolean request = (flag & DubboHeader.FLAG_REQUEST) != 0;
        boolean event = (flag & DubboHeader.FLAG_EVENT) != 0;
        limiter.warn(log, "Skipping inbound frame id={} ({} body bytes declared) from {}: {}", id, bodyLength,
                channel.get(), why);
        if (!request) {
            Response res = new Response(id);
            res.setEvent(event);
            res.setStatus(Response.CLIENT_ERROR);
            res.setErrorMessage(why);
            out.add(res);
        } else if ((flag & DubboHeader.FLAG_TWO_WAY) != 0 && !event) {
            Request req = new Request(id);
            req.setVersion(Version.getProtocolVersion());
            req.setTwoWay(true);
            req.setBroken(true);
            req.setData(why);
            out.add(req);
        }
    }
}
