package dev.sluice.rpc;

import dev.sluice.codec.dubbo.ClassAllowlist;
import dev.sluice.codec.dubbo.DecodeLimits;
import dev.sluice.transport.TransportOptions;
import dev.sluice.transport.netty.EventLoops;
import dev.sluice.transport.netty.TransportBuilder;
import io.netty.handler.ssl.SslContext;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * What the {@link SluiceClient} and {@link SluiceServer} builders share beyond the transport settings of
 * {@link TransportBuilder}: interceptors and the classes accepted from the wire.
 *
 * <p>Threads: not thread-safe; build on one thread.
 *
 * @param <B> the concrete builder, returned by every setter
 */
public abstract class EndpointBuilder<B extends EndpointBuilder<B>> extends TransportBuilder<B> {
    final ClassAllowlist allowlist = ClassAllowlist.strict();
    final List<SluiceInterceptor> interceptors = new ArrayList<>();
    DecodeLimits decodeLimits = DecodeLimits.DEFAULTS;
    String applicationName = "";

    EndpointBuilder(boolean client) {
        super(client);
    }

    /**
     * Adds interceptors around every call, after those added before: {@code onCall} runs in the order added,
     * {@code onComplete} in the reverse order. See {@link SluiceInterceptor} for the threads they run on. On a
     * server, heartbeats, events, {@code $echo} and calls refused before they reach the executor (unknown service,
     * pool exhausted, shutting down) are not intercepted.
     */
    @SuppressWarnings("unchecked")
    public B intercept(SluiceInterceptor... interceptors) {
        for (SluiceInterceptor i : interceptors) {
            this.interceptors.add(Objects.requireNonNull(i, "interceptor"));
        }
        return (B) this;
    }

    /**
     * The name of the application this endpoint belongs to, as {@link Invocation#applicationName()} tells
     * interceptors: the {@code application.name} tag of the {@code MicrometerInterceptor}'s meters, the tag Dubbo's
     * own meters carry (Dubbo's {@code dubbo.application.name}), so a standalone endpoint's calls sit beside a Dubbo
     * application's on one dashboard. Default: none ({@code ""}).
     */
    @SuppressWarnings("unchecked")
    public B applicationName(String name) {
        this.applicationName = Objects.requireNonNull(name, "name").trim();
        return (B) this;
    }

    /**
     * Extra classes accepted from the wire, beyond those reachable from the interfaces served or proxied (e.g.
     * undeclared exception types).
     */
    @SuppressWarnings("unchecked")
    public B allowClasses(String... classNames) {
        allowlist.allow(classNames);
        return (B) this;
    }

    /**
     * Most digits a number written as text may have in what this endpoint reads (default
     * {@value DecodeLimits#DEFAULT_MAX_NUMBER_DIGITS}); beyond it a request is answered with status 40, a response
     * fails its call. See {@link DecodeLimits#maxNumberDigits()}.
     */
    @SuppressWarnings("unchecked")
    public B maxNumberDigits(int digits) {
        decodeLimits = decodeLimits.withMaxNumberDigits(digits);
        return (B) this;
    }

    /**
     * Most values one inbound frame may decode to (lists, maps, objects, strings, scalars; default
     * {@value DecodeLimits#DEFAULT_MAX_DECODED_ELEMENTS}); beyond it a request is answered with status 40, a response
     * fails its call. See {@link DecodeLimits#maxDecodedElements()}.
     */
    @SuppressWarnings("unchecked")
    public B maxDecodedElements(int elements) {
        decodeLimits = decodeLimits.withMaxDecodedElements(elements);
        return (B) this;
    }

    /** The transport options, for the endpoint being built. */
    final TransportOptions transportOptions() {
        return options();
    }

    /** The caller's event loops, or null, for the endpoint being built. */
    final EventLoops loops() {
        return eventLoops();
    }

    /** The TLS context, or null, for the endpoint being built. */
    final SslContext tlsContext() {
        return tls();
    }
}
