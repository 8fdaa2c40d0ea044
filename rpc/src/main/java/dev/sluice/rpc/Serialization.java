package dev.sluice.rpc;

import dev.sluice.codec.dubbo.internal.DubboConstants;

/**
 * The body serializations Sluice speaks, with their Dubbo ids (docs/wire-format.md §1.2). Dubbo 3.3 providers and
 * consumers default to {@link #HESSIAN2} and also accept {@link #FASTJSON2}; Dubbo 2.7, dubbo-go and the other
 * languages' Dubbo clients speak only {@link #HESSIAN2}.
 */
public enum Serialization {
    /** {@code hessian2}, id 2: Dubbo's default, written and read by hessian-lite. */
    HESSIAN2(DubboConstants.SERIALIZATION_HESSIAN2),
    /** {@code fastjson2}, id 23: JSONB items, each with a length prefix. */
    FASTJSON2(DubboConstants.SERIALIZATION_FASTJSON2);

    private final byte id;

    Serialization(byte id) {
        this.id = id;
    }

    /** The id in the frame header's flag byte. */
    public byte id() {
        return id;
    }

    /** The name Dubbo's configuration uses ({@code serialization=hessian2}). */
    public String dubboName() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }

    /** The serialization of header id {@code id}, or null for one Sluice does not speak. */
    public static Serialization ofId(byte id) {
        for (Serialization s : values()) {
            if (s.id == id) {
                return s;
            }
        }
        return null;
    }
}
