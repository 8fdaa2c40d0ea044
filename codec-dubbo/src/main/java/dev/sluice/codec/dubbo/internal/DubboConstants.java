package dev.sluice.codec.dubbo.internal;

import dev.sluice.transport.internal.DubboHeader;

/**
 * Numbers of the Dubbo {@code dubbo} protocol as Dubbo 3.3.6 puts them on the wire (docs/wire-format.md §1, §3). Pure
 * constants; safe from any thread.
 */
public final class DubboConstants {
    // The header's numbers are defined once, in the transport's DubboHeader, which both Dubbo decoders frame with.
    /** Frame magic, {@code 0xDABB}, big-endian in bytes 0–1. */
    public static final short MAGIC = DubboHeader.MAGIC;
    public static final byte MAGIC_HIGH = DubboHeader.MAGIC_HIGH;
    public static final byte MAGIC_LOW = DubboHeader.MAGIC_LOW;
    /** Length of the fixed frame header. */
    public static final int HEADER_LENGTH = DubboHeader.LENGTH;

    /** Flag bit: the frame is a request (else a response). */
    public static final int FLAG_REQUEST = DubboHeader.FLAG_REQUEST;
    /** Flag bit: the request expects a response. Dubbo never sets it on responses. */
    public static final int FLAG_TWO_WAY = DubboHeader.FLAG_TWO_WAY;
    /** Flag bit: an event (heartbeat, readonly "R", writeable "W"). */
    public static final int FLAG_EVENT = DubboHeader.FLAG_EVENT;
    /** The low five bits of the flag byte: the serialization id. */
    public static final int SERIALIZATION_MASK = DubboHeader.SERIALIZATION_MASK;

    /** Serialization id of hessian2 (Dubbo's default). */
    public static final byte SERIALIZATION_HESSIAN2 = 2;
    /** Serialization id of fastjson2 (JSONB items). */
    public static final byte SERIALIZATION_FASTJSON2 = 23;

    public static final byte STATUS_OK = 20;
    public static final byte STATUS_CLIENT_TIMEOUT = 30;
    public static final byte STATUS_SERVER_TIMEOUT = 31;
    public static final byte STATUS_CHANNEL_INACTIVE = 35;
    public static final byte STATUS_SERIALIZATION_ERROR = 25;
    public static final byte STATUS_BAD_REQUEST = 40;
    public static final byte STATUS_BAD_RESPONSE = 50;
    public static final byte STATUS_SERVICE_NOT_FOUND = 60;
    public static final byte STATUS_SERVICE_ERROR = 70;
    public static final byte STATUS_SERVER_ERROR = 80;
    public static final byte STATUS_CLIENT_ERROR = 90;
    public static final byte STATUS_SERVER_THREADPOOL_EXHAUSTED = 100;

    /** Response result flag (first body item of a status-20 response, a JSONB Byte). */
    public static final byte RESPONSE_WITH_EXCEPTION = 0;
    public static final byte RESPONSE_VALUE = 1;
    public static final byte RESPONSE_NULL_VALUE = 2;
    public static final byte RESPONSE_WITH_EXCEPTION_WITH_ATTACHMENTS = 3;
    public static final byte RESPONSE_VALUE_WITH_ATTACHMENTS = 4;
    public static final byte RESPONSE_NULL_VALUE_WITH_ATTACHMENTS = 5;

    /** The protocol version a Dubbo 3.3 consumer writes as body field 0 (not the release version). */
    public static final String DUBBO_PROTOCOL_VERSION = "2.0.2";
    /** The service version a consumer with no version configured sends. */
    public static final String DEFAULT_SERVICE_VERSION = "0.0.0";
    /**
     * Method name of Dubbo's built-in echo call: every Dubbo consumer proxy implements {@code EchoService}, and a
     * provider answers {@code $echo(x)} with {@code x} for any exported service (its {@code EchoFilter}).
     */
    public static final String ECHO_METHOD = "$echo";
    /** Parameter descriptor of {@link #ECHO_METHOD}: one {@code Object}. */
    public static final String ECHO_DESC = "Ljava/lang/Object;";
    /** Method name of Dubbo's generic call ({@code GenericService.$invoke}): a method named by its arguments. */
    public static final String GENERIC_METHOD = "$invoke";
    /** The asynchronous variant of {@link #GENERIC_METHOD}; the same request on the wire. */
    public static final String GENERIC_ASYNC_METHOD = "$invokeAsync";
    /** Parameter descriptor of the generic methods: method name, parameter type names, arguments. */
    public static final String GENERIC_DESC = "Ljava/lang/String;[Ljava/lang/String;[Ljava/lang/Object;";
    /** The attachment naming a generic call's mode ({@code "true"}: POJOs as maps). */
    public static final String ATTACHMENT_GENERIC = "generic";
    /** Event data of the readonly event a server sends on graceful shutdown. */
    public static final String READONLY_EVENT = "R";
    /** Event data of the writeable event that cancels a readonly one. */
    public static final String WRITEABLE_EVENT = "W";
    /** Dubbo rejects non-heartbeat event bodies longer than this ({@code deserialization.event.size}). */
    public static final int MAX_EVENT_BODY = 15;

    /** Attachment keys a Dubbo consumer sends. */
    public static final String ATTACHMENT_PATH = "path";
    public static final String ATTACHMENT_INTERFACE = "interface";
    public static final String ATTACHMENT_VERSION = "version";
    public static final String ATTACHMENT_GROUP = "group";
    public static final String ATTACHMENT_TIMEOUT = "timeout";
    /** The key a provider always adds to response attachments, with {@link #DUBBO_PROTOCOL_VERSION}. */
    public static final String ATTACHMENT_DUBBO = "dubbo";

    private DubboConstants() {
    }

    /** The name of a status for messages, e.g. {@code "BAD_REQUEST(40)"}. */
    public static String statusName(int status) {
        String name;
        switch (status) {
            case STATUS_OK: name = "OK"; break;
            case STATUS_SERIALIZATION_ERROR: name = "SERIALIZATION_ERROR"; break;
            case STATUS_CLIENT_TIMEOUT: name = "CLIENT_TIMEOUT"; break;
            case STATUS_SERVER_TIMEOUT: name = "SERVER_TIMEOUT"; break;
            case STATUS_CHANNEL_INACTIVE: name = "CHANNEL_INACTIVE"; break;
            case STATUS_BAD_REQUEST: name = "BAD_REQUEST"; break;
            case STATUS_BAD_RESPONSE: name = "BAD_RESPONSE"; break;
            case STATUS_SERVICE_NOT_FOUND: name = "SERVICE_NOT_FOUND"; break;
            case STATUS_SERVICE_ERROR: name = "SERVICE_ERROR"; break;
            case STATUS_SERVER_ERROR: name = "SERVER_ERROR"; break;
            case STATUS_CLIENT_ERROR: name = "CLIENT_ERROR"; break;
            case STATUS_SERVER_THREADPOOL_EXHAUSTED: name = "SERVER_THREADPOOL_EXHAUSTED_ERROR"; break;
            default: name = "UNKNOWN";
        }
        return name + "(" + status + ")";
    }

    /**
     * Whether a request carrying this protocol version (body field 0) gets response attachments (result flags
     * 3/4/5): Dubbo's {@code Version.isSupportResponseAttachment}, true for versions 2.0.2 to 2.0.99.
     */
    public static boolean supportsResponseAttachments(String dubboVersion) {
        if (dubboVersion == null || dubboVersion.isEmpty()) {
            return false;
        }
        int v = versionNumber(dubboVersion);
        return v >= 2_00_02_00 && v <= 2_00_99_00;
    }

    /**
     * "2.0.2" → 2000200 (each of up to four dotted parts is two decimal digits); -1 when not numeric. Runs for every
     * request a server decodes, so it reads the characters once and allocates nothing.
     */
    private static int versionNumber(String version) {
        int v = 0;
        int parts = 0;
        int part = 0;
        int digits = 0;
        for (int i = 0; i <= version.length(); i++) {
            char c = i < version.length() ? version.charAt(i) : '.';
            if (c == '.') {
                if (digits == 0 || ++parts > 4) {
                    return -1;
                }
                v = v * 100 + part;
                part = 0;
                digits = 0;
            } else if (c >= '0' && c <= '9' && digits < 2) {
                part = part * 10 + (c - '0');
                digits++;
            } else {
                return -1;
            }
        }
        for (; parts < 4; parts++) {
            v *= 100;
        }
        return v;
    }
}
