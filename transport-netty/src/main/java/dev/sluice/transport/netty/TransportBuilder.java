package dev.sluice.transport.netty;

import dev.sluice.transport.TransportOptions;
import io.netty.handler.ssl.SslContext;
import java.util.Objects;

/**
 * The transport settings every Sluice endpoint builder shares, client or server, Netty transport or standalone RPC
 * endpoint: the {@link TransportOptions} (with the payload limit as a shortcut), the event loops and TLS. Each
 * builder adds what is its own (an address, a codec, timeouts, services) and returns itself from every setter, so
 * calls chain in any order ({@code B} is the concrete builder).
 *
 * <p>One knob per setting: where a builder method and the options both set something (here the payload limit; a
 * client's heartbeat and stall timeout, a server's idle timeout), the order of the calls does not matter. An
 * explicit value beats a default whichever knob it came through, the same value set both ways is fine, and two
 * different explicit values fail when the endpoint is built, with an {@link IllegalStateException} naming both
 * knobs and both values ({@link #oneKnob}).
 *
 * <p>Threads: like every builder, not thread-safe; build on one thread.
 *
 * @param <B> the concrete builder, returned by every setter
 */
public abstract class TransportBuilder<B extends TransportBuilder<B>> {
    private final boolean client;
    private TransportOptions options = TransportOptions.defaults();
    private Integer payloadLimit;
    private EventLoops loops;
    private SslContext tls;

    /** {@code client} says which kind of {@link SslContext} {@link #tls} accepts. */
    protected TransportBuilder(boolean client) {
        this.client = client;
    }

    @SuppressWarnings("unchecked")
    private B self() {
        return (B) this;
    }

    /**
     * Transport options (default {@link TransportOptions#defaults()}); the payload limit applies both ways. A setting
     * the endpoint builder also has a method for (such as {@link #payloadLimit}) counts here only when set
     * explicitly ({@link TransportOptions#isExplicit}); set to a different value both ways, building fails.
     */
    public B options(TransportOptions options) {
        this.options = Objects.requireNonNull(options, "options");
        return self();
    }

    /**
     * Largest frame body accepted and sent (default 8 MiB, as Dubbo's {@code payload}); the same setting as
     * {@link TransportOptions.Builder#payloadLimit}, whichever is called first: an explicit value either way beats
     * the default, and a different explicit value in {@link #options} fails the build.
     */
    public B payloadLimit(int bytes) {
        this.payloadLimit = bytes;
        return self();
    }

    /**
     * Runs on event loops the caller owns and shuts down; by default (null) the endpoint creates a group of its own
     * and releases it when it closes. Lent loops win over the options' {@link TransportOptions#ioThreads()},
     * {@link TransportOptions#nativeTransport()} and {@link TransportOptions#answerSpin()}, whichever is called
     * first: those three shape only a group the endpoint creates, and lent loops run as they were made.
     */
    public B eventLoops(EventLoops loops) {
        this.loops = loops;
        return self();
    }

    /**
     * Uses TLS with this context; null (the default) for plain TCP. A client needs a client context (the server's
     * certificate must match the host name dialled), a server a server context (TLS is then required on every
     * connection).
     *
     * @throws IllegalArgumentException when the context is of the other side
     */
    public B tls(SslContext context) {
        if (context != null && context.isClient() != client) {
            throw new IllegalArgumentException(client
                    ? "a client needs a client SslContext (SslContextBuilder.forClient)"
                    : "a server needs a server SslContext (SslContextBuilder.forServer)");
        }
        this.tls = context;
        return self();
    }

    /**
     * The options set so far, with the payload limit of {@link #payloadLimit} when that was called.
     *
     * @throws IllegalStateException when {@link #payloadLimit} and the options set different limits
     */
    protected final TransportOptions options() {
        if (payloadLimit == null) {
            return options;
        }
        int limit = oneKnob("payloadLimit", payloadLimit, options, TransportOptions.Setting.PAYLOAD_LIMIT,
                options.payloadLimit(), options.payloadLimit());
        return options.toBuilder().payloadLimit(limit).build();
    }

    /**
     * Resolves a setting that both a builder method ({@code knob}) and the options ({@code setting}) carry: the
     * builder's value when it was set ({@code knobValue} not null), else the options' when set explicitly, else
     * {@code fallback} (the endpoint's default for it).
     *
     * @throws IllegalStateException when both were set explicitly, to different values; the message names both
     *     knobs and both values
     */
    protected static <T> T oneKnob(String knob, T knobValue, TransportOptions options,
                                   TransportOptions.Setting setting, T optionsValue, T fallback) {
        boolean inOptions = options.isExplicit(setting);
        if (knobValue != null && inOptions && !knobValue.equals(optionsValue)) {
            throw new IllegalStateException(knob + "(" + knobValue + ") on the builder and " + setting.method() + "("
                    + optionsValue + ") in its options(...) set the same setting to different values; set it in one"
                    + " place");
        }
        return knobValue != null ? knobValue : inOptions ? optionsValue : fallback;
    }

    /** The caller's event loops, or null for loops the endpoint owns. */
    protected final EventLoops eventLoops() {
        return loops;
    }

    /** The TLS context, or null for plain TCP. */
    protected final SslContext tls() {
        return tls;
    }
}
