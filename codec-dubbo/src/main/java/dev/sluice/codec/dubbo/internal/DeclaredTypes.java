package dev.sluice.codec.dubbo.internal;

import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;

/**
 * Reading declared generic types, shared by the codec's type-driven walks and sluice-rpc's generic-call conversions.
 * Stateless; any thread.
 */
public final class DeclaredTypes {
    private DeclaredTypes() {
    }

    /**
     * The {@code index}-th type argument of {@code type} ({@code List<User>}, 0: {@code User}), or {@code Object} when
     * {@code type} is not parameterized or has fewer arguments (a raw {@code List}).
     */
    public static Type typeArgument(Type type, int index) {
        if (type instanceof ParameterizedType) {
            Type[] args = ((ParameterizedType) type).getActualTypeArguments();
            if (index < args.length) {
                return args[index];
            }
        }
        return Object.class;
    }
}
