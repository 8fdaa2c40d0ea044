package dev.sluice.codec.dubbo;

import dev.sluice.transport.Internal;

/**
 * Limits on what one inbound frame may make the decoder build, checked by the bounds walkers before hessian-lite or
 * fastjson2 read a byte, so a few bytes cannot buy a lot of CPU or heap (docs/reliability.md A31, A34). A refused
 * request is answered with status 40, a refused response fails its call with status 90; both messages name the limit
 * and the size. Set on {@link DubboCodec.Builder#decodeLimits}, or on the {@code SluiceServer} and
 * {@code SluiceClient} builders.
 *
 * <p>Immutable and thread-safe.
 */
@Internal
public final class DecodeLimits {
    /**
     * Default of {@link #maxNumberDigits()}: as Jackson's {@code StreamReadConstraints.maxNumberLength}. Far more than
     * any {@code long} (19 digits) or {@code double} (17 significant digits) needs, and small enough that parsing it
     * costs microseconds.
     */
    public static final int DEFAULT_MAX_NUMBER_DIGITS = 1_000;

    /**
     * Default of {@link #maxDecodedElements()}. A list of beans filling the default 8 MiB payload limit holds some
     * hundreds of thousands of values (each field a few to a few dozen wire bytes: short strings, ints, nested beans),
     * under it; the same 8 MiB of empty lists or maps (one or two wire bytes each, some 60 bytes of heap each decoded)
     * is four to eight million containers, hundreds of MiB on the decoding thread, refused at this count.
     */
    public static final int DEFAULT_MAX_DECODED_ELEMENTS = 1_000_000;

    /** The defaults. */
    public static final DecodeLimits DEFAULTS = new DecodeLimits(DEFAULT_MAX_NUMBER_DIGITS,
            DEFAULT_MAX_DECODED_ELEMENTS);

    private final int maxNumberDigits;
    private final int maxDecodedElements;

    private DecodeLimits(int maxNumberDigits, int maxDecodedElements) {
        if (maxNumberDigits < 1) {
            throw new IllegalArgumentException("maxNumberDigits must be >= 1, got " + maxNumberDigits);
        }
        if (maxDecodedElements < 1) {
            throw new IllegalArgumentException("maxDecodedElements must be >= 1, got " + maxDecodedElements);
        }
        this.maxNumberDigits = maxNumberDigits;
        this.maxDecodedElements = maxDecodedElements;
    }

    /**
     * Most digits a number written as text may have (a hessian2 {@code BigDecimal}, a fastjson2 string read as a
     * number, a fastjson2 big integer, whose text form a reader may build); default
     * {@value #DEFAULT_MAX_NUMBER_DIGITS}. {@code BigDecimal(String)} and {@code BigInteger(String)} take time
     * quadratic in the digits, on the thread that decodes (a server's event loop). In fastjson2 bodies, text that is
     * entirely a number is judged wherever the walk meets it (a top-level {@code String} argument or result is read
     * without fastjson2 and is not), since the walk does not know which values will be read as numbers: raise the
     * limit to send longer digit strings inside other values.
     */
    public int maxNumberDigits() {
        return maxNumberDigits;
    }

    /**
     * Most values one frame may decode to, counted by the bounds walk before anything is built: every list, map,
     * object, string and scalar, at any depth (a hessian2 class definition counts too); default
     * {@value #DEFAULT_MAX_DECODED_ELEMENTS}. Decoded values take far more heap than their wire bytes (an empty list
     * is one byte on the wire), and a frame is decoded whole on the decoding thread before any other limit applies.
     */
    public int maxDecodedElements() {
        return maxDecodedElements;
    }

    /** These limits with {@link #maxNumberDigits()} set to {@code digits} (at least 1). */
    public DecodeLimits withMaxNumberDigits(int digits) {
        return new DecodeLimits(digits, maxDecodedElements);
    }

    /** These limits with {@link #maxDecodedElements()} set to {@code elements} (at least 1). */
    public DecodeLimits withMaxDecodedElements(int elements) {
        return new DecodeLimits(maxNumberDigits, elements);
    }

    @Override
    public String toString() {
        return "DecodeLimits{maxNumberDigits=" + maxNumberDigits + ", maxDecodedElements=" + maxDecodedElements + "}";
    }
}
