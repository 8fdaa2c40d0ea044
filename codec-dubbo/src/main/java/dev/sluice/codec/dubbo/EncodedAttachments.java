package dev.sluice.codec.dubbo;

import dev.sluice.transport.Internal;
import java.util.AbstractMap;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * An immutable attachments map that carries its own fastjson2 item (the 4-byte length and the JSONB map), so a
 * message that sends it writes those bytes instead of encoding the strings again, and a decoder that reads the same
 * bytes again hands out this instance instead of decoding them again.
 *
 * <p>Made two ways: {@link #of} by a client for the attachments every call of a proxy method sends (path, interface,
 * version, timeout, fixed attachments), and by {@link DubboDecoder} for the attachments it read, kept per connection
 * (the same client sends the same attachments on every call). Hessian2 messages write {@link #plain()} as any
 * other map.
 *
 * <p>Threads: immutable; any thread.
 */
@Internal
public final class EncodedAttachments extends AbstractMap<String, Object> {
    private final Map<String, Object> map;
    private final Map<String, Object> view;
    private final byte[] item;

    private EncodedAttachments(HashMap<String, Object> map, byte[] item) {
        this.map = map;
        this.view = Collections.unmodifiableMap(map);
        this.item = item;
    }

    /**
     * A copy of {@code attachments}, encoded once as {@link DubboEncoder} writes attachments.
     *
     * @throws DubboSerializationException a value fastjson2 refuses (now, not on every call)
     */
    public static EncodedAttachments of(Map<String, Object> attachments) {
        HashMap<String, Object> copy = new HashMap<>(attachments);
        try {
            return new EncodedAttachments(copy, DubboEncoder.attachmentsItem(copy));
        } catch (RuntimeException e) {
            throw new DubboSerializationException("Failed to serialize the attachments " + copy.keySet() + ": "
                    + e.getMessage(), e);
        }
    }

    /** Attachments a decoder read from {@code item}, which it no longer changes; neither is copied. */
    static EncodedAttachments decoded(HashMap<String, Object> map, byte[] item) {
        return new EncodedAttachments(map, item);
    }

    /** The item as written: the 4-byte big-endian length, then the JSONB map. Not a copy: do not modify. */
    byte[] fastjson2Item() {
        return item;
    }

    /** The {@code HashMap} behind this view, for a serializer that writes it and nothing else; never modified. */
    Map<String, Object> plain() {
        return map;
    }

    @Override
    public Set<Entry<String, Object>> entrySet() {
        return view.entrySet();
    }

    @Override
    public Object get(Object key) {
        return map.get(key);
    }

    @Override
    public boolean containsKey(Object key) {
        return map.containsKey(key);
    }

    @Override
    public int size() {
        return map.size();
    }

    @Override
    public boolean isEmpty() {
        return map.isEmpty();
    }
}
