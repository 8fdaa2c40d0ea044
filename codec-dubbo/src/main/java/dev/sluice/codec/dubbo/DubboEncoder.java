package dev.sluice.codec.dubbo;

import com.alibaba.fastjson2.JSONB;
import com.alibaba.fastjson2.JSONFactory;
import com.alibaba.fastjson2.JSONWriter;
import dev.sluice.codec.dubbo.internal.DubboConstants;
import dev.sluice.transport.FrameTooLargeException;
import dev.sluice.transport.Internal;
import dev.sluice.transport.codec.FrameEncoder;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.io.OutputStream;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * Writes {@link DubboRequest} and {@link DubboResponse} frames byte-compatible with Dubbo 3.3.6 and fastjson2
 * (docs/wire-format.md §1–§6) into the caller's pooled buffer: a 16-byte header whose body length is patched at
 * the end, then length-prefixed JSONB items. Each item is written by fastjson2 with Dubbo's eight writer features and
 * flushed into the buffer behind a 4-byte placeholder; ASCII strings, nulls, booleans and the result flag are
 * written by hand, the five leading request items come pre-encoded from the {@link DubboMethod}, and
 * {@link EncodedAttachments} from their own bytes.
 *
 * <p><b>Threads:</b> stateless apart from its configuration; runs on whichever thread sends, concurrently.
 *
 * <p><b>Payload limit</b> (body bytes; ≤ 0 disables): a request over it fails with
 * {@link FrameTooLargeException} (the transport releases the buffer); a response over it is replaced, in the same
 * buffer, by a status-25 SERIALIZATION_ERROR response with the same id saying "Data length too large: N, max
 * payload: M", and any other response failure by a status-50 BAD_RESPONSE, as a Dubbo provider does. A response's
 * encoding stops as soon as its body passes the limit (N is then the size it had reached), so an oversized value
 * never costs the buffer much more than the limit. A request value
 * that cannot be serialized fails with {@link DubboSerializationException}.
 *
 * <p><b>Serializations:</b> fastjson2 (23) and hessian2 (2), Dubbo 3.3's default, for every message; hessian2 bodies
 * are one stream per body, written with the bytes of hessian-lite, the library Dubbo uses: by {@link Hessian2Writer}
 * when every value is one it reproduces (strings, numbers, lists, maps, {@code java.time} values and the registered
 * beans), else by hessian-lite itself. An error response for any other id is written in fastjson2 with id 23 in the
 * header, since nothing else could read it.
 */
@Internal
public final class DubboEncoder implements FrameEncoder {
    /** {@code FastJson2ObjectOutput}'s features with {@code check-serializable} on, Dubbo's default. */
    static final JSONWriter.Feature[] WRITER_FEATURES = {
        JSONWriter.Feature.WriteClassName,
        JSONWriter.Feature.FieldBased,
        JSONWriter.Feature.ErrorOnNoneSerializable,
        JSONWriter.Feature.ReferenceDetection,
        JSONWriter.Feature.WriteNulls,
        JSONWriter.Feature.NotWriteDefaultValue,
        JSONWriter.Feature.NotWriteHashMapArrayListClassName,
        JSONWriter.Feature.WriteNameAsSymbol,
    };

    private static final byte[] NULL_ITEM = {0, 0, 0, 1, Jsonb.NULL};
    private static final byte[] TRUE_ITEM = {0, 0, 0, 1, Jsonb.TRUE};
    private static final byte[] FALSE_ITEM = {0, 0, 0, 1, Jsonb.FALSE};
    private static final byte[] EMPTY_MAP_ITEM = item(JSONB.toBytes(new HashMap<>(), WRITER_FEATURES));
    private static final byte[] DEFAULT_ATTACHMENTS_ITEM =
            item(JSONB.toBytes(new HashMap<>(DubboResponse.DEFAULT_ATTACHMENTS), WRITER_FEATURES));
    private static final int MAX_ERROR_TEXT = 8192;
    /** {@link DubboResponse#DEFAULT_ATTACHMENTS} as the plain map a hessian2 body carries; never modified. */
    private static final Map<String, Object> DEFAULT_ATTACHMENTS_MAP = new HashMap<>(DubboResponse.DEFAULT_ATTACHMENTS);

    static {
        // A generic call's failure travels under Dubbo's class name (GenericExceptionWire), in every writer context.
        JSONFactory.getDefaultObjectWriterProvider().register(GenericException.class, GenericExceptionWire.INSTANCE,
                true);
        JSONFactory.getDefaultObjectWriterProvider().register(GenericException.class, GenericExceptionWire.INSTANCE,
                false);
    }

    private final int payloadLimit;
    private final ClassAllowlist beans;

    /** @param payloadLimit the largest body in bytes, ≤ 0 for no limit; Dubbo's default is 8 MiB */
    public DubboEncoder(int payloadLimit) {
        this(payloadLimit, null);
    }

    /**
     * @param beans the classes whose hessian2 bodies {@link Hessian2Writer} writes field by field itself (those this
     *     allowlist accepts: the registered services' types); null for none, so that hessian-lite writes every bean
     */
    DubboEncoder(int payloadLimit, ClassAllowlist beans) {
        this.payloadLimit = payloadLimit;
        this.beans = beans;
    }

    public int payloadLimit() {
        return payloadLimit;
    }

    @Override
    public int sizeHint(Object message) {
        if (message instanceof DubboRequest) {
            DubboRequest r = (DubboRequest) message;
            return r.method() == null ? 32 : 128 + r.method().fastjson2Prefix().length + 64 * r.arguments().length;
        }
        return 256;
    }

    /**
     * Encodes a {@link DubboRequest} or {@link DubboResponse} into {@code out} at its writer index.
     *
     * @throws FrameTooLargeException a request body over the payload limit
     * @throws DubboSerializationException a request value fastjson2 refuses
     * @throws IllegalArgumentException anything else, or a request this codec cannot express (a broken request, a
     *     non-event body in a serialization other than fastjson2)
     */
    @Override
    public void encode(Object message, ByteBuf out) {
        if (message instanceof DubboResponse) {
            encodeResponse((DubboResponse) message, out);
        } else if (message instanceof DubboRequest) {
            encodeRequest((DubboRequest) message, out);
        } else {
            throw new IllegalArgumentException("not a Dubbo message: "
                    + (message == null ? "null" : message.getClass().getName()));
        }
    }

    private void encodeRequest(DubboRequest req, ByteBuf out) {
        if (req.isBroken()) {
            throw new IllegalArgumentException("a broken request cannot be sent: " + req);
        }
        byte ser = req.serializationId();
        int flags = DubboConstants.FLAG_REQUEST | ser;
        if (req.isTwoWay()) {
            flags |= DubboConstants.FLAG_TWO_WAY;
        }
        if (req.isEvent()) {
            flags |= DubboConstants.FLAG_EVENT;
        }
        int start = out.writerIndex();
        writeHeader(out, flags, 0, req.id());
        int bodyStart = out.writerIndex();
        if (req.isEvent()) {
            writeEventBody(out, ser, req.eventData());
        } else {
            DubboMethod method = req.method();
            if (ser == DubboConstants.SERIALIZATION_HESSIAN2) {
                writeHessian2Request(req, method, out);
            } else if (ser != DubboConstants.SERIALIZATION_FASTJSON2) {
                throw new IllegalArgumentException("request bodies are written in hessian2 (id 2) or fastjson2"
                        + " (id 23), not id " + ser);
            } else {
                writeFastjson2Request(req, method, out);
            }
        }
        int len = out.writerIndex() - bodyStart;
        if (payloadLimit > 0 && len > payloadLimit) {
            throw new FrameTooLargeException(len, payloadLimit, "Dubbo request body (id " + req.id()
                    + (req.method() == null ? "" : ", " + req.method().servicePath() + "#"
                    + req.method().methodName()) + ")");
        }
        out.setInt(start + 12, len);
    }

    private static void writeFastjson2Request(DubboRequest req, DubboMethod method, ByteBuf out) {
        out.writeBytes(method.fastjson2Prefix());
        Items items = new Items(out);
        Object[] args = req.arguments();
        for (int i = 0; i < args.length; i++) {
            try {
                items.writeObject(args[i]);
            } catch (RuntimeException e) {
                throw new DubboSerializationException("Failed to serialize argument " + i + " ("
                        + args[i].getClass().getName() + ") of " + method + ": " + e.getMessage(), e);
            }
        }
        try {
            items.writeAttachments(req.attachments());
        } catch (RuntimeException e) {
            throw new DubboSerializationException("Failed to serialize the attachments of " + method + ": "
                    + e.getMessage(), e);
        }
    }

    /** One hessian2 stream: the five target strings, the arguments, the attachments (as Dubbo's encoder). */
    private void writeHessian2Request(DubboRequest req, DubboMethod method, ByteBuf out) {
        out.writeBytes(method.hessian2Prefix());
        Object[] args = req.arguments();
        Object[] values = Arrays.copyOf(args, args.length + 1);
        values[args.length] = plainMap(req.attachments());
        try {
            // The payload limit is checked on the whole body afterwards.
            if (!Hessian2Writer.get().write(out, out.writerIndex(), Integer.MAX_VALUE, beans, values)) {
                Hessian2Values.write(out, values);
            }
        } catch (IllegalArgumentException e) {
            throw new DubboSerializationException("Failed to serialize the arguments of " + method + " in hessian2: "
                    + e.getMessage(), e);
        }
    }

    /**
     * Attachments travel as a plain {@code HashMap}, which both serializations write untyped, as Dubbo does. The
     * default response attachments come as one shared map, only ever read.
     */
    private static Map<String, Object> plainMap(Map<String, Object> attachments) {
        if (attachments == null) {
            return new HashMap<>();
        }
        if (attachments == DubboResponse.DEFAULT_ATTACHMENTS) {
            return DEFAULT_ATTACHMENTS_MAP;
        }
        if (attachments instanceof EncodedAttachments) {
            return ((EncodedAttachments) attachments).plain();
        }
        return attachments.getClass() == HashMap.class ? attachments : new HashMap<>(attachments);
    }

    private static void writeEventBody(ByteBuf out, byte ser, String data) {
        if (ser == DubboConstants.SERIALIZATION_FASTJSON2) {
            if (data == null) {
                out.writeBytes(NULL_ITEM);
            } else {
                new Items(out).writeString(data);
            }
        } else if (ser == DubboConstants.SERIALIZATION_HESSIAN2) {
            Hessian2.writeString(out, data);
        } else {
            throw new IllegalArgumentException("events are written in fastjson2 (23) or hessian2 (2), not id " + ser);
        }
    }

    /**
     * Writes the response, or in its place a status-25 error when its body is over the payload limit: the value and
     * attachments are written through a {@link Items} bounded at the limit, which stops the encoding with
     * {@link PayloadLimitReached} before a write would pass it, so a huge value costs the buffer at most about the
     * limit, not its whole size (docs/reliability.md A9c). fastjson2 builds each item in its own heap buffer first
     * (which it caps at 64 MiB); the copy into {@code out} is what is bounded here. hessian-lite writes through its
     * own 8 KiB buffer, so it stops at the limit on the heap too.
     */
    private void encodeResponse(DubboResponse resp, ByteBuf out) {
        int start = out.writerIndex();
        int bodyStart = start + DubboConstants.HEADER_LENGTH;
        int limit = payloadLimit > 0 ? (int) Math.min(Integer.MAX_VALUE, (long) bodyStart + payloadLimit)
                : Integer.MAX_VALUE;
        try {
            writeResponse(resp, out, new Items(out, bodyStart, limit));
            int len = out.writerIndex() - bodyStart;
            if (payloadLimit > 0 && len > payloadLimit) {
                tooLarge(resp, out, start, len);
            }
        } catch (RuntimeException e) {
            PayloadLimitReached over = PayloadLimitReached.in(e);
            if (over != null) {
                tooLarge(resp, out, start, over.reached);
            } else {
                out.writerIndex(start);
                writeError(out, resp.id(), resp.serializationId(), DubboConstants.STATUS_BAD_RESPONSE,
                        "Failed to send response: " + describe(resp) + ", cause: " + e);
            }
        }
    }

    /**
     * Replaces what was written from {@code start} by a status-25 error. {@code len} is the body's size, or, when the
     * encoding stopped at the limit, the size it had reached: the body is at least that large.
     */
    private void tooLarge(DubboResponse resp, ByteBuf out, int start, long len) {
        out.writerIndex(start);
        // Dubbo's text (without its channel part), so Dubbo consumers and operators recognise it.
        writeError(out, resp.id(), resp.serializationId(), DubboConstants.STATUS_SERIALIZATION_ERROR,
                "Data length too large: " + len + ", max payload: " + payloadLimit);
    }

    private void writeResponse(DubboResponse resp, ByteBuf out, Items items) {
        byte ser = resp.serializationId();
        if (resp.isHeartbeat()) {
            writeHeader(out, DubboConstants.FLAG_EVENT | ser, DubboConstants.STATUS_OK, resp.id());
            int bodyStart = out.writerIndex();
            writeEventBody(out, ser, null);
            out.setInt(bodyStart - 4, out.writerIndex() - bodyStart);
        } else if (!resp.isOk()) {
            writeError(out, resp.id(), ser, resp.status(), resp.errorMessage());
        } else {
            if (ser == DubboConstants.SERIALIZATION_HESSIAN2) {
                writeHessian2Result(resp, out, items);
                return;
            }
            if (ser != DubboConstants.SERIALIZATION_FASTJSON2) {
                throw new IllegalArgumentException("result bodies are written in hessian2 (id 2) or fastjson2 (id 23),"
                        + " not id " + ser);
            }
            writeHeader(out, ser, DubboConstants.STATUS_OK, resp.id());
            int bodyStart = out.writerIndex();
            byte flag = resp.resultFlag();
            out.writeInt(2);
            out.writeByte(Jsonb.INT8);
            out.writeByte(flag);
            if (resp.hasException()) {
                items.writeObject(resp.exception());
            } else if (flag == DubboConstants.RESPONSE_VALUE
                    || flag == DubboConstants.RESPONSE_VALUE_WITH_ATTACHMENTS) {
                items.writeObject(resp.value());
            }
            if (resp.hasAttachments()) {
                items.writeAttachments(resp.attachments());
            }
            out.setInt(bodyStart - 4, out.writerIndex() - bodyStart);
        }
    }

    /** One hessian2 stream: the result flag (an int, as Dubbo writes it), the value or exception, the attachments. */
    private void writeHessian2Result(DubboResponse resp, ByteBuf out, Items stream) {
        writeHeader(out, DubboConstants.SERIALIZATION_HESSIAN2, DubboConstants.STATUS_OK, resp.id());
        int bodyStart = out.writerIndex();
        byte flag = resp.resultFlag();
        Object[] values = new Object[3];
        int n = 0;
        values[n++] = (int) flag;
        if (resp.hasException()) {
            values[n++] = resp.exception();
        } else if (flag == DubboConstants.RESPONSE_VALUE || flag == DubboConstants.RESPONSE_VALUE_WITH_ATTACHMENTS) {
            values[n++] = resp.value();
        }
        if (resp.hasAttachments()) {
            values[n++] = plainMap(resp.attachments());
        }
        Object[] body = n == values.length ? values : Arrays.copyOf(values, n);
        if (!Hessian2Writer.get().write(out, stream.bodyStart, stream.limit, beans, body)) {
            Hessian2Values.write(stream, body);
        }
        out.setInt(bodyStart - 4, out.writerIndex() - bodyStart);
    }

    /** A status≠20 response: one string item (fastjson2), or one hessian2 string; other ids fall back to 23. */
    private static void writeError(ByteBuf out, long id, byte ser, byte status, String message) {
        if (message != null && message.length() > MAX_ERROR_TEXT) {
            message = message.substring(0, MAX_ERROR_TEXT) + "…";
        }
        if (ser != DubboConstants.SERIALIZATION_HESSIAN2) {
            // An id we cannot write (e.g. a hessian-less peer's 9) would be unreadable; say it in fastjson2.
            ser = DubboConstants.SERIALIZATION_FASTJSON2;
        }
        writeHeader(out, ser, status, id);
        int bodyStart = out.writerIndex();
        if (ser == DubboConstants.SERIALIZATION_HESSIAN2) {
            Hessian2.writeString(out, message);
        } else {
            new Items(out).writeString(message);
        }
        out.setInt(bodyStart - 4, out.writerIndex() - bodyStart);
    }

    private static void writeHeader(ByteBuf out, int flags, int status, long id) {
        out.writeShort(DubboConstants.MAGIC);
        out.writeByte(flags);
        out.writeByte(status);
        out.writeLong(id);
        out.writeInt(0); // body length, patched once the body is written
    }

    private static String describe(DubboResponse resp) {
        Object v = resp.hasException() ? resp.exception() : resp.value();
        return "DubboResponse{id=" + resp.id() + ", status=" + resp.status() + ", serialization="
                + resp.serializationId() + ", flag=" + resp.resultFlag()
                + (v == null ? "" : ", type=" + v.getClass().getName()) + "}";
    }

    /** The attachments item (length and JSONB) exactly as a fastjson2 request or response would carry it. */
    static byte[] attachmentsItem(Map<String, Object> attachments) {
        ByteBuf buf = Unpooled.buffer(128);
        try {
            new Items(buf).writeAttachments(attachments);
            return ByteBufUtil.getBytes(buf);
        } finally {
            buf.release();
        }
    }

    private static byte[] item(byte[] jsonb) {
        byte[] b = new byte[4 + jsonb.length];
        b[0] = (byte) (jsonb.length >>> 24);
        b[1] = (byte) (jsonb.length >>> 16);
        b[2] = (byte) (jsonb.length >>> 8);
        b[3] = (byte) jsonb.length;
        System.arraycopy(jsonb, 0, b, 4, jsonb.length);
        return b;
    }

    /**
     * The body's size when the encoding stopped, before a write would pass the payload limit: the body is at least
     * this large. Thrown inside the encoder only, and turned into a status-25 response there; hessian-lite may wrap it.
     */
    static final class PayloadLimitReached extends RuntimeException {
        private static final long serialVersionUID = 1L;
        final long reached;

        PayloadLimitReached(long reached) {
            super("the body reached " + reached + " bytes, over the payload limit", null, false, false);
            this.reached = reached;
        }

        /** {@code e} or the first of its causes that is one, else null. */
        static PayloadLimitReached in(Throwable e) {
            for (Throwable t = e; t != null; t = t.getCause()) {
                if (t instanceof PayloadLimitReached) {
                    return (PayloadLimitReached) t;
                }
            }
            return null;
        }
    }

    /**
     * Writes length-prefixed JSONB items (or, as an {@link OutputStream}, a hessian2 stream) into one frame's buffer,
     * refusing with {@link PayloadLimitReached} any write that would pass {@code limit}, a writer index; one instance
     * per frame, one thread.
     */
    private static final class Items extends OutputStream {
        private final ByteBuf out;
        private final int bodyStart;
        private final int limit;
        private JSONWriter.Context context;

        Items(ByteBuf out) {
            this(out, out.writerIndex(), Integer.MAX_VALUE);
        }

        Items(ByteBuf out, int bodyStart, int limit) {
            this.out = out;
            this.bodyStart = bodyStart;
            this.limit = limit;
        }

        /** Throws unless {@code n} more bytes stay within the limit. */
        private void room(int n) {
            long end = (long) out.writerIndex() + n;
            if (end > limit) {
                throw new PayloadLimitReached(end - bodyStart);
            }
        }

        void writeString(String s) {
            if (s == null) {
                out.writeBytes(NULL_ITEM);
            } else if (Jsonb.isAscii(s)) {
                room(4 + Jsonb.asciiStringSize(s.length()));
                out.writeInt(Jsonb.asciiStringSize(s.length()));
                Jsonb.writeAsciiString(out, s);
            } else {
                writeWithFastjson(s);
            }
        }

        void writeObject(Object v) {
            if (v == null) {
                out.writeBytes(NULL_ITEM);
            } else if (v instanceof String) {
                writeString((String) v);
            } else if (v instanceof Boolean) {
                out.writeBytes((Boolean) v ? TRUE_ITEM : FALSE_ITEM);
            } else {
                writeWithFastjson(v);
            }
        }

        /** Attachments travel as a plain {@code HashMap} (untagged), like Dubbo's. */
        void writeAttachments(Map<String, Object> attachments) {
            if (attachments instanceof EncodedAttachments) {
                byte[] item = ((EncodedAttachments) attachments).fastjson2Item();
                room(item.length);
                out.writeBytes(item);
            } else if (attachments == DubboResponse.DEFAULT_ATTACHMENTS) {
                out.writeBytes(DEFAULT_ATTACHMENTS_ITEM);
            } else if (attachments == null || attachments.isEmpty()) {
                out.writeBytes(EMPTY_MAP_ITEM);
            } else {
                Map<String, Object> map = attachments.getClass() == HashMap.class ? attachments
                        : new HashMap<>(attachments);
                if (!writeAsciiStringMap(map)) {
                    writeWithFastjson(map);
                }
            }
        }

        /**
         * The usual attachments — ASCII strings to ASCII strings — by hand, as fastjson2 writes a HashMap: {@code A6},
         * key and value strings in iteration order, {@code A5}. Returns false, having written nothing, otherwise.
         */
        private boolean writeAsciiStringMap(Map<String, Object> map) {
            int size = 2;
            for (Map.Entry<String, Object> e : map.entrySet()) {
                Object k = e.getKey();
                Object v = e.getValue();
                if (!(k instanceof String) || !(v instanceof String) || !Jsonb.isAscii((String) k)
                        || !Jsonb.isAscii((String) v)) {
                    return false;
                }
                size += Jsonb.asciiStringSize(((String) k).length()) + Jsonb.asciiStringSize(((String) v).length());
            }
            room(4 + size);
            out.writeInt(size);
            out.writeByte(Jsonb.OBJECT_START);
            for (Map.Entry<String, Object> e : map.entrySet()) {
                Jsonb.writeAsciiString(out, e.getKey());
                Jsonb.writeAsciiString(out, (String) e.getValue());
            }
            out.writeByte(Jsonb.OBJECT_END);
            return true;
        }

        private void writeWithFastjson(Object v) {
            if (context == null) {
                context = new JSONWriter.Context(JSONFactory.getDefaultObjectWriterProvider(), WRITER_FEATURES);
            }
            int lengthIndex = out.writerIndex();
            out.writeInt(0);
            // One writer per item: each item has its own symbol table (docs/wire-format.md §4.1).
            try (JSONWriter w = JSONWriter.ofJSONB(context)) {
                w.setRootObject(v);
                w.writeAny(v);
                w.flushTo(this);
            } catch (IOException e) {
                throw new IllegalStateException(e); // writing to a ByteBuf does not throw
            }
            out.setInt(lengthIndex, out.writerIndex() - lengthIndex - 4);
        }

        @Override
        public void write(int b) {
            room(1);
            out.writeByte(b);
        }

        @Override
        public void write(byte[] b, int off, int len) {
            room(len);
            out.writeBytes(b, off, len);
        }
    }
}
