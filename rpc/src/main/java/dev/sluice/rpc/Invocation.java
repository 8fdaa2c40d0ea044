package dev.sluice.rpc;

import java.util.HashMap;
import java.util.Map;

/**
 * One call as an interceptor sees it. Created for a call only when interceptors are registered.
 *
 * <p>Threads: {@link #attachments()} may be changed in {@link SluiceInterceptor#onCall} only (the client sends them
 * right after; the server hands them to the service method as {@link SluiceContext#attachments()}). The
 * {@link #attribute} slots let an interceptor carry its own per-call state (a span, a timer sample) from
 * {@code onCall} to {@code onComplete}; they are not sent. An invocation is used by one thread at a time.
 */
public final class Invocation {
    /** Which side of the call this is. */
    public enum Side { CLIENT, SERVER }

    private final Side side;
    private final String applicationName;
    private final String service;
    private final String version;
    private final String group;
    private final String method;
    private final Object[] arguments;
    private final Map<String, Object> attachments;
    private final boolean oneWay;
    private final boolean async;
    private final long startNanos;
    private Map<Object, Object> attributes;
    /** How many interceptors' onCall returned normally: only those get onComplete. */
    int entered;
    boolean completed;

    Invocation(Side side, String applicationName, String service, String version, String group, String method,
               Object[] arguments, Map<String, Object> attachments, boolean oneWay, boolean async) {
        this.side = side;
        this.applicationName = applicationName;
        this.service = service;
        this.version = version;
        this.group = group;
        this.method = method;
        this.arguments = arguments == null ? new Object[0] : arguments;
        this.attachments = attachments;
        this.oneWay = oneWay;
        this.async = async;
        this.startNanos = System.nanoTime();
    }

    public Side side() {
        return side;
    }

    /**
     * The name of the application whose endpoint runs this call: its builder's {@code applicationName}, {@code ""}
     * when none was given.
     */
    public String applicationName() {
        return applicationName;
    }

    /** The service interface name (Dubbo's {@code path}). */
    public String service() {
        return service;
    }

    /** The service version, {@code null} or Dubbo's default {@code 0.0.0} when none was given. */
    public String version() {
        return version;
    }

    /** The service group, {@code null} when none. */
    public String group() {
        return group;
    }

    /** The method name. */
    public String method() {
        return method;
    }

    /** The call's arguments (not copied: do not modify). */
    public Object[] arguments() {
        return arguments;
    }

    /** The request's attachments; mutable in {@link SluiceInterceptor#onCall}. */
    public Map<String, Object> attachments() {
        return attachments;
    }

    /** A call no response is awaited for (client: the reference's one-way methods; server: a one-way request). */
    public boolean isOneWay() {
        return oneWay;
    }

    /** A call whose result is a future (client: a method returning {@code CompletableFuture}). */
    public boolean isAsync() {
        return async;
    }

    /** {@link System#nanoTime()} when the call started, before the first interceptor. */
    public long startNanos() {
        return startNanos;
    }

    /** An interceptor's own per-call value, or {@code null}. */
    public Object attribute(Object key) {
        return attributes == null ? null : attributes.get(key);
    }

    /** Stores an interceptor's own per-call value (use a key of your own, e.g. your interceptor instance). */
    public void attribute(Object key, Object value) {
        if (attributes == null) {
            attributes = new HashMap<>(4);
        }
        attributes.put(key, value);
    }

    @Override
    public String toString() {
        return side + " " + service + (version == null ? "" : ":" + version) + (group == null ? "" : ", group "
                + group) + " " + method;
    }
}
