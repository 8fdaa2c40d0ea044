package dev.sluice.codec.dubbo;

import java.lang.reflect.Type;

/**
 * The not yet parsed value of a result: a copy of its bytes (a padded fastjson2 item, or one hessian2 value), made by
 * a {@link DubboDecoder} built to defer values, parsed by {@link DubboResponse#readValue} on the thread that wants it.
 * Holds no buffer: nothing to release when nobody reads it. The same allowlist and bounds checks apply as for a value
 * parsed while decoding.
 *
 * <p>Immutable; {@link #read} may run on any thread, and each call parses again.
 */
final class DeferredValue {
    /** Parses a copied value as a type; thread-safe. One per decoder, shared by its deferred values. */
    interface Parser {
        Object parse(byte[] bytes, int length, Type type);
    }

    private final long id;
    private final byte[] bytes;
    private final int length;
    private final Parser parser;

    DeferredValue(long id, byte[] bytes, int length, Parser parser) {
        this.id = id;
        this.bytes = bytes;
        this.length = length;
        this.parser = parser;
    }

    /** Value size in bytes, without padding. */
    int length() {
        return length;
    }

    Object read(Type type) {
        Type t = type == null || type == void.class || type == Void.class ? Object.class : type;
        try {
            return parser.parse(bytes, length, t);
        } catch (RuntimeException e) {
            throw new DubboSerializationException("Failed to decode the response to request " + id + ": "
                    + ValueTypes.reason(e), e);
        }
    }
}
