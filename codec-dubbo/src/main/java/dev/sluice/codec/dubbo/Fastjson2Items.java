package dev.sluice.codec.dubbo;

import com.alibaba.fastjson2.JSONReader;
import com.alibaba.fastjson2.reader.ObjectReader;
import java.lang.reflect.Type;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * Reads the fastjson2 (JSONB) items of a Dubbo body: each item is a 4-byte big-endian length followed by one JSONB
 * value (docs/wire-format.md §4). Every item is bounds-checked by {@link JsonbBounds} before fastjson2 reads it, and
 * fastjson2 reads a padded copy, never the connection's buffer.
 *
 * <p>Two uses, on two kinds of thread:
 * <ul>
 *   <li>an instance is a cursor over one body at a time, owned by one {@link DubboDecoder} and used only on that
 *       decoder's event loop ({@link #reset} per frame, {@link #clear} after it);</li>
 *   <li>{@link #readItem} is static and thread-safe: {@link DeferredValue} calls it on the thread that waits for a
 *       result, with a reader context of its own.</li>
 * </ul>
 */
final class Fastjson2Items {
    /** {@code FastJson2ObjectInput}'s reader features with {@code check-serializable} on. */
    static final JSONReader.Feature[] READER_FEATURES = {
        JSONReader.Feature.UseDefaultConstructorAsPossible,
        JSONReader.Feature.ErrorOnNoneSerializable,
        JSONReader.Feature.IgnoreAutoTypeNotMatch,
        JSONReader.Feature.UseNativeObject,
        JSONReader.Feature.FieldBased,
    };

    private static final int ITEM_PADDING = 16;
    /** How many attachment items a decoder remembers (a power of two; chosen by item length). */
    private static final int REMEMBERED = 4;
    /** The longest attachment item remembered, in bytes. */
    private static final int MAX_REMEMBERED_ITEM = 1024;

    private final JSONReader.Context readContext;
    /** The limits of the frame being read; its counts start again with each {@link #reset}. */
    private final DecodeBudget budget;
    /** The attachments read last, by item length; per connection, on its event loop. */
    private final EncodedAttachments[] remembered = new EncodedAttachments[REMEMBERED];

    // The body being read: buf[pos, end).
    private byte[] buf;
    private int pos;
    private int end;

    /**
     * @param readContext the decoder's context (allowlist, provider); used on its event loop only
     * @param budget the decoder's budget, used for one frame at a time
     */
    Fastjson2Items(JSONReader.Context readContext, DecodeBudget budget) {
        this.readContext = readContext;
        this.budget = budget;
    }

    /** Starts reading the body {@code body[from, to)}. */
    void reset(byte[] body, int from, int to) {
        buf = body;
        pos = from;
        end = to;
    }

    /** Forgets the body, so a cumulation buffer's array is not pinned between frames. */
    void clear() {
        buf = null;
    }

    /** The array of the body being read. */
    byte[] array() {
        return buf;
    }

    int position() {
        return pos;
    }

    void position(int position) {
        pos = position;
    }

    int end() {
        return end;
    }

    /** Skips the next item; returns its length. */
    int skipItem() {
        int n = nextItemLength();
        pos += n;
        return n;
    }

    int readFlagItem() {
        int n = nextItemLength();
        int off = pos;
        pos += n;
        if (n == 2 && buf[off] == Jsonb.INT8) {
            return buf[off + 1];
        }
        if (n == 1 && buf[off] >= -16 && buf[off] <= 47) {
            return buf[off];
        }
        Object v = parse(off, n, Object.class);
        if (v instanceof Number) {
            return ((Number) v).intValue();
        }
        throw new IllegalArgumentException("result flag is not a number: " + v);
    }

    Throwable readThrowableItem() {
        Object v = readValueItem(Object.class);
        if (v instanceof Throwable) {
            return (Throwable) v;
        }
        throw new IllegalArgumentException("expected a Throwable, read "
                + (v == null ? "null" : v.getClass().getName()));
    }

    /** The 4-byte big-endian item length at {@code p}, unchecked. */
    private int lengthAt(int p) {
        return ((buf[p] & 0xff) << 24) | ((buf[p + 1] & 0xff) << 16) | ((buf[p + 2] & 0xff) << 8) | (buf[p + 3] & 0xff);
    }

    /** Reads the next item's 4-byte length, checks it against the body, and leaves {@code pos} at its JSONB. */
    int nextItemLength() {
        if (end - pos < 4) {
            throw new IllegalArgumentException("body ends " + (end - pos) + " bytes after the last item; expected"
                    + " another item");
        }
        int n = lengthAt(pos);
        pos += 4;
        if (n < 0 || n > end - pos) {
            throw new IllegalArgumentException("item length " + n + " exceeds the " + (end - pos)
                    + " bytes left in the body");
        }
        return n;
    }

    String readStringItem() {
        int n = nextItemLength();
        int off = pos;
        pos += n;
        if (n == 0) {
            throw new IllegalArgumentException("empty item where a string was expected");
        }
        byte t = buf[off];
        if (t >= Jsonb.STR_ASCII_FIX_MIN && t <= Jsonb.STR_ASCII_FIX_MAX) {
            int len = t - Jsonb.STR_ASCII_FIX_MIN;
            if (len + 1 <= n) {
                return new String(buf, off + 1, len, StandardCharsets.ISO_8859_1);
            }
        } else if (t == Jsonb.NULL) {
            return null;
        } else if (t == Jsonb.STR_ASCII) {
            int[] p = {off + 1};
            int len = Jsonb.readInt32(buf, p, off + n);
            if (len >= 0 && len <= off + n - p[0]) {
                return new String(buf, p[0], len, StandardCharsets.ISO_8859_1);
            }
        }
        JsonbBounds.check(buf, off, off + n, budget);
        try (JSONReader r = JSONReader.ofJSONB(itemCopy(off, n), 0, n, readContext)) {
            return r.readString();
        }
    }

    /**
     * The next item as attachments. An item of ASCII strings is kept (the last few, by length) and, when the next one
     * has the same bytes, the same immutable instance is returned without decoding: a client sends the same
     * attachments on every call, and a provider the same with every result.
     */
    Map<String, Object> readAttachmentsItem() {
        EncodedAttachments same = sameAttachmentsAsBefore();
        if (same != null) {
            return same;
        }
        int itemStart = pos;
        HashMap<String, Object> simple = readAsciiStringMap();
        if (simple != null) {
            int length = pos - itemStart;
            if (length > MAX_REMEMBERED_ITEM) {
                return simple;
            }
            EncodedAttachments read = EncodedAttachments.decoded(simple, Arrays.copyOfRange(buf, itemStart, pos));
            remembered[length & (REMEMBERED - 1)] = read;
            return read;
        }
        Object v = readValueItem(Map.class);
        if (v == null) {
            return new HashMap<>();
        }
        if (!(v instanceof Map)) {
            throw new IllegalArgumentException("attachments are not a map: " + v.getClass().getName());
        }
        @SuppressWarnings("unchecked")
        Map<String, Object> m = (Map<String, Object>) v;
        return m;
    }

    /** Remembered attachments whose item has exactly the bytes at {@code pos} (then skipped), or {@code null}. */
    private EncodedAttachments sameAttachmentsAsBefore() {
        if (end - pos < 4) {
            return null;
        }
        int length = 4 + lengthAt(pos);
        if (length < 4 || length > end - pos) {
            return null;
        }
        EncodedAttachments candidate = remembered[length & (REMEMBERED - 1)];
        if (candidate == null) {
            return null;
        }
        byte[] item = candidate.fastjson2Item();
        if (item.length != length || !Arrays.equals(buf, pos, pos + length, item, 0, length)) {
            return null;
        }
        pos += length;
        return candidate;
    }

    /**
     * The usual attachments — a map of ASCII strings to ASCII strings — read by hand into a {@code HashMap}; anything
     * else returns {@code null} with {@code pos} unchanged, for fastjson2 to read.
     */
    private HashMap<String, Object> readAsciiStringMap() {
        if (end - pos < 6) {
            return null;
        }
        int n = lengthAt(pos);
        int start = pos + 4;
        if (n < 2 || n > end - start || buf[start] != Jsonb.OBJECT_START || buf[start + n - 1] != Jsonb.OBJECT_END) {
            return null;
        }
        int itemEnd = start + n - 1;
        int[] p = {start + 1};
        HashMap<String, Object> map = new HashMap<>();
        while (p[0] < itemEnd) {
            String k = asciiString(p, itemEnd);
            String v = k == null ? null : asciiString(p, itemEnd);
            if (v == null) {
                return null;
            }
            map.put(k, v);
        }
        if (p[0] != itemEnd) {
            return null;
        }
        pos = start + n;
        return map;
    }

    /** An ASCII string at {@code p[0]}, advancing it; {@code null} (p unspecified) for anything else. */
    private String asciiString(int[] p, int limit) {
        int off = p[0];
        byte t = buf[off];
        int len;
        if (t >= Jsonb.STR_ASCII_FIX_MIN && t <= Jsonb.STR_ASCII_FIX_MAX) {
            len = t - Jsonb.STR_ASCII_FIX_MIN;
            off++;
        } else if (t == Jsonb.STR_ASCII) {
            p[0] = off + 1;
            try {
                len = Jsonb.readInt32(buf, p, limit);
            } catch (IllegalArgumentException e) {
                return null;
            }
            off = p[0];
        } else {
            return null;
        }
        if (len < 0 || len > limit - off) {
            return null;
        }
        for (int i = off; i < off + len; i++) {
            if (buf[i] < 0) {
                return null; // Latin-1 above 0x7f: leave it to fastjson2
            }
        }
        p[0] = off + len;
        return new String(buf, off, len, StandardCharsets.ISO_8859_1);
    }

    Object readValueItem(Type type) {
        if (type == String.class) {
            return readStringItem(); // an ASCII string is read in place, without copying the item for fastjson2
        }
        int n = nextItemLength();
        int off = pos;
        pos += n;
        return parse(off, n, type);
    }

    private Object parse(int off, int n, Type type) {
        if (n == 0) {
            throw new IllegalArgumentException("empty item");
        }
        if (isNullItem(buf, off, n, type)) {
            return null; // without copying the item
        }
        byte[] copy = pooledItemCopy(off, n);
        try {
            return readItem(copy, n, type, readContext, budget);
        } finally {
            ItemArrays.recycle(copy); // the value read never shares its bytes: strings and arrays are copied
        }
    }

    /** The item {@code b[off, off + n)} is JSONB null, read as a type that may be null. */
    private static boolean isNullItem(byte[] b, int off, int n, Type type) {
        return n == 1 && b[off] == Jsonb.NULL && !(type instanceof Class && ((Class<?>) type).isPrimitive());
    }

    /**
     * Parses one item from {@code copy[0, n)}, a padded copy (see {@link #itemCopy}), as {@code type}, and checks the
     * value is one. Any thread; {@code context} carries the allowlist and {@code budget} the limits, neither shared
     * with a concurrent reader.
     */
    static Object readItem(byte[] copy, int n, Type type, JSONReader.Context context, DecodeBudget budget) {
        if (isNullItem(copy, 0, n, type)) {
            return null;
        }
        // fastjson2 allocates from declared sizes, recurses per nesting level and bounds its reads by the array, not
        // the item: check every token of the item, then let it read the padded copy (as Dubbo reads a copy).
        JsonbBounds.check(copy, 0, n, budget);
        JsonbFields.check(copy, 0, n, type, context); // integral parameters and fields (A31, A31b)
        Object v;
        try (JSONReader r = JSONReader.ofJSONB(copy, 0, n, context)) {
            if (type == Object.class) {
                v = r.readAny();
            } else {
                ObjectReader<?> reader = context.getProvider().getObjectReader(type, true);
                v = reader.readJSONBObject(r, type, null, 0);
            }
            r.handleResolveTasks(v);
        } catch (OutOfMemoryError e) {
            // fastjson2 sizes arrays from the declared count; a forged count of ~2^31 fails the allocation up
            // front ("Requested array size exceeds VM limit"), which nothing else has seen. Answer, don't die.
            throw new IllegalArgumentException("a value declares more elements than can be allocated (item of " + n
                    + " bytes): " + e.getMessage());
        } catch (StackOverflowError e) {
            // JsonbBounds caps the nesting; a reader path deeper per level than expected must still not escape
            // the decoder (the frame would stay in the cumulation and poison the connection).
            throw new IllegalArgumentException("a value is nested too deeply to read (item of " + n + " bytes)");
        }
        return ValueTypes.checked(v, type);
    }

    /**
     * A copy of the item {@code buf[off, off + n)} followed by zeros. fastjson2 reads some tokens with {@code Unsafe}
     * a few bytes past their end (a zero-length field name is read as 8 bytes): the zeros keep those reads inside the
     * array, and zeros are tokens that only ever move a reader forward.
     */
    byte[] itemCopy(int off, int n) {
        byte[] copy = new byte[n + ITEM_PADDING];
        System.arraycopy(buf, off, copy, 0, n);
        return copy;
    }

    /**
     * As {@link #itemCopy}, in an array from {@link ItemArrays}: the item, then {@code ITEM_PADDING} zeros; what
     * follows them is left from earlier use and never read (the item was bounds-checked token by token, and
     * fastjson2's reads past a token end within the zeros).
     */
    byte[] pooledItemCopy(int off, int n) {
        byte[] copy = ItemArrays.take(n + ITEM_PADDING);
        System.arraycopy(buf, off, copy, 0, n);
        Arrays.fill(copy, n, n + ITEM_PADDING, (byte) 0);
        return copy;
    }
}
