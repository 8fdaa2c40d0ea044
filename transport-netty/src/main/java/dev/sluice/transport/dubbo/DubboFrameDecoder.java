package dev.sluice.transport.dubbo;

import dev.sluice.transport.FrameTooLargeException;
import dev.sluice.transport.codec.FrameDecoder;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
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
 * <p>It cuts frames itself from the 16-byte header and hands the codec one whole frame at a time, so that:
 * <ul>
 *   <li>bytes of an incomplete frame are kept for the next read without calling the codec (nothing is decoded
 *       twice), and Dubbo's codec never returns a {@link MultiMessage} (one is unpacked anyway, should it);</li>
 *   <li>no frame above the {@code payload} limit is ever buffered: it is decided from the header and its body is
 *       skipped as it arrives. An oversized <em>response</em> becomes a {@code CLIENT_ERROR} (90) response with its
 *       id, as Dubbo's codec does, but without Dubbo's bug of then parsing the skipped body as telnet text
 *       (docs/wire-format.md §1.7). An oversized two-way <em>request</em> becomes a broken request, which Dubbo's
 *       {@code HeaderExchangeHandler} answers with {@code BAD_REQUEST} (40), the status a Dubbo provider's
 *       service-level check gives; the connection stays open either way.</li>
 * </ul>
 * A negative body length is reported the same way (a broken request or a {@code CLIENT_ERROR} response with the
 * frame's id, saying "Invalid body length") and the frame taken as having no body, so the next frame still decodes;
 * read as unsigned it would have skipped about 4 GiB, every later frame of the connection.
 *
 * <p>Input that does not start with Dubbo's magic is refused as soon as its first byte differs, with a
 * {@link DubboCodecException} naming the bytes: the transport closes the connection with that reason, and every byte
 * after it is discarded without output, as the standalone decoder does. It never reaches Dubbo's codec, whose telnet
 * fallback copied every buffered byte on each read while waiting for a line end (quadratic work for trickled garbage,
 * and no close). A codec failure on a frame propagates the same way.
 *
 * <p>Decoded messages hold no buffers: Dubbo's codec copies each body into its own byte array.
 *
 * <p>Runs on the connection's event loop only (one instance per connection).
 */
final class DubboFrameDecoder implements FrameDecoder {
    private static final Logger log = LoggerFactory.getLogger(DubboFrameDecoder.class);

    static final int HEADER_LENGTH = 16;
    static final byte MAGIC_HIGH = (byte) 0xda;
    static final byte MAGIC_LOW = (byte) 0xbb;
    static final int FLAG_REQUEST = 0x80;
    static final int FLAG_TWOWAY = 0x40;
    static final int FLAG_EVENT = 0x20;
    /** Largest body a frame can have when the payload check is disabled: the frame must fit one buffer. */
    private static final long MAX_BODY = Integer.MAX_VALUE - HEADER_LENGTH;

    private final Codec2 codec;
    private final int payloadLimit;
    private final Supplier<? extends Channel> channel;
    /** Body bytes of an oversized frame still to drop. */
    private long skip;
    /** Set after a wrong magic: every later byte is discarded while the transport closes the connection. */
    private boolean unusable;

    /**
     * @param codec Dubbo's codec for the endpoint's URL
     * @param payloadLimit the URL's {@code payload}; 0 or less disables the check
     * @param channel the connection's Dubbo channel, resolved at the first decode (the connection is active then)
     */
    DubboFrameDecoder(Codec2 codec, int payloadLimit, Supplier<? extends Channel> channel) {
        this.codec = codec;
        this.payloadLimit = payloadLimit;
        this.channel = channel;
    }

    @Override
    public void decode(ByteBuf in, List<Object> out) {
        if (unusable) {
            in.skipBytes(in.readableBytes());
            return;
        }
        while (in.isReadable()) {
            if (skip > 0) {
                int n = (int) Math.min(skip, in.readableBytes());
                in.skipBytes(n);
                skip -= n;
                continue;
            }
            int start = in.readerIndex();
            int readable = in.readableBytes();
            if (in.getByte(start) != MAGIC_HIGH || (readable > 1 && in.getByte(start + 1) != MAGIC_LOW)) {
                String message = "Not a Dubbo frame from " + channel.get() + ": wrong magic, expected 0xdabb, got 0x"
                        + ByteBufUtil.hexDump(in, start, Math.min(readable, 2)) + " (next bytes: "
                        + ByteBufUtil.hexDump(in, start, Math.min(readable, 16)) + "); closing the connection";
                // The stream cannot be resynchronised: drop what is buffered and everything after.
                unusable = true;
                in.skipBytes(readable);
                throw new DubboCodecException(message);
            }
            if (readable < HEADER_LENGTH) {
                return;
            }
            int declared = in.getInt(start + 12);
            if (declared < 0) {
                rejected(in, start, declared, 0, "Invalid body length " + declared + " in frame header", out);
                continue;
            }
            long bodyLength = declared;
            if (payloadLimit > 0 && bodyLength > payloadLimit) {
                oversized(in, start, bodyLength, out);
                continue;
            }
            if (bodyLength > MAX_BODY) {
                throw new FrameTooLargeException(bodyLength, MAX_BODY, "Inbound Dubbo frame body");
            }
            int frameLength = HEADER_LENGTH + (int) bodyLength;
            if (readable < frameLength) {
                return;
            }
            // The codec sees exactly one frame: a slice shares the bytes (no copy) and needs no release of its own.
            ByteBuf frame = in.slice(start, frameLength);
            if (!decodeWithCodec(frame, out)) {
                throw new IllegalStateException("Dubbo codec asked for more input on a complete " + frameLength
                        + "-byte frame from " + channel.get());
            }
            in.readerIndex(start + frameLength);
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

    private void oversized(ByteBuf in, int start, long bodyLength, List<Object> out) {
        boolean request = (in.getByte(start + 2) & FLAG_REQUEST) != 0;
        rejected(in, start, bodyLength, bodyLength, new FrameTooLargeException(bodyLength, payloadLimit,
                request ? "Request body" : "Response body").getMessage(), out);
    }

    /**
     * Reports a frame refused from its header (a broken two-way request, a {@code CLIENT_ERROR} response, nothing for
     * one-way requests and events) and skips its header and {@code skipBody} body bytes.
     */
    private void rejected(ByteBuf in, int start, long bodyLength, long skipBody, String why, List<Object> out) {
        int flag = in.getByte(start + 2);
        long id = in.getLong(start + 4);
        in.skipBytes(HEADER_LENGTH);
        skip = skipBody;
        boolean request = (flag & FLAG_REQUEST) != 0;
        boolean event = (flag & FLAG_EVENT) != 0;
        log.warn("Skipping inbound frame id={} ({} body bytes declared) from {}: {}", id, bodyLength, channel.get(),
                why);
        if (!request) {
            Response res = new Response(id);
            res.setEvent(event);
            res.setStatus(Response.CLIENT_ERROR);
            res.setErrorMessage(why);
            out.add(res);
        } else if ((flag & FLAG_TWOWAY) != 0 && !event) {
            Request req = new Request(id);
            req.setVersion(Version.getProtocolVersion());
            req.setTwoWay(true);
            req.setBroken(true);
            req.setData(why);
            out.add(req);
        }
    }
}
