package dev.sluice.rpc;

import dev.sluice.codec.dubbo.EncodedAttachments;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;

/**
 * Per-call attachments, carried on the calling thread (Dubbo's {@code RpcContext} in miniature).
 *
 * <p>Client side: {@link #setAttachment} before a call sends the pair with the NEXT call made on this thread (then
 * cleared); after a synchronous call, {@link #responseAttachments()} holds what the provider sent back.
 *
 * <p>Server side: inside a service method, {@link #attachments()} are the request's attachments and
 * {@link #setResponseAttachment} adds to the response's. The server sets and clears this context around each
 * invocation on the thread running it.
 */
public final class SluiceContext {
    private static final ThreadLocal<SluiceContext> CURRENT = ThreadLocal.withInitial(SluiceContext::new);

    private Map<String, Object> outgoing;
    private Map<String, Object> incoming = Collections.emptyMap();
    private Map<String, Object> responseAttachments;

    private SluiceContext() {
    }

    /** This thread's context. */
    public static SluiceContext current() {
        return CURRENT.get();
    }

    /** Client: attach {@code key=value} to the next call made on this thread. */
    public SluiceContext setAttachment(String key, Object value) {
        if (outgoing == null) {
            outgoing = new HashMap<>();
        }
        outgoing.put(key, value);
        return this;
    }

    /**
     * Server: the attachments of the request being served; client: those of the last response received. Read-only
     * (the same instance may serve every call of a connection); a server adds to the response with
     * {@link #setResponseAttachment}.
     */
    public Map<String, Object> attachments() {
        return incoming;
    }

    /** Client: the attachments of the last synchronous response on this thread. */
    public Map<String, Object> responseAttachments() {
        return incoming;
    }

    /** Server: add an attachment to the response of the call being served. */
    public SluiceContext setResponseAttachment(String key, Object value) {
        if (responseAttachments == null) {
            responseAttachments = new HashMap<>();
        }
        responseAttachments.put(key, value);
        return this;
    }

    Map<String, Object> takeOutgoing() {
        Map<String, Object> out = outgoing;
        outgoing = null;
        return out;
    }

    void setIncoming(Map<String, Object> attachments) {
        this.incoming = attachments == null ? Collections.emptyMap()
                : attachments instanceof EncodedAttachments ? attachments : Collections.unmodifiableMap(attachments);
    }

    Map<String, Object> takeResponseAttachments() {
        Map<String, Object> out = responseAttachments;
        responseAttachments = null;
        return out;
    }

    void clearServer() {
        incoming = Collections.emptyMap();
        responseAttachments = null;
    }
}
