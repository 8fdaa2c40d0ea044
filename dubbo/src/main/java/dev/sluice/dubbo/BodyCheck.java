package dev.sluice.dubbo;

import dev.sluice.codec.dubbo.BodyBounds;
import dev.sluice.codec.dubbo.DecodeLimits;
import dev.sluice.transport.internal.DubboHeader;
import io.netty.buffer.ByteBuf;

/**
 * Walks each request and response body with the codec's bounds walkers ({@link BodyBounds}) before Dubbo's own codec
 * decodes it (docs/reliability.md H36): inside Dubbo, hessian-lite and fastjson2 would otherwise parse number text of
 * any length in quadratic time, follow runs of class definitions and nesting into a {@code StackOverflowError} (each
 * logged with its stack trace), and build a frame of a million empty lists, on the event loop in Dubbo 3.3's default
 * configuration. Structural limits only (digits, exponent, depth, values per frame); which classes a body may name
 * is Dubbo's own serialize-security check's business. Events (heartbeats, readonly) and serializations other than
 * hessian2 and fastjson2 are not walked.
 *
 * <p>One instance per connection, used on its event loop only (it keeps a scratch copy of small bodies).
 */
final class BodyCheck {
    /** Small direct bodies are copied into a scratch array kept for the next frame; larger ones get their own. */
    private static final int KEEP_SCRATCH = 16 * 1024;

    private final DecodeLimits limits;
    private byte[] scratch;

    BodyCheck(DecodeLimits limits) {
        this.limits = limits;
    }

    /**
     * Why the body of the frame at {@code in[start]} is refused, naming the limit and the URL key that sets it; null
     * when it passes or is not walked.
     */
    String refusal(ByteBuf in, int start, int bodyLength) {
        int flags = in.getUnsignedByte(start + 2);
        byte serialization = (byte) (flags & DubboHeader.SERIALIZATION_MASK);
        if ((flags & DubboHeader.FLAG_EVENT) != 0 || bodyLength == 0 || !BodyBounds.walks(serialization)) {
            return null;
        }
        int bodyIndex = start + DubboHeader.LENGTH;
        byte[] body;
        int off;
        if (in.hasArray()) {
            body = in.array();
            off = in.arrayOffset() + bodyIndex;
        } else {
            body = scratch;
            if (body == null || body.length < bodyLength) {
                body = new byte[Math.max(bodyLength, 512)];
                if (bodyLength <= KEEP_SCRATCH) {
                    scratch = body;
                }
            }
            in.getBytes(bodyIndex, body, 0, bodyLength);
            off = 0;
        }
        try {
            BodyBounds.check(body, off, off + bodyLength, serialization, limits);
            return null;
        } catch (IllegalArgumentException e) {
            return ((flags & DubboHeader.FLAG_REQUEST) != 0 ? "Request" : "Response") + " body refused before"
                    + " Dubbo decodes it: " + withUrlKeys(e.getMessage());
        }
    }

    /** The walkers name a limit by its builder name; inside Dubbo it is a URL key. */
    static String withUrlKeys(String reason) {
        String text = reason.replace("(maxNumberDigits)", "(URL key " + DubboUrlOptions.MAX_NUMBER_DIGITS_KEY + ")")
                .replace("(maxDecodedElements)", "(URL key " + DubboUrlOptions.MAX_DECODED_ELEMENTS_KEY + ")");
        return text + "; " + DubboUrlOptions.BODY_CHECK_KEY + "=false turns this check off";
    }
}
