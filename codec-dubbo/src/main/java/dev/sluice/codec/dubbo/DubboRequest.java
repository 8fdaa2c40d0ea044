package dev.sluice.codec.dubbo;

import dev.sluice.codec.dubbo.internal.DubboConstants;
import dev.sluice.transport.Internal;
import java.util.Arrays;
import java.util.Collections;
import java.util.Map;

/**
 * A Dubbo request frame: an invocation, an event (heartbeat, readonly {@code "R"}, writeable {@code "W"}), or — as
 * produced by {@link DubboDecoder} — a request that arrived but could not be decoded ({@link #isBroken()}), which
 * still carries its id, two-way flag and serialization id so the server can answer it with
 * {@link DubboResponse#replyError(DubboRequest, byte, String)}.
 *
 * <p>Immutable once built except for the argument array and attachment map, which are handed over, not copied: the
 * creator must not modify them after passing them in, and receivers must not modify them while the request may
 * still be encoded, and {@link #frameBytes()} and {@link #decodedEstimate()}, which the decoder sets before handing
 * the request on. Safe to pass
 * between threads after that.
 */
@Internal
public final class DubboRequest {
    private final long id;
    private final boolean twoWay;
    private final boolean event;
    private final byte serializationId;
    private final DubboMethod method;
    private final Object[] arguments;
    private final Map<String, Object> attachments;
    private final String eventData;
    private final byte brokenStatus;
    private final String errorMessage;
    /** Set once by the decoder before the request is handed on; 0 for a request built locally. */
    private int frameBytes;
    /** Set once by the decoder before the request is handed on; 0 for a request built locally. */
    private long decodedEstimate;

    private static final Object[] NO_ARGS = new Object[0];

    private DubboRequest(long id, boolean twoWay, boolean event, byte serializationId, DubboMethod method,
            Object[] arguments, Map<String, Object> attachments, String eventData, byte brokenStatus,
            String errorMessage) {
        this.id = id;
        this.twoWay = twoWay;
        this.event = event;
        this.serializationId = serializationId;
        this.method = method;
        this.arguments = arguments;
        this.attachments = attachments;
        this.eventData = eventData;
        this.brokenStatus = brokenStatus;
        this.errorMessage = errorMessage;
    }

    /**
     * A two-way fastjson2 invocation.
     *
     * @param arguments one per parameter of {@code method}; {@code null} for none
     * @param attachments sent as a {@code HashMap} (other maps are copied into one by the encoder); {@code null}
     *     sends an empty map. Dubbo consumers send {@code path}, {@code interface}, {@code version},
     *     {@code timeout} (a string) and, when configured, {@code group}.
     */
    public static DubboRequest invocation(long id, DubboMethod method, Object[] arguments,
            Map<String, Object> attachments) {
        return invocation(id, true, DubboConstants.SERIALIZATION_FASTJSON2, method, arguments, attachments);
    }

    /** An invocation with every header choice explicit. The encoder writes bodies in fastjson2 only. */
    public static DubboRequest invocation(long id, boolean twoWay, byte serializationId, DubboMethod method,
            Object[] arguments, Map<String, Object> attachments) {
        if (method == null) {
            throw new NullPointerException("method");
        }
        checkSerializationId(serializationId);
        return new DubboRequest(id, twoWay, false, serializationId, method,
                arguments == null ? NO_ARGS : arguments,
                attachments == null ? Collections.emptyMap() : attachments, null, (byte) 0, null);
    }

    /** A two-way heartbeat request (event, null data) in fastjson2. */
    public static DubboRequest heartbeat(long id) {
        return heartbeat(id, DubboConstants.SERIALIZATION_FASTJSON2);
    }

    /** A two-way heartbeat request in the given serialization (fastjson2 or hessian2). */
    public static DubboRequest heartbeat(long id, byte serializationId) {
        checkSerializationId(serializationId);
        return new DubboRequest(id, true, true, serializationId, null, NO_ARGS, Collections.emptyMap(), null,
                (byte) 0, null);
    }

    /** The one-way readonly event ({@code "R"}) a server sends to each client on graceful shutdown. */
    public static DubboRequest readonlyEvent(long id, byte serializationId) {
        return event(id, false, serializationId, DubboConstants.READONLY_EVENT);
    }

    /** The one-way writeable event ({@code "W"}) that cancels a readonly one. */
    public static DubboRequest writeableEvent(long id, byte serializationId) {
        return event(id, false, serializationId, DubboConstants.WRITEABLE_EVENT);
    }

    /**
     * An event request carrying a string ({@code null} data is a heartbeat). Dubbo rejects event bodies over 15
     * bytes, so keep {@code data} short.
     */
    public static DubboRequest event(long id, boolean twoWay, byte serializationId, String data) {
        checkSerializationId(serializationId);
        return new DubboRequest(id, twoWay, true, serializationId, null, NO_ARGS, Collections.emptyMap(), data,
                (byte) 0, null);
    }

    /**
     * A request that arrived but could not be decoded. Built by the decoder; public for tests and adapters.
     *
     * @param status the status to answer with, normally {@link DubboConstants#STATUS_BAD_REQUEST}
     * @param method what was decoded of the target before the failure, or {@code null}
     */
    public static DubboRequest broken(long id, boolean twoWay, boolean event, byte serializationId, byte status,
            String errorMessage, DubboMethod method) {
        if (status == DubboConstants.STATUS_OK || status == 0) {
            throw new IllegalArgumentException("a broken request needs an error status, not " + status);
        }
        return new DubboRequest(id, twoWay, event, serializationId, method, NO_ARGS, Collections.emptyMap(), null,
                status, errorMessage);
    }

    private static void checkSerializationId(byte serializationId) {
        if (serializationId <= 0 || serializationId > DubboConstants.SERIALIZATION_MASK) {
            throw new IllegalArgumentException("serialization id must be 1..31, not " + serializationId);
        }
    }

    /**
     * Size on the wire of the frame this request arrived in, header included, as the decoder read it; 0 for a
     * request built locally. A server uses it to bound the bytes of requests waiting for its service pool.
     */
    public int frameBytes() {
        return frameBytes;
    }

    /** Decoder only, before the request is handed on. */
    void frameBytes(int bytes) {
        this.frameBytes = bytes;
    }

    /**
     * The decoder's estimate of the heap this request's decoded values take, in bytes, from its bounds walk (a
     * constant per value and per list, map or object, plus string chars: docs/reliability.md A34); 0 for a request
     * built locally. Decoded values can take far more heap than their wire bytes (an empty list is one byte), so a
     * server charges the larger of the two to the budget of requests waiting for its service pool.
     */
    public long decodedEstimate() {
        return decodedEstimate;
    }

    /** Decoder only, before the request is handed on. */
    void decodedEstimate(long bytes) {
        this.decodedEstimate = bytes;
    }

    public long id() {
        return id;
    }

    public boolean isTwoWay() {
        return twoWay;
    }

    public boolean isEvent() {
        return event;
    }

    /** An event with null data that decoded fine: answer it with {@link DubboResponse#replyHeartbeat}. */
    public boolean isHeartbeat() {
        return event && eventData == null && brokenStatus == 0;
    }

    /** True if this request could not be decoded; see {@link #brokenStatus()} and {@link #errorMessage()}. */
    public boolean isBroken() {
        return brokenStatus != 0;
    }

    /** The status to answer a broken request with (40 BAD_REQUEST), or 0 when not broken. */
    public byte brokenStatus() {
        return brokenStatus;
    }

    /** Why the request could not be decoded, with sizes and limits where relevant; {@code null} when not broken. */
    public String errorMessage() {
        return errorMessage;
    }

    public byte serializationId() {
        return serializationId;
    }

    /** The call target; {@code null} for events and for broken requests whose leading fields did not decode. */
    public DubboMethod method() {
        return method;
    }

    /** The protocol version (body field 0), or {@code null} if unknown (events, broken requests). */
    public String dubboVersion() {
        return method == null ? null : method.dubboVersion();
    }

    public String servicePath() {
        return method == null ? null : method.servicePath();
    }

    public String serviceVersion() {
        return method == null ? null : method.serviceVersion();
    }

    public String methodName() {
        return method == null ? null : method.methodName();
    }

    public String parameterTypesDesc() {
        return method == null ? null : method.parameterTypesDesc();
    }

    /** The arguments (not copied; do not modify). Empty for events and broken requests. */
    public Object[] arguments() {
        return arguments;
    }

    /** The attachments (not copied; do not modify). Empty, never {@code null}, when none were sent. */
    public Map<String, Object> attachments() {
        return attachments;
    }

    /** The service group, from the {@code group} attachment (Dubbo takes it from there, not from the body). */
    public String group() {
        Object g = attachments.get(DubboConstants.ATTACHMENT_GROUP);
        return g == null ? null : g.toString();
    }

    /** The event string ({@code "R"}, {@code "W"}); {@code null} for heartbeats and non-events. */
    public String eventData() {
        return eventData;
    }

    /** Whether a response to this request carries attachments (result flags 3/4/5), per its protocol version. */
    public boolean supportsResponseAttachments() {
        return DubboConstants.supportsResponseAttachments(dubboVersion());
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("DubboRequest{id=").append(id)
                .append(twoWay ? ", two-way" : ", one-way")
                .append(", serialization=").append(serializationId);
        if (isBroken()) {
            sb.append(", broken ").append(DubboConstants.statusName(brokenStatus)).append(": ").append(errorMessage);
        }
        if (event) {
            sb.append(isHeartbeat() || (eventData == null && isBroken()) ? ", event" : ", event=" + eventData);
        }
        if (method != null) {
            sb.append(", ").append(method).append(", args=").append(Arrays.deepToString(arguments))
                    .append(", attachments=").append(attachments);
        }
        return sb.append('}').toString();
    }
}
