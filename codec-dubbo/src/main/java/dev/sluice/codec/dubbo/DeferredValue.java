package dev.sluice.codec.dubbo;

import java.lang.reflect.Type;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;

/**
 * The not yet parsed value of a result: a copy of its bytes (a padded fastjson2 item, or one hessian2 value), made by
 * a {@link DubboDecoder} built to defer values, parsed by {@link DubboResponse#readValue} on the thread that wants it.
 * Holds no buffer: nothing to release when nobody reads it. The same allowlist and bounds checks apply as for a value
 * parsed while decoding. Its bytes may be a reused array from {@link ItemArrays} (longer than the value).
 *
 * <p>{@link #read} may run on any thread, and each call parses again. {@link #take} parses for the last time and hands
 * the bytes back for reuse; any read or take after it throws {@link IllegalStateException}, so recycled bytes are
 * never parsed.
 */
final class DeferredValue {
    /** Parses a copied value as a type; thread-safe. One per decoder, shared by its deferred values. */
    interface Parser {
        Object parse(byte[] bytes, int length, Type type);
    }

    private static final AtomicIntegerFieldUpdater<DeferredValue> STATE =
            AtomicIntegerFieldUpdater.newUpdater(DeferredValue.class, "state");
    private static final int TAKEN = -1;

    private final long id;
    private final byte[] bytes;
    private final int length;
    private final Parser parser;
    /** Reads in progress, or {@link #TAKEN}. */
    private volatile int state;

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
        int s;
        do {
            s = state;
            if (s == TAKEN) {
                throw taken();
            }
        } while (!STATE.compareAndSet(this, s, s + 1));
        try {
            return parse(type);
        } finally {
            STATE.decrementAndGet(this);
        }
    }

    /**
     * Parses the value for the last time, then hands its bytes back for reuse. If another thread is reading it at
     * that moment, parses without handing the bytes back.
     *
     * @throws IllegalStateException when it was taken before
     */
    Object take(Type type) {
        if (!STATE.compareAndSet(this, 0, TAKEN)) {
            if (state == TAKEN) {
                throw taken();
            }
            return read(type);
        }
        try {
            return parse(type);
        } finally {
            ItemArrays.recycle(bytes); // nothing reads them any more: every later read or take throws
        }
    }

    /** The array holding the bytes (tests check it is reused). */
    byte[] bytes() {
        return bytes;
    }

    private IllegalStateException taken() {
        return new IllegalStateException("The value of response " + id + " was already taken (takeValue); its bytes"
                + " are reused. Read it once with takeValue, or only with readValue.");
    }

    private Object parse(Type type) {
        Type t = type == null || type == void.class || type == Void.class ? Object.class : type;
        try {
            return parser.parse(bytes, length, t);
        } catch (RuntimeException e) {
            throw new DubboSerializationException("Failed to decode the response to request " + id + ": "
                    + ValueTypes.reason(e), e);
        }
    }
}
