package dev.sluice.codec.dubbo;

import dev.sluice.codec.dubbo.internal.DubboConstants;
import dev.sluice.transport.Internal;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;

/**
 * A Dubbo response (docs/wire-format.md §3): a result (value, null or exception, with or without attachments, i.e.
 * result flags 0–5), an error status with a text, or a heartbeat response. The decoder also produces responses with
 * status {@link DubboConstants#STATUS_CLIENT_ERROR} (90) for frames it could not read (oversized, corrupt, refused
 * type), so the waiting call fails at once.
 *
 * <p>Immutable except for the value and attachment map, which are handed over, not copied. Safe to pass between
 * threads after construction.
 */
@Internal
public final class DubboResponse {
    /**
     * The attachments a Dubbo 3.3 provider sends with every result, {@code {"dubbo":"2.0.2"}}. Unmodifiable; the
     * encoder writes it from pre-encoded bytes.
     */
    public static final Map<String, Object> DEFAULT_ATTACHMENTS;

    static {
        HashMap<String, Object> m = new HashMap<>(2);
        m.put(DubboConstants.ATTACHMENT_DUBBO, DubboConstants.DUBBO_PROTOCOL_VERSION);
        DEFAULT_ATTACHMENTS = Collections.unmodifiableMap(m);
    }

    private final long id;
    private final byte status;
    private final boolean event;
    private final byte serializationId;
    private final byte resultFlag;
    private final Object value;
    private final Throwable exception;
    private final Map<String, Object> attachments;
    private final String errorMessage;

    private DubboResponse(long id, byte status, boolean event, byte serializationId, byte resultFlag, Object value,
            Throwable exception, Map<String, Object> attachments, String errorMessage) {
        this.id = id;
        this.status = status;
        this.event = event;
        this.serializationId = serializationId;
        this.resultFlag = resultFlag;
        this.value = value;
        this.exception = exception;
        this.attachments = attachments;
        this.errorMessage = errorMessage;
    }

    /**
     * A successful result.
     *
     * @param value the return value; {@code null} (or a void method) gives flag 2/5
     * @param attachments {@code null} for flags 1/2 (no attachments, for peers whose protocol version does not
     *     support them), else flags 4/5 and the map is sent
     */
    public static DubboResponse value(long id, byte serializationId, Object value, Map<String, Object> attachments) {
        byte flag;
        if (attachments == null) {
            flag = value == null ? DubboConstants.RESPONSE_NULL_VALUE : DubboConstants.RESPONSE_VALUE;
        } else {
            flag = value == null ? DubboConstants.RESPONSE_NULL_VALUE_WITH_ATTACHMENTS
                    : DubboConstants.RESPONSE_VALUE_WITH_ATTACHMENTS;
        }
        return new DubboResponse(id, DubboConstants.STATUS_OK, false, serializationId, flag, value, null,
                attachments, null);
    }

    /** A business exception thrown by the service (status 20, flag 0, or 3 with attachments). */
    public static DubboResponse exception(long id, byte serializationId, Throwable exception,
            Map<String, Object> attachments) {
        if (exception == null) {
            throw new NullPointerException("exception");
        }
        byte flag = attachments == null ? DubboConstants.RESPONSE_WITH_EXCEPTION
                : DubboConstants.RESPONSE_WITH_EXCEPTION_WITH_ATTACHMENTS;
        return new DubboResponse(id, DubboConstants.STATUS_OK, false, serializationId, flag, null, exception,
                attachments, null);
    }

    /** A failure status (anything but 20) with its text; the body is that one string. */
    public static DubboResponse error(long id, byte serializationId, byte status, String errorMessage) {
        if (status == DubboConstants.STATUS_OK) {
            throw new IllegalArgumentException("an error response needs a status other than OK(20)");
        }
        return new DubboResponse(id, status, false, serializationId, (byte) -1, null, null, null, errorMessage);
    }

    /** The answer to a heartbeat request: event flag, status 20, the serialization's null value as body. */
    public static DubboResponse heartbeat(long id, byte serializationId) {
        return new DubboResponse(id, DubboConstants.STATUS_OK, true, serializationId, (byte) -1, null, null, null,
                null);
    }

    /**
     * The result of {@code request}, in its serialization, with {@link #DEFAULT_ATTACHMENTS} when its protocol
     * version supports response attachments — what a Dubbo provider sends.
     */
    public static DubboResponse replyValue(DubboRequest request, Object value) {
        return value(request.id(), request.serializationId(), value,
                request.supportsResponseAttachments() ? DEFAULT_ATTACHMENTS : null);
    }

    /** A business exception as the answer to {@code request}; see {@link #replyValue}. */
    public static DubboResponse replyException(DubboRequest request, Throwable exception) {
        return exception(request.id(), request.serializationId(), exception,
                request.supportsResponseAttachments() ? DEFAULT_ATTACHMENTS : null);
    }

    /** A failure status as the answer to {@code request} (also the answer to a broken request). */
    public static DubboResponse replyError(DubboRequest request, byte status, String errorMessage) {
        return error(request.id(), request.serializationId(), status, errorMessage);
    }

    /** The answer to a heartbeat request, in its serialization, as Dubbo requires. */
    public static DubboResponse replyHeartbeat(DubboRequest request) {
        return heartbeat(request.id(), request.serializationId());
    }

    public long id() {
        return id;
    }

    public byte status() {
        return status;
    }

    public boolean isOk() {
        return status == DubboConstants.STATUS_OK;
    }

    /** True for a heartbeat response (the only event response Dubbo sends). */
    public boolean isHeartbeat() {
        return event;
    }

    public boolean isEvent() {
        return event;
    }

    public byte serializationId() {
        return serializationId;
    }

    /** The result flag 0–5 of a status-20 non-event response; -1 otherwise. */
    public byte resultFlag() {
        return resultFlag;
    }

    /** True for flags 0 and 3. */
    public boolean hasException() {
        return resultFlag == DubboConstants.RESPONSE_WITH_EXCEPTION
                || resultFlag == DubboConstants.RESPONSE_WITH_EXCEPTION_WITH_ATTACHMENTS;
    }

    /** True for flags 3, 4 and 5. */
    public boolean hasAttachments() {
        return resultFlag >= DubboConstants.RESPONSE_WITH_EXCEPTION_WITH_ATTACHMENTS;
    }

    /**
     * The return value ({@code null} for flags 2/5, exceptions, errors).
     *
     * @throws IllegalStateException when the value was left unparsed by the decoder ({@link #isValueDeferred()}):
     *     call {@link #readValue(Type)} instead
     */
    public Object value() {
        if (value instanceof DeferredValue) {
            throw new IllegalStateException("The value of response " + id + " is not parsed yet: call readValue(type)"
                    + " on the thread that wants it");
        }
        return value;
    }

    /** True when the decoder left the value unparsed, for {@link #readValue(Type)} (see {@link DubboDecoder}). */
    public boolean isValueDeferred() {
        return value instanceof DeferredValue;
    }

    /**
     * The return value read as {@code type}: parsed now, on the calling thread, if the decoder deferred it (each call
     * parses again), else the value decoded with the frame.
     *
     * @throws DubboSerializationException when the value cannot be read as {@code type}, or names a class the
     *     allowlist refuses; the message says which response and why
     */
    public Object readValue(java.lang.reflect.Type type) {
        if (value instanceof DeferredValue) {
            return ((DeferredValue) value).read(type);
        }
        return value;
    }

    /**
     * As {@link #readValue(Type)}, for a caller that reads the value once: the bytes of a deferred value are handed
     * back to the decoders for reuse once it is parsed, so a client's response decode does not allocate a copy of
     * each result. A value decoded with the frame is returned as is, as often as asked.
     *
     * @throws DubboSerializationException as {@link #readValue(Type)}
     * @throws IllegalStateException when a deferred value was taken before (a later {@link #readValue(Type)} throws
     *     it too)
     */
    public Object takeValue(java.lang.reflect.Type type) {
        if (value instanceof DeferredValue) {
            return ((DeferredValue) value).take(type);
        }
        return value;
    }

    /** The business exception of flags 0/3, else {@code null}. */
    public Throwable exception() {
        return exception;
    }

    /** The attachments of flags 3/4/5 (not copied); {@code null} otherwise. */
    public Map<String, Object> attachments() {
        return attachments;
    }

    /** The text of a status other than 20, else {@code null}. */
    public String errorMessage() {
        return errorMessage;
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("DubboResponse{id=").append(id)
                .append(", status=").append(DubboConstants.statusName(status))
                .append(", serialization=").append(serializationId);
        if (event) {
            sb.append(", heartbeat");
        } else if (status != DubboConstants.STATUS_OK) {
            sb.append(", error=").append(errorMessage);
        } else {
            sb.append(", flag=").append(resultFlag);
            if (exception != null) {
                sb.append(", exception=").append(exception);
            } else if (value instanceof DeferredValue) {
                sb.append(", value=(").append(((DeferredValue) value).length()).append(" bytes, not parsed yet)");
            } else {
                sb.append(", value=").append(value);
            }
            if (attachments != null) {
                sb.append(", attachments=").append(attachments);
            }
        }
        return sb.append('}').toString();
    }
}
