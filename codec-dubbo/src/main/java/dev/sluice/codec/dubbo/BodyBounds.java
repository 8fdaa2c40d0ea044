package dev.sluice.codec.dubbo;

import dev.sluice.codec.dubbo.internal.DubboConstants;
import dev.sluice.transport.Internal;
import java.util.Objects;

/**
 * The bounds walks of {@link DubboDecoder} on their own, for a Dubbo body that another decoder will read: the Dubbo
 * Transporter adapter runs them on each request and response body before Dubbo's own codec decodes it
 * (docs/reliability.md H36). Structural limits only, the same as a {@code SluiceServer}'s: digits and exponent of
 * number text, nesting depth (runs of class definitions included), the per-frame value budget, forged lengths and
 * references; class names are not judged here (an allowlist does that where one applies).
 *
 * <p>Stateless; any thread. Linear in the body's bytes.
 */
@Internal
public final class BodyBounds {
    private BodyBounds() {
    }

    /** Whether {@link #check} walks bodies of serialization {@code id}: hessian2 (2) and fastjson2 (23). */
    public static boolean walks(byte id) {
        return id == DubboConstants.SERIALIZATION_HESSIAN2 || id == DubboConstants.SERIALIZATION_FASTJSON2;
    }

    /**
     * Walks every value of the body {@code body[off, end)} of serialization {@code id} under {@code limits}: for
     * hessian2 the body's one stream of values, for fastjson2 each length-prefixed JSONB item. A body of another
     * serialization is not walked.
     *
     * @return the estimated heap its values take once decoded, in bytes; 0 when it was not walked
     * @throws IllegalArgumentException when the body breaks a limit or is malformed, naming the offset and the limit
     *     (a limit of {@link DecodeLimits} by its builder name, {@code maxNumberDigits} or {@code maxDecodedElements})
     */
    public static long check(byte[] body, int off, int end, byte id, DecodeLimits limits) {
        Objects.requireNonNull(limits, "limits");
        DecodeBudget budget = new DecodeBudget(limits);
        budget.reset(end - off);
        if (id == DubboConstants.SERIALIZATION_HESSIAN2) {
            Hessian2Bounds.values(body, off, end, budget);
        } else if (id == DubboConstants.SERIALIZATION_FASTJSON2) {
            Fastjson2Items items = new Fastjson2Items(null, budget);
            items.reset(body, off, end);
            while (items.position() < end) {
                int n = items.nextItemLength();
                int item = items.position();
                JsonbBounds.check(body, item, item + n, budget);
                items.position(item + n);
            }
        }
        return budget.estimate();
    }
}
