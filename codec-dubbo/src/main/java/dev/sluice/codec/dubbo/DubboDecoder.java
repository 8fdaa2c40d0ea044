package dev.sluice.codec.dubbo;

import com.alibaba.com.caucho.hessian.io.Hessian2Input;
import com.alibaba.fastjson2.JSONFactory;
import com.alibaba.fastjson2.JSONReader;
import com.alibaba.fastjson2.reader.ObjectReaderProvider;
import dev.sluice.codec.dubbo.internal.DubboConstants;
import dev.sluice.transport.Internal;
import dev.sluice.transport.codec.FrameDecoder;
import dev.sluice.transport.codec.HeaderFramer;
import dev.sluice.transport.internal.DubboHeader;
import dev.sluice.transport.jfr.FrameRejectedEvent;
import io.netty.buffer.ByteBuf;
import java.lang.reflect.Type;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Cuts a Dubbo byte stream into frames and decodes each into a {@link DubboRequest} or {@link DubboResponse}
 * (docs/wire-format.md §1–§6). One instance per connection; <b>only that connection's event loop calls it</b> (its
 * {@link HeaderFramer} keeps the skip state of a rejected frame, and it keeps reusable scratch space).
 *
 * <p>What it emits, one message per frame, never holding a buffer:
 * <ul>
 *   <li>requests: invocations with arguments decoded as the {@link DubboTypeResolver}'s parameter types, heartbeats
 *       and {@code "R"}/{@code "W"} events in fastjson2 or hessian2; anything it cannot decode (unknown service,
 *       serialization other than hessian2 and fastjson2, corrupt body, a type refused by the {@link ClassAllowlist},
 *       a body over the payload limit) as a {@linkplain DubboRequest#isBroken() broken request} with the frame's id,
 *       two-way flag and serialization id and status 40, so the server can answer it;</li>
 *   <li>responses: results read as the resolver's return type, errors with their text, heartbeat responses; a
 *       response it cannot decode (unknown result flag, corrupt body, refused type, body over the limit) as a
 *       status-90 CLIENT_ERROR response with the frame's id, so the waiting call fails at once.</li>
 * </ul>
 *
 * <p>Framing is the transport's {@link HeaderFramer} on {@link DubboHeader#LAYOUT}: the payload limit is checked from
 * the header, before any body byte is buffered, an oversized frame is reported at once and its body skipped as it
 * arrives, however many reads that takes, so the stream stays in sync (Dubbo 3.3.6 does not skip). A negative body
 * length is reported and treated as an empty body. Bytes a body declares beyond its last item are skipped. The only
 * exception it throws is {@link DubboProtocolException}, for a wrong magic (it then discards the buffered bytes and
 * every byte after, emitting nothing more, while the transport closes) or for an {@link Error} while decoding a frame
 * (the transport drops the bytes and closes).
 *
 * <p>Every connection carries both requests and responses (a client reads the provider's heartbeats and readonly
 * events, a server the answers to its heartbeats), so one decoder reads both. Items are parsed by
 * {@link Fastjson2Items} and {@link Hessian2Values}; this class is the frame grammar of docs/wire-format.md, one
 * method per message kind.
 */
@Internal
public final class DubboDecoder implements FrameDecoder {
    private static final int KEEP_SCRATCH = 16 * 1024;
    private static final int TARGET_CACHE_SIZE = 8;

    private final DubboTypeResolver resolver;
    private final Fastjson2Items items;
    private final Hessian2Values hessian2;
    private final DeferredValue.Parser fastjson2Parser;
    private final DeferredValue.Parser hessian2Parser;
    private final boolean deferValues;
    private final DecodeLimits limits;
    /** The limits of the frame being decoded (one frame at a time, on the event loop). */
    private final DecodeBudget budget;

    /** Cuts frames, refuses a wrong magic and skips the bodies of frames refused from their header. */
    private final HeaderFramer framer;
    private byte[] scratch;

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
        this(payloadLimit, allowlist, resolver, deferValues, DecodeLimits.DEFAULTS);
    }

    /** As above, with other {@link DecodeLimits} than the defaults. */
    public DubboDecoder(int payloadLimit, ClassAllowlist allowlist, DubboTypeResolver resolver, boolean deferValues,
                        DecodeLimits limits) {
        this(payloadLimit, allowlist, resolver, deferValues, new Hessian2Values(allowlist), limits);
    }

    /** As above, with the codec's shared hessian2 reader (its deserializer cache outlives a connection). */
    DubboDecoder(int payloadLimit, ClassAllowlist allowlist, DubboTypeResolver resolver, boolean deferValues,
                 Hessian2Values hessian2, DecodeLimits limits) {
        this.limits = Objects.requireNonNull(limits, "limits");
        this.budget = new DecodeBudget(limits);
        this.framer = new HeaderFramer(DubboHeader.LAYOUT, payloadLimit, new Frames());
        this.resolver = resolver;
        this.deferValues = deferValues;
        this.hessian2 = hessian2;
        ObjectReaderProvider provider = JSONFactory.getDefaultObjectReaderProvider();
        this.items = new Fastjson2Items(new JSONReader.Context(provider, allowlist, Fastjson2Items.READER_FEATURES),
                budget);
        // A context per parse: fastjson2 contexts are not meant to be shared by concurrent readers.
        this.fastjson2Parser = (bytes, n, type) -> {
            DecodeBudget valueBudget = new DecodeBudget(limits); // the value's own: parsed on the waiting thread
            valueBudget.reset(n);
            return Fastjson2Items.readItem(bytes, n, type,
                    new JSONReader.Context(provider, allowlist, Fastjson2Items.READER_FEATURES), valueBudget);
        };
        // The deferred bytes were walked by Hessian2Bounds with the whole body, as the stream's first value (nothing
        // before it defines a class or a reference): read them without a second walk.
        this.hessian2Parser = (bytes, n, type) -> hessian2.readOne(bytes, 0, n, type);
    }

    @Override
    public void decode(ByteBuf in, List<Object> out) {
        framer.decode(in, out);
    }

    /** The protocol's side of {@link HeaderFramer}: whole frames to decode, refusals to report. Event loop only. */
    private final class Frames implements HeaderFramer.Frames {
        @Override
        public void frame(ByteBuf in, int start, int bodyLength, List<Object> out) {
            long id = in.getLong(start + 4);
            Object message;
            try {
                message = decodeFrame(in, start + DubboConstants.HEADER_LENGTH, bodyLength,
                        in.getUnsignedByte(start + 2), in.getByte(start + 3), id);
            } catch (Error e) {
                // A StackOverflowError of a deep parse, an OutOfMemoryError of a body's copy: what was decoded of the
                // stream cannot be trusted, so the connection closes (the transport drops its bytes), naming why.
                throw new DubboProtocolException("Could not decode frame id " + id + " (" + bodyLength
                        + " body bytes): " + e + "; closing the connection", e);
            }
            if (message instanceof DubboRequest) {
                ((DubboRequest) message).frameBytes(DubboConstants.HEADER_LENGTH + bodyLength);
                ((DubboRequest) message).decodedEstimate(budget.estimate());
            }
            out.add(message);
        }

        @Override
        public void refused(ByteBuf in, int start, long declared, long limit, List<Object> out) {
            out.add(rejected(in.getUnsignedByte(start + 2), in.getLong(start + 4), declared, limit));
        }

        @Override
        public RuntimeException badMagic(String detail) {
            // The stream cannot be resynchronised (Dubbo would hand the bytes to its telnet codec).
            return new DubboProtocolException("Not a Dubbo frame: " + detail);
        }
    }

    @Override
    public void close() {
        scratch = null;
        items.clear();
    }

    private Object rejected(int flags, long id, long len, long limit) {
        byte ser = (byte) (flags & DubboConstants.SERIALIZATION_MASK);
        if (len >= 0) {
            // Refused for its size: answered, not thrown, so no FrameTooLargeException records it.
            FrameRejectedEvent event = new FrameRejectedEvent();
            if (event.shouldCommit()) {
                event.size = len;
                event.limit = limit;
                event.what = (flags & DubboConstants.FLAG_REQUEST) != 0 ? "Inbound Dubbo request body"
                        : "Inbound Dubbo response body";
                event.commit();
            }
        }
        String text = len < 0
                ? "Invalid body length " + len + " in frame header (id " + id + ")"
                : "Data length too large: " + len + ", max payload: " + limit
                        + " (frame rejected from its header; body skipped)";
        if ((flags & DubboConstants.FLAG_REQUEST) != 0) {
            return DubboRequest.broken(id, (flags & DubboConstants.FLAG_TWO_WAY) != 0,
                    (flags & DubboConstants.FLAG_EVENT) != 0, ser, DubboConstants.STATUS_BAD_REQUEST, text, null);
        }
        return DubboResponse.error(id, ser, DubboConstants.STATUS_CLIENT_ERROR, text);
    }

    private Object decodeFrame(ByteBuf in, int bodyIndex, int len, int flags, byte status, long id) {
        budget.reset(len);
        if (in.hasArray()) {
            int from = in.arrayOffset() + bodyIndex;
            items.reset(in.array(), from, from + len);
        } else {
            byte[] s = scratch;
            if (s == null || s.length < len) {
                s = new byte[Math.max(len, 512)];
                if (len <= KEEP_SCRATCH) {
                    scratch = s;
                }
            }
            in.getBytes(bodyIndex, s, 0, len);
            items.reset(s, 0, len);
        }
        try {
            if ((flags & DubboConstants.FLAG_REQUEST) != 0) {
                return decodeRequest(flags, id);
            }
            return decodeResponse(flags, status, id);
        } finally {
            items.clear(); // do not pin a cumulation buffer's array
        }
    }

    // ---- requests

    private DubboRequest decodeRequest(int flags, long id) {
        byte ser = (byte) (flags & DubboConstants.SERIALIZATION_MASK);
        boolean twoWay = (flags & DubboConstants.FLAG_TWO_WAY) != 0;
        if ((flags & DubboConstants.FLAG_EVENT) != 0) {
            return decodeEventRequest(id, twoWay, ser);
        }
        boolean hessian = ser == DubboConstants.SERIALIZATION_HESSIAN2;
        if (!hessian && ser != DubboConstants.SERIALIZATION_FASTJSON2) {
            return DubboRequest.broken(id, twoWay, false, ser, DubboConstants.STATUS_BAD_REQUEST,
                    "Unsupported serialization id " + ser + ": this service accepts hessian2 (id 2) and fastjson2"
                            + " (id 23)", null);
        }
        DubboMethod method = null;
        try {
            byte[] body = items.array();
            int prefixStart = items.position();
            int end = items.end();
            // hessian2 values carry no length: walk (and bound) the whole body once to find where each one starts.
            int[] starts = hessian ? Hessian2Bounds.values(body, prefixStart, end, budget) : null;
            int prefixEnd;
            if (hessian) {
                if (starts.length - 1 < 5) {
                    throw new IllegalArgumentException("the body holds " + (starts.length - 1) + " hessian2 values;"
                            + " a request starts with 5 (dubbo version, service path, version, method, descriptor)");
                }
                prefixEnd = starts[5];
            } else {
                for (int i = 0; i < 5; i++) {
                    items.skipItem();
                }
                prefixEnd = items.position();
            }
            int slot = findTarget(prefixStart, prefixEnd);
            Type[] types;
            if (slot >= 0) {
                method = targetMethods[slot];
                types = targetTypes[slot];
            } else {
                String[] target = new String[5];
                items.position(prefixStart);
                for (int i = 0; i < 5; i++) {
                    target[i] = hessian ? Hessian2.readString(body, starts[i], starts[i + 1]) : items.readStringItem();
                }
                String dubboVersion = target[0];
                String path = target[1];
                String methodName = target[3];
                if (dubboVersion == null || path == null || methodName == null) {
                    throw new IllegalArgumentException("missing "
                            + (dubboVersion == null ? "dubbo version" : path == null ? "service path" : "method name"));
                }
                method = DubboMethod.of(dubboVersion, path, target[2], methodName, target[4]);
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
            Map<String, Object> attachments;
            if (hessian) {
                attachments = readHessian2Arguments(body, prefixEnd, end, starts, types, args);
            } else {
                items.position(prefixEnd);
                for (int i = 0; i < types.length; i++) {
                    args[i] = items.readValueItem(types[i]);
                }
                attachments = items.position() < end ? items.readAttachmentsItem() : new HashMap<>();
            }
            return DubboRequest.invocation(id, twoWay, ser, method, args, attachments);
        } catch (RuntimeException e) {
            return DubboRequest.broken(id, twoWay, false, ser, DubboConstants.STATUS_BAD_REQUEST,
                    "Fail to decode request " + (method == null ? "(id " + id + ")" : method.toString()) + " due to: "
                            + ValueTypes.reason(e), method);
        }
    }

    /**
     * The arguments (into {@code args}) and attachments of a hessian2 request: read by {@link Hessian2Reader} when it
     * can read them all, else, from the start again, by hessian-lite. Each argument's integral check comes just
     * before it is read, either way.
     */
    private Map<String, Object> readHessian2Arguments(byte[] body, int prefixEnd, int end, int[] starts, Type[] types,
                                                      Object[] args) {
        boolean withAttachments = starts.length - 1 > 5 + types.length;
        Hessian2Reader fast = hessian2.reader(body, prefixEnd, end);
        if (fast != null) {
            try {
                for (int i = 0; i < types.length; i++) {
                    if (5 + i < starts.length - 1) {
                        Hessian2Bounds.checkIntegral(body, starts[5 + i], types[i]);
                    }
                    args[i] = Hessian2Values.read(fast, types[i]);
                }
                if (!withAttachments) {
                    return new HashMap<>();
                }
                @SuppressWarnings("unchecked")
                Map<String, Object> read = (Map<String, Object>) Hessian2Values.read(fast, Map.class);
                return read == null ? new HashMap<>() : read;
            } catch (Hessian2Reader.Give g) {
                // hessian-lite reads them all again, below
            }
        }
        Hessian2Input in = hessian2.input(body, prefixEnd, end);
        for (int i = 0; i < types.length; i++) {
            if (5 + i < starts.length - 1) {
                Hessian2Bounds.checkIntegral(body, starts[5 + i], types[i]);
            }
            args[i] = Hessian2Values.read(in, types[i]);
        }
        return withAttachments ? Hessian2Values.readAttachments(in) : new HashMap<>();
    }

    private DubboRequest decodeEventRequest(long id, boolean twoWay, byte ser) {
        if (isNullBytes(ser)) {
            return DubboRequest.event(id, twoWay, ser, null);
        }
        int len = items.end() - items.position();
        if (len > DubboConstants.MAX_EVENT_BODY) {
            return DubboRequest.broken(id, twoWay, true, ser, DubboConstants.STATUS_BAD_REQUEST,
                    "Event data too long: " + len + " bytes, max " + DubboConstants.MAX_EVENT_BODY, null);
        }
        try {
            return DubboRequest.event(id, twoWay, ser, readEventString(ser));
        } catch (RuntimeException e) {
            return DubboRequest.broken(id, twoWay, true, ser, DubboConstants.STATUS_BAD_REQUEST,
                    "Fail to decode event (id " + id + ") due to: " + ValueTypes.reason(e), null);
        }
    }

    private String readEventString(byte ser) {
        if (ser == DubboConstants.SERIALIZATION_FASTJSON2) {
            return items.readStringItem();
        } else if (ser == DubboConstants.SERIALIZATION_HESSIAN2) {
            return Hessian2.readString(items.array(), items.position(), items.end());
        }
        throw new IllegalArgumentException("unsupported serialization id " + ser + " for events");
    }

    /** True if the body is exactly the serialization's encoding of null, which makes an event a heartbeat. */
    private boolean isNullBytes(byte ser) {
        byte[] buf = items.array();
        int pos = items.position();
        int len = items.end() - pos;
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
            if (t != null && t.length == to - from && Arrays.equals(t, 0, t.length, items.array(), from, to)) {
                return i;
            }
        }
        return -1;
    }

    private void rememberTarget(int from, int to, DubboMethod method, Type[] types) {
        int slot = targetNext;
        targetNext = (slot + 1) % TARGET_CACHE_SIZE;
        targetBytes[slot] = Arrays.copyOfRange(items.array(), from, to);
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
                    "Unexpected event response body of " + (items.end() - items.position()) + " bytes (id " + id
                            + ", serialization " + ser + "); only heartbeat responses are known");
        }
        if (status != DubboConstants.STATUS_OK) {
            String text;
            try {
                text = ser == DubboConstants.SERIALIZATION_HESSIAN2
                        ? Hessian2.readString(items.array(), items.position(), items.end())
                        : items.readStringItem();
            } catch (RuntimeException e) {
                text = "(unreadable error text: " + ValueTypes.reason(e) + ")";
            }
            return DubboResponse.error(id, ser, status, text);
        }
        if (ser == DubboConstants.SERIALIZATION_HESSIAN2) {
            return decodeHessian2Result(id, ser);
        }
        if (ser != DubboConstants.SERIALIZATION_FASTJSON2) {
            return DubboResponse.error(id, ser, DubboConstants.STATUS_CLIENT_ERROR,
                    "Unsupported serialization id " + ser + " in the response to request " + id
                            + ": only hessian2 (id 2) and fastjson2 (id 23) results can be read");
        }
        try {
            int flag = items.readFlagItem();
            Object value = null;
            Throwable exception = null;
            Map<String, Object> attachments = null;
            switch (flag) {
                case DubboConstants.RESPONSE_WITH_EXCEPTION:
                case DubboConstants.RESPONSE_WITH_EXCEPTION_WITH_ATTACHMENTS:
                    exception = items.readThrowableItem();
                    break;
                case DubboConstants.RESPONSE_VALUE:
                case DubboConstants.RESPONSE_VALUE_WITH_ATTACHMENTS:
                    if (deferValues) {
                        int off = items.position() + 4;
                        int n = items.skipItem();
                        if (n == 0) {
                            throw new IllegalArgumentException("empty item");
                        }
                        value = new DeferredValue(id, items.pooledItemCopy(off, n), n, fastjson2Parser);
                        break;
                    }
                    Type type = resolver.returnType(id);
                    value = items.readValueItem(type == null || type == void.class || type == Void.class
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
                attachments = items.readAttachmentsItem();
            }
            if (exception != null) {
                return DubboResponse.exception(id, ser, exception, attachments);
            }
            return DubboResponse.value(id, ser, value, attachments);
        } catch (RuntimeException e) {
            return DubboResponse.error(id, ser, DubboConstants.STATUS_CLIENT_ERROR,
                    "Failed to decode the response to request " + id + ": " + ValueTypes.reason(e));
        }
    }

    /** A status-20 hessian2 result: one stream holding the flag, the value or exception, then the attachments. */
    private DubboResponse decodeHessian2Result(long id, byte ser) {
        try {
            byte[] body = items.array();
            int end = items.end();
            int[] starts = Hessian2Bounds.values(body, items.position(), end, budget);
            int values = starts.length - 1;
            if (values == 0) {
                throw new IllegalArgumentException("empty body");
            }
            Hessian2Input in = hessian2.input(body, starts[0], end);
            int flag = in.readInt();
            boolean withAttachments = flag >= DubboConstants.RESPONSE_WITH_EXCEPTION_WITH_ATTACHMENTS;
            Object value = null;
            Throwable exception = null;
            switch (flag) {
                case DubboConstants.RESPONSE_WITH_EXCEPTION,
                        DubboConstants.RESPONSE_WITH_EXCEPTION_WITH_ATTACHMENTS -> {
                    Object v = Hessian2Values.read(in, Object.class);
                    if (!(v instanceof Throwable)) {
                        throw new IllegalArgumentException("expected a Throwable, read "
                                + (v == null ? "null" : v.getClass().getName()));
                    }
                    exception = (Throwable) v;
                }
                case DubboConstants.RESPONSE_VALUE, DubboConstants.RESPONSE_VALUE_WITH_ATTACHMENTS -> {
                    if (values < 2) {
                        throw new IllegalArgumentException("result flag " + flag + " but no value follows");
                    }
                    if (!deferValues) {
                        Type type = resolver.returnType(id);
                        value = Hessian2Values.read(in, type == null || type == void.class || type == Void.class
                                ? Object.class : type);
                    } else {
                        // The value is the stream's first object, so its bytes stand alone: the waiting caller
                        // parses them. The attachments are read here, on their own when they stand alone too.
                        int n = starts[2] - starts[1];
                        byte[] copy = ItemArrays.take(n);
                        System.arraycopy(body, starts[1], copy, 0, n);
                        value = new DeferredValue(id, copy, n, hessian2Parser);
                        if (withAttachments) {
                            return DubboResponse.value(id, ser, value, deferredAttachments(body, starts, end));
                        }
                        return DubboResponse.value(id, ser, value, null);
                    }
                }
                case DubboConstants.RESPONSE_NULL_VALUE, DubboConstants.RESPONSE_NULL_VALUE_WITH_ATTACHMENTS -> {
                }
                default -> {
                    return DubboResponse.error(id, ser, DubboConstants.STATUS_CLIENT_ERROR,
                            "Unknown result flag, expect '0' '1' '2' '3' '4' '5', but received: " + flag
                                    + " (response to request " + id + ")");
                }
            }
            Map<String, Object> attachments = withAttachments ? Hessian2Values.readAttachments(in) : null;
            if (exception != null) {
                return DubboResponse.exception(id, ser, exception, attachments);
            }
            return DubboResponse.value(id, ser, value, attachments);
        } catch (RuntimeException | java.io.IOException e) {
            return DubboResponse.error(id, ser, DubboConstants.STATUS_CLIENT_ERROR,
                    "Failed to decode the response to request " + id + ": " + ValueTypes.reason(e));
        }
    }

    /**
     * The attachments after a deferred value: read on their own when they name no class definition or object of the
     * value (the usual map of strings), else after reading past the value in the same stream.
     */
    private Map<String, Object> deferredAttachments(byte[] body, int[] starts, int end) {
        if (starts.length - 1 < 3) {
            throw new IllegalArgumentException("result flag with attachments but no attachments follow the value");
        }
        try {
            return hessian2.readAttachments(body, starts[2], end);
        } catch (RuntimeException standaloneFailed) {
            Hessian2Input in = hessian2.input(body, starts[0], end);
            Hessian2Values.read(in, Object.class); // the flag
            Hessian2Values.read(in, Object.class); // the value, untyped: it only has to be passed
            return Hessian2Values.readAttachments(in);
        }
    }
}
