package dev.sluice.codec.dubbo;

import com.alibaba.fastjson2.JSONReader;
import com.alibaba.fastjson2.reader.ObjectReaderProvider;
import java.lang.reflect.Type;

/**
 * The not yet parsed value of a result: a padded copy of its fastjson2 item, made by a {@link DubboDecoder} built to
 * defer values, parsed by {@link DubboResponse#readValue} on the thread that wants it. Holds no buffer: nothing to
 * release when nobody reads it. The same allowlist and bounds checks apply as for a value parsed while decoding.
 *
 * <p>Immutable; {@link #read} may run on any thread, and each call parses again.
 */
final class DeferredValue {
    private final long id;
    private final byte[] item;
    private final int length;
    private final ObjectReaderProvider provider;
    private final ClassAllowlist allowlist;

    DeferredValue(long id, byte[] item, int length, ObjectReaderProvider provider, ClassAllowlist allowlist) {
        this.id = id;
        this.item = item;
        this.length = length;
        this.provider = provider;
        this.allowlist = allowlist;
    }

    /** Item size in bytes, without padding. */
    int length() {
        return length;
    }

    Object read(Type type) {
        Type t = type == null || type == void.class || type == Void.class ? Object.class : type;
        try {
            // A context per read: fastjson2 contexts are not meant to be shared by concurrent readers.
            return Fastjson2Items.readItem(item, length, t,
                    new JSONReader.Context(provider, allowlist, Fastjson2Items.READER_FEATURES));
        } catch (RuntimeException e) {
            throw new DubboSerializationException("Failed to decode the response to request " + id + ": "
                    + Fastjson2Items.reason(e), e);
        }
    }
}
