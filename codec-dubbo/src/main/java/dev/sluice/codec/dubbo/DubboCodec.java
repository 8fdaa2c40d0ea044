package dev.sluice.codec.dubbo;

import dev.sluice.transport.Connection;
import dev.sluice.transport.Internal;
import dev.sluice.transport.TransportOptions;
import dev.sluice.transport.codec.Codec;
import dev.sluice.transport.codec.FrameDecoder;
import java.util.Objects;

/**
 * The Dubbo {@code dubbo} protocol with hessian2 or fastjson2 bodies, as a transport {@link Codec}: one shared
 * {@link DubboEncoder} (any thread) and a fresh {@link DubboDecoder} per connection (its event loop only).
 *
 * <pre>{@code
 * ClassAllowlist allowlist = ClassAllowlist.strict();
 * InterfaceTypeResolver services = new InterfaceTypeResolver(allowlist).register(UserService.class, null);
 * DubboCodec codec = DubboCodec.builder().allowlist(allowlist).resolver(services).build();
 * }</pre>
 *
 * Immutable and thread-safe.
 */
@Internal
public final class DubboCodec implements Codec {
    private final int payloadLimit;
    private final ClassAllowlist allowlist;
    private final DubboTypeResolver resolver;
    private final DubboEncoder encoder;
    private final boolean deferResponseValues;
    private final Hessian2Values hessian2;
    private final DecodeLimits decodeLimits;

    private DubboCodec(Builder b) {
        this.deferResponseValues = b.deferResponseValues;
        this.payloadLimit = b.payloadLimit;
        this.allowlist = b.allowlist != null ? b.allowlist : ClassAllowlist.strict();
        this.resolver = b.resolver;
        this.encoder = new DubboEncoder(payloadLimit, allowlist);
        this.hessian2 = new Hessian2Values(allowlist);
        this.decodeLimits = b.decodeLimits;
    }

    public static Builder builder() {
        return new Builder();
    }

    @Override
    public DubboEncoder encoder() {
        return encoder;
    }

    @Override
    public FrameDecoder newDecoder(Connection connection) {
        return new DubboDecoder(payloadLimit, allowlist, resolver, deferResponseValues, hessian2, decodeLimits);
    }

    public int payloadLimit() {
        return payloadLimit;
    }

    public ClassAllowlist allowlist() {
        return allowlist;
    }

    public DubboTypeResolver resolver() {
        return resolver;
    }

    public DecodeLimits decodeLimits() {
        return decodeLimits;
    }

    /** Options of a {@link DubboCodec}; not thread-safe, build once. */
    public static final class Builder {
        private int payloadLimit = TransportOptions.DEFAULT_PAYLOAD_LIMIT;
        private ClassAllowlist allowlist;
        private DubboTypeResolver resolver = DubboTypeResolver.NONE;
        private boolean deferResponseValues;
        private DecodeLimits decodeLimits = DecodeLimits.DEFAULTS;

        private Builder() {
        }

        /**
         * The largest body in bytes, both ways (Dubbo's {@code payload}, default 8 MiB); ≤ 0 disables the check.
         * Set the same value on both peers.
         */
        public Builder payloadLimit(int bytes) {
            this.payloadLimit = bytes;
            return this;
        }

        /** The deserialization allowlist; default a {@link ClassAllowlist#strict()} with only the JDK set. */
        public Builder allowlist(ClassAllowlist allowlist) {
            this.allowlist = Objects.requireNonNull(allowlist, "allowlist");
            return this;
        }

        /** What one inbound frame may make the decoder build, both ways; default {@link DecodeLimits#DEFAULTS}. */
        public Builder decodeLimits(DecodeLimits limits) {
            this.decodeLimits = Objects.requireNonNull(limits, "limits");
            return this;
        }

        /** Parameter and return types; default {@link DubboTypeResolver#NONE}. */
        public Builder resolver(DubboTypeResolver resolver) {
            this.resolver = Objects.requireNonNull(resolver, "resolver");
            return this;
        }

        /**
         * Leaves result values unparsed on the event loop, for {@link DubboResponse#readValue} on the waiting thread
         * (default false). See {@link DubboDecoder#DubboDecoder(int, ClassAllowlist, DubboTypeResolver, boolean)}.
         */
        public Builder deferResponseValues(boolean defer) {
            this.deferResponseValues = defer;
            return this;
        }

        public DubboCodec build() {
            return new DubboCodec(this);
        }
    }
}
