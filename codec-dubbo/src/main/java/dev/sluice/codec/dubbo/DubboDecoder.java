package dev.sluice.codec.dubbo;

import com.alibaba.fastjson2.JSONFactory;
import com.alibaba.fastjson2.JSONReader;
import com.alibaba.fastjson2.reader.ObjectReader;
import com.alibaba.fastjson2.reader.ObjectReaderProvider;
import dev.sluice.transport.codec.FrameDecoder;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Cuts a Dubbo byte stream into frames and decodes each into a {@link DubboRequest} or {@link DubboResponse}
 * (dubbo-wire.md §1–§4). One instance per connection; <b>only that connection's event loop calls it</b> (it keeps
 * the skip state of a rejected frame and reusable scratch space).
 *
 * <p>What it emits, one message per frame, never holding a buffer:
 * <ul>
 *   <li>requests: invocations with arguments decoded as the {@link DubboTypeResolver}'s parameter types, heartbeats
 *       and {@code "R"}/{@code "W"} events in fastjson2 or hessian2; anything it cannot decode (unknown service,
 *       serialization other than fastjson2, corrupt body, a type refused by the {@link ClassAllowlist}, a body over
 *       the payload limit) as a {@linkplain DubboRequest#isBroken() broken request} with the frame's id, two-way
 *       flag and serialization id and status 40, so the server can answer it;</li>
 *   <li>responses: results read as the resolver's return type, errors with their text, heartbeat responses; a
 *       response it cannot decode (unknown result flag, corrupt body, refused type, body over the limit) as a
 *       status-90 CLIENT_ERROR response with the frame's id, so the waiting call fails at once.</li>
 * </ul>
 *
 * <p>The payload limit is checked from the header, before any body byte is buffered: an oversized frame is reported
 * at once and its body skipped as it arrives, however many reads that takes, so the stream stays in sync (Dubbo 3.3.6
 * does not skip). A negative body length is reported and treated as an empty body. Bytes a body declares beyond its
 * last item are skipped. The only exception it throws is {@link DubboProtocolException}, for a wrong magic: it
 * then discards the buffered bytes and every byte after, emitting nothing more, while the transport closes.
 */
public final class DubboDecoder implements FrameDecoder {
    /** {@code FastJson2ObjectInput}'s reader features with {@code check-serializable} on. */
    static final JSONReader.Feature[] READER_FEATURES = {
        JSONReader.Feature.UseDefaultConstructorAsPossible,
        JSONReader.Feature.ErrorOnNoneSerializable,
        JSONReader.Feature.IgnoreAutoTypeNotMatch,
        JSONReader.Feature.UseNativeObject,
        JSONReader.Feature.FieldBased,
    };

    private static final int KEEP_SCRATCH = 16 * 1024;
    private static final int ITEM_PADDING = 16;
    private static final int TARGET_CACHE_SIZE = 8;

    private final int payloadLimit;
    private final DubboTypeResolver resolver;
    private final JSONReader.Context readContext;
    private final ObjectReaderProvider provider;
    private final ClassAllowlist allowlist;
    private final boolean deferValues;

    /** Set after a wrong magic: every later byte is discarded while the transport closes the connection. */
    private boolean unusable;
    /** Body bytes of a rejected frame still to discard. */
    private long skipRemaining;
    private byte[] scratch;

    // The body being decoded: buf[pos, end).
    private byte[] buf;
    private int pos;
    private int end;

    // Recently seen request targets, matched on the raw bytes of the five leading items: a hit skips five string
    // decodings and a resolver lookup.
    private final byte[][] targetBytes = new byte[TARGET_CACHE_SIZE][];
    private final DubboMethod[] targetMethods = new DubboMethod[TARGET_CACHE_SIZE];
    private final Type[][] targetTypes = new Type[TARGET_CACHE_SIZE][];
    private int targetNext;

    /**
     * @param payloadLimit the largest body in bytes, ≤ 0 for no limit
     * @param allowlist the classes typed values may name
     * @param resolver the expected types of arguments and results
     */
    public DubboDecoder(int payloadLimit, ClassAllowlist allowlist, DubboTypeResolver resolver) {
        this(payloadLimit, allowlist, resolver, false);
    }

    /**
     * @param deferValues when true, the value of a result (flags 1 and 4) is not parsed here: the response carries a
     *     copy of its item, parsed by {@link DubboResponse#readValue} on whichever thread waits for it. A client
     *     with many waiting callers then parses results on their threads in parallel instead of one after another
     *     on its event loop. The resolver's return types are not consulted.
     */
    public DubboDecoder(int payloadLimit, ClassAllowlist allowlist, DubboTypeResolver resolver, boolean deferValues) {
        this.payloadLimit = payloadLimit;
        this.resolver = resolver;
        this.allowlist = allowlist;
        this.deferValues = deferValues;
        this.provider = JSONFactory.getDefaultObjectReaderProvider();
        this.readContext = new JSONReader.Context(provider, allowlist, READER_FEATURES);
    }

    @Override
    public void decode(ByteBuf in, List<Object> out) {
        if (unusable) {
            in.skipBytes(in.readableBytes());
            return;
        }
        for (;;) {
            if (skipRemaining > 0) {
                int n = (int) Math.min(skipRemaining, in.readableBytes());
                in.skipBytes(n);
                skipRemaining -= n;
                if (skipRemaining > 0) {
                    return;
                }
            }
            int readable = in.readableBytes();
            if (readable == 0) {
                return;
            }
            int ri = in.readerIndex();
            // Check the magic as soon as its bytes are here, so garbage is refused without waiting for 16 bytes.
            if (in.getByte(ri) != DubboConstants.MAGIC_HIGH
                    || (readable > 1 && in.getByte(ri + 1) != DubboConstants.MAGIC_LOW)) {
                String message = "Not a Dubbo frame: wrong magic, expected 0xdabb, got 0x"
                        + ByteBufUtil.hexDump(in, ri, Math.min(readable, 2)) + " (next bytes: "
                        + ByteBufUtil.hexDump(in, ri, Math.min(readable, 16)) + "); closing the connection";
                // The stream cannot be resynchronised (Dubbo would hand the bytes to its telnet codec). Drop what
                // is buffered and everything after, so neither a retry nor the final decode on close rethrows.
                unusable = true;
                in.skipBytes(readable);
                throw new DubboProtocolException(message);
            }
            if (readable < DubboConstants.HEADER_LENGTH) {
                return;
            }
            int flags = in.getUnsignedByte(ri + 2);
            byte status = in.getByte(ri + 3);
            long id = in.getLong(ri + 4);
            int len = in.getInt(ri + 12);
            if (len < 0 || (payloadLimit > 0 && len > payloadLimit)) {
                in.skipBytes(DubboConstants.HEADER_LENGTH);
                skipRemaining = Math.max(len, 0);
                out.add(rejected(flags, status, id, len));
                continue;
            }
            if (readable < (long) DubboConstants.HEADER_LENGTH + len) {
                return;
            }
            Object message = decodeFrame(in, ri + DubboConstants.HEADER_LENGTH, len, flags, status, id);
            in.readerIndex(ri + DubboConstants.HEADER_LENGTH + len);
            if (message instanceof DubboRequest) {
                ((DubboRequest) message).frameBytes(DubboConstants.HEADER_LENGTH + len);
            }
            out.add(message);
        }
    }

    @Override
    public void close() {
        scratch = null;
        buf = null;
    }

    private Object rejected(int flags, byte status, long id, int len) {
        byte ser = (byte) (flags & DubboConstants.SERIALIZATION_MASK);
        String text = len < 0
                ? "Invalid body length " + len + " in frame header (id " + id + ")"
                : "Data length too large: " + len + ", max payload: " + payloadLimit
                        + " (frame rejected from its header; body skipped)";
        if ((flags & DubboConstants.FLAG_REQUEST) != 0) {
            return DubboRequest.broken(id, (flags & DubboConstants.FLAG_TWO_WAY) != 0,
                    (flags & DubboConstants.FLAG_EVENT) != 0, ser, DubboConstants.STATUS_BAD_REQUEST, text, null);
        }
        return DubboResponse.error(id, ser, DubboConstants.STATUS_CLIENT_ERROR, text);
    }

    private Object decodeFrame(ByteBuf in, int bodyIndex, int len, int flags, byte status, long id) {
        if (in.hasArray()) {
            buf = in.array();
            pos = in.arrayOffset() + bodyIndex;
        } else {
            byte[] s = scratch;
            if (s == null || s.length < len) {
                s = new byte[Math.max(len, 512)];
                if (len <= KEEP_SCRATCH) {
                    scratch = s;
                }
            }
            in.getBytes(bodyIndex, s, 0, len);
            buf = s;
            pos = 0;
        }
        end = pos + len;
        try {
            if ((flags & DubboConstants.FLAG_REQUEST) != 0) {
                return decodeRequest(flags, id);
            }
            return decodeResponse(flags, status, id);
        } finally {
            buf = null; // do not pin a cumulation buffer's array
        }
    }

    // ---- requests

    private DubboRequest decodeRequest(int flags, long id) {
        byte ser = (byte) (flags & DubboConstants.SERIALIZATION_MASK);
        boolean twoWay = (flags & DubboConstants.FLAG_TWO_WAY) != 0;
        if ((flags & DubboConstants.FLAG_EVENT) != 0) {
            return decodeEventRequest(id, twoWay, ser);
        }
        if (ser != DubboConstants.SERIALIZATION_FASTJSON2) {
            return DubboRequest.broken(id, twoWay, false, ser, DubboConstants.STATUS_BAD_REQUEST,
                    "Unsupported serialization id " + ser + ": this service accepts fastjson2 (id 23) only;"
                            + " configure serialization=fastjson2 on the consumer", null);
        }
        DubboMethod method = null;
        try {
            int prefixStart = pos;
            for (int i = 0; i < 5; i++) {
                int n = nextItemLength(); // advances past the length; "pos += next…()" would lose that
                pos += n;
            }
            int slot = findTarget(prefixStart, pos);
            Type[] types;
            if (slot >= 0) {
                method = targetMethods[slot];
                types = targetTypes[slot];
            } else {
                int prefixEnd = pos;
                pos = prefixStart;
                String dubboVersion = readStringItem();
                String path = readStringItem();
                String version = readStringItem();
                String methodName = readStringItem();
                String desc = readStringItem();
                if (dubboVersion == null || path == null || methodName == null) {
                    throw new IllegalArgumentException("missing "
                            + (dubboVersion == null ? "dubbo version" : path == null ? "service path" : "method name"));
                }
                method = DubboMethod.of(dubboVersion, path, version, methodName, desc);
                types = resolver.parameterTypes(path, method.serviceVersion(), methodName,
                        method.parameterTypesDesc());
                if (types == null) {
                    return DubboRequest.broken(id, twoWay, false, ser, DubboConstants.STATUS_BAD_REQUEST,
                            "Service not found: " + path + ":" + method.serviceVersion() + " has no method "
                                    + methodName + "(" + method.parameterTypesDesc() + ")", method);
                }
                rememberTarget(prefixStart, prefixEnd, method, types);
            }
            Object[] args = new Object[types.length];
            for (int i = 0; i < types.length; i++) {
                args[i] = readValueItem(types[i]);
            }
            Map<String, Object> attachments = pos < end ? readAttachmentsItem() : new HashMap<>();
            return DubboRequest.invocation(id, twoWay, ser, method, args, attachments);
        } catch (RuntimeException e) {
            return DubboRequest.broken(id, twoWay, false, ser, DubboConstants.STATUS_BAD_REQUEST,
                    "Fail to decode request " + (method == null ? "(id " + id + ")" : method.toString()) + " due to: "
                            + reason(e), method);
        }
    }

    private DubboRequest decodeEventRequest(long id, boolean twoWay, byte ser) {
        if (isNullBytes(ser)) {
            return DubboRequest.event(id, twoWay, ser, null);
        }
        int len = end - pos;
        if (len > DubboConstants.MAX_EVENT_BODY) {
            return DubboRequest.broken(id, twoWay, true, ser, DubboConstants.STATUS_BAD_REQUEST,
                    "Event data too long: " + len + " bytes, max " + DubboConstants.MAX_EVENT_BODY, null);
        }
        try {
            return DubboRequest.event(id, twoWay, ser, readEventString(ser));
        } catch (RuntimeException e) {
            return DubboRequest.broken(id, twoWay, true, ser, DubboConstants.STATUS_BAD_REQUEST,
                    "Fail to decode event (id " + id + ") due to: " + reason(e), null);
        }
    }

    private String readEventString(byte ser) {
        if (ser == DubboConstants.SERIALIZATION_FASTJSON2) {
            return readStringItem();
        } else if (ser == DubboConstants.SERIALIZATION_HESSIAN2) {
            return Hessian2.readString(buf, pos, end);
        }
        throw new IllegalArgumentException("unsupported serialization id " + ser + " for events");
    }

    /** True if the body is exactly the serialization's encoding of null, which makes an event a heartbeat. */
    private boolean isNullBytes(byte ser) {
        int len = end - pos;
        if (ser == DubboConstants.SERIALIZATION_FASTJSON2) {
            return len == 5 && buf[pos] == 0 && buf[pos + 1] == 0 && buf[pos + 2] == 0 && buf[pos + 3] == 1
                    && buf[pos + 4] == Jsonb.NULL;
        }
        if (ser == DubboConstants.SERIALIZATION_HESSIAN2) {
            return len == 1 && buf[pos] == Hessian2.NULL;
        }
        return false;
    }

    private int findTarget(int from, int to) {
        for (int i = 0; i < TARGET_CACHE_SIZE; i++) {
            byte[] t = targetBytes[i];
            if (t != null && t.length == to - from && Arrays.equals(t, 0, t.length, buf, from, to)) {
                return i;
            }
        }
        return -1;
    }

    private void rememberTarget(int from, int to, DubboMethod method, Type[] types) {
        int slot = targetNext;
        targetNext = (slot + 1) % TARGET_CACHE_SIZE;
        targetBytes[slot] = Arrays.copyOfRange(buf, from, to);
        targetMethods[slot] = method;
        targetTypes[slot] = types;
    }

    // ---- responses

    private DubboResponse decodeResponse(int flags, byte status, long id) {
        byte ser = (byte) (flags & DubboConstants.SERIALIZATION_MASK);
        if ((flags & DubboConstants.FLAG_EVENT) != 0) {
            if (isNullBytes(ser)) {
                return DubboResponse.heartbeat(id, ser);
            }
            return DubboResponse.error(id, ser, DubboConstants.STATUS_CLIENT_ERROR,
                    "Unexpected event response body of " + (end - pos) + " bytes (id " + id + ", serialization "
                            + ser + "); only heartbeat responses are known");
        }
        if (status != DubboConstants.STATUS_OK) {
            String text;
            try {
                text = ser == DubboConstants.SERIALIZATION_HESSIAN2 ? Hessian2.readString(buf, pos, end)
                        : readStringItem();
            } catch (RuntimeException e) {
                text = "(unreadable error text: " + reason(e) + ")";
            }
            return DubboResponse.error(id, ser, status, text);
        }
        if (ser != DubboConstants.SERIALIZATION_FASTJSON2) {
            return DubboResponse.error(id, ser, DubboConstants.STATUS_CLIENT_ERROR,
                    "Unsupported serialization id " + ser + " in the response to request " + id
                            + ": only fastjson2 (id 23) results can be read");
        }
        try {
            int flag = readFlagItem();
            Object value = null;
            Throwable exception = null;
            Map<String, Object> attachments = null;
            switch (flag) {
                case DubboConstants.RESPONSE_WITH_EXCEPTION:
                case DubboConstants.RESPONSE_WITH_EXCEPTION_WITH_ATTACHMENTS:
                    exception = readThrowableItem();
                    break;
                case DubboConstants.RESPONSE_VALUE:
                case DubboConstants.RESPONSE_VALUE_WITH_ATTACHMENTS:
                    if (deferValues) {
                        int n = nextItemLength();
                        int off = pos;
                        pos += n;
                        if (n == 0) {
                            throw new IllegalArgumentException("empty item");
                        }
                        value = new DeferredValue(id, itemCopy(off, n), n, provider, allowlist);
                        break;
                    }
                    Type type = resolver.returnType(id);
                    value = readValueItem(type == null || type == void.class || type == Void.class
                            ? Object.class : type);
                    break;
                case DubboConstants.RESPONSE_NULL_VALUE:
                case DubboConstants.RESPONSE_NULL_VALUE_WITH_ATTACHMENTS:
                    break;
                default:
                    return DubboResponse.error(id, ser, DubboConstants.STATUS_CLIENT_ERROR,
                            "Unknown result flag, expect '0' '1' '2' '3' '4' '5', but received: " + flag
                                    + " (response to request " + id + ")");
            }
            if (flag >= DubboConstants.RESPONSE_WITH_EXCEPTION_WITH_ATTACHMENTS) {
                attachments = readAttachmentsItem();
            }
            if (exception != null) {
                return DubboResponse.exception(id, ser, exception, attachments);
            }
            return DubboResponse.value(id, ser, value, attachments);
        } catch (RuntimeException e) {
            return DubboResponse.error(id, ser, DubboConstants.STATUS_CLIENT_ERROR,
                    "Failed to decode the response to request " + id + ": " + reason(e));
        }
    }

    private int readFlagItem() {
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

    private Throwable readThrowableItem() {
        Object v = readValueItem(Object.class);
        if (v instanceof Throwable) {
            return (Throwable) v;
        }
        throw new IllegalArgumentException("expected a Throwable, read "
                + (v == null ? "null" : v.getClass().getName()));
    }

    // ---- items

    /** Reads the next item's 4-byte length, checks it against the body, and leaves {@code pos} at its JSONB. */
    private int nextItemLength() {
        if (end - pos < 4) {
            throw new IllegalArgumentException("body ends " + (end - pos) + " bytes after the last item; expected"
                    + " another item");
        }
        int n = ((buf[pos] & 0xff) << 24) | ((buf[pos + 1] & 0xff) << 16) | ((buf[pos + 2] & 0xff) << 8)
                | (buf[pos + 3] & 0xff);
        pos += 4;
        if (n < 0 || n > end - pos) {
            throw new IllegalArgumentException("item length " + n + " exceeds the " + (end - pos)
                    + " bytes left in the body");
        }
        return n;
    }

    private String readStringItem() {
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
        JsonbBounds.check(buf, off, off + n);
        try (JSONReader r = JSONReader.ofJSONB(itemCopy(off, n), 0, n, readContext)) {
            return r.readString();
        }
    }

    private Map<String, Object> readAttachmentsItem() {
        Map<String, Object> simple = readAsciiStringMap();
        if (simple != null) {
            return simple;
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

    /**
     * The usual attachments — a map of ASCII strings to ASCII strings — read by hand into a {@code HashMap}; anything
     * else returns {@code null} with {@code pos} unchanged, for fastjson2 to read.
     */
    private Map<String, Object> readAsciiStringMap() {
        if (end - pos < 6) {
            return null;
        }
        int n = ((buf[pos] & 0xff) << 24) | ((buf[pos + 1] & 0xff) << 16) | ((buf[pos + 2] & 0xff) << 8)
                | (buf[pos + 3] & 0xff);
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

    private Object readValueItem(Type type) {
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
        return readItem(itemCopy(off, n), n, type, readContext);
    }

    /** The item {@code b[off, off + n)} is JSONB null, read as a type that may be null. */
    private static boolean isNullItem(byte[] b, int off, int n, Type type) {
        return n == 1 && b[off] == Jsonb.NULL && !(type instanceof Class && ((Class<?>) type).isPrimitive());
    }

    /**
     * Parses one item from {@code copy[0, n)}, a padded copy (see {@link #itemCopy}), as {@code type}, and checks the
     * value is one. Any thread; {@code context} carries the allowlist and is not shared with a concurrent reader.
     */
    static Object readItem(byte[] copy, int n, Type type, JSONReader.Context context) {
        if (isNullItem(copy, 0, n, type)) {
            return null;
        }
        // fastjson2 allocates from declared sizes, recurses per nesting level and bounds its reads by the array, not
        // the item: check every token of the item, then let it read the padded copy (as Dubbo reads a copy).
        JsonbBounds.check(copy, 0, n);
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
        if (v != null) {
            Class<?> expected = rawClass(type);
            if (expected != null && !box(expected).isInstance(v)) {
                throw new IllegalArgumentException("expected " + expected.getName() + " but read "
                        + v.getClass().getName());
            }
        }
        return v;
    }

    /**
     * A copy of the item {@code buf[off, off + n)} followed by zeros. fastjson2 reads some tokens with {@code Unsafe}
     * a few bytes past their end (a zero-length field name is read as 8 bytes): the zeros keep those reads inside the
     * array, and zeros are tokens that only ever move a reader forward.
     */
    private byte[] itemCopy(int off, int n) {
        byte[] copy = new byte[n + ITEM_PADDING];
        System.arraycopy(buf, off, copy, 0, n);
        return copy;
    }

    private static Class<?> rawClass(Type type) {
        if (type instanceof Class) {
            return (Class<?>) type;
        }
        if (type instanceof ParameterizedType && ((ParameterizedType) type).getRawType() instanceof Class) {
            return (Class<?>) ((ParameterizedType) type).getRawType();
        }
        return null;
    }

    private static Class<?> box(Class<?> c) {
        if (!c.isPrimitive()) {
            return c;
        }
        if (c == int.class) {
            return Integer.class;
        } else if (c == long.class) {
            return Long.class;
        } else if (c == boolean.class) {
            return Boolean.class;
        } else if (c == double.class) {
            return Double.class;
        } else if (c == float.class) {
            return Float.class;
        } else if (c == short.class) {
            return Short.class;
        } else if (c == byte.class) {
            return Byte.class;
        } else if (c == char.class) {
            return Character.class;
        }
        return Void.class;
    }

    /** The most telling message of a failure: a refused class wins over fastjson2's wrappers. */
    static String reason(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof ClassNotAllowedException) {
                return t.getMessage();
            }
            if (t.getCause() == t) {
                break;
            }
        }
        return e.getClass().getSimpleName() + ": " + e.getMessage();
    }
}
