package dev.sluice.codec.dubbo;

import dev.sluice.transport.Internal;
import java.lang.reflect.Type;

/**
 * Tells the decoder which Java types to read body values as. fastjson2 bodies do not say what a value is meant to
 * be (a {@code long} parameter may arrive as a JSONB int), so requests need the parameter types of the target method
 * and responses the return type of the call they answer. Called on the connection's event loop for every frame, so
 * implementations must be fast and thread-safe.
 *
 * <p>The server side implements {@link #parameterTypes}, the client side {@link #returnType}; see
 * {@code dev.sluice.codec.dubbo.internal.InterfaceTypeResolver} for a ready implementation of the first, and
 * {@link #forClient} to adapt a pending-call table for the second.
 */
@Internal
public interface DubboTypeResolver {
    /**
     * The parameter types to decode an invocation's arguments as (generic types allowed), or {@code null} when no
     * such service method is exported, which makes the request broken with status 40 (Dubbo's answer to an
     * unknown service or descriptor). The {@code group} attachment is not known yet: it follows the arguments.
     * Each decoder remembers the non-null answers for its 8 most recent targets, so an unexported service must
     * still be rejected when the request is served, not only here. The returned array is only read.
     */
    Type[] parameterTypes(String servicePath, String serviceVersion, String methodName, String parameterTypesDesc);

    /**
     * The type to decode the value of the response to request {@code requestId} as, or {@code null} (unknown id,
     * void, generic call) to read it as whatever it says it is, within the allowlist.
     */
    Type returnType(long requestId);

    /** Resolves nothing: every request is "service not found", every value reads as its own type. */
    DubboTypeResolver NONE = forClient(id -> null);

    /** A client-side resolver; requests decoded with it are all broken (a client does not serve calls). */
    static DubboTypeResolver forClient(ReturnTypes returnTypes) {
        return new DubboTypeResolver() {
            @Override
            public Type[] parameterTypes(String path, String version, String method, String desc) {
                return null;
            }

            @Override
            public Type returnType(long requestId) {
                return returnTypes.returnType(requestId);
            }
        };
    }

    /** The client half, as a lambda over the pending-call table. */
    @FunctionalInterface
    interface ReturnTypes {
        Type returnType(long requestId);
    }
}
