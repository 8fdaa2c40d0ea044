package dev.sluice.benchmark.codec;

import dev.sluice.codec.dubbo.ClassAllowlist;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.lang.reflect.Type;

/**
 * The conversions a {@code SluiceServer} runs on a generic call, for the codec benchmark's generic path: generic
 * arguments to the declared parameter types, and a result to Dubbo's generic form (POJOs as maps with their
 * {@code "class"}). They are {@code sluice-rpc}'s own ({@code GenericValues}, package-private there), reached once by
 * reflection so that the benchmark times the code the server runs rather than a copy of it.
 *
 * <p>Thread-safe, as the server's conversions are.
 */
final class GenericForms {
    private static final String GENERIC_VALUES = "dev.sluice.rpc.GenericValues";
    private final Object values;
    private final MethodHandle realize;
    private static final MethodHandle GENERALIZE;

    static {
        try {
            Method generalize = Class.forName(GENERIC_VALUES).getDeclaredMethod("generalize", Object.class);
            generalize.setAccessible(true);
            GENERALIZE = MethodHandles.lookup().unreflect(generalize);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** The server's conversions under {@code allowlist}. */
    GenericForms(ClassAllowlist allowlist) {
        try {
            Class<?> c = Class.forName(GENERIC_VALUES);
            Constructor<?> constructor = c.getDeclaredConstructor(ClassAllowlist.class);
            constructor.setAccessible(true);
            this.values = constructor.newInstance(allowlist);
            Method m = c.getDeclaredMethod("realize", Object.class, Type.class);
            m.setAccessible(true);
            this.realize = MethodHandles.lookup().unreflect(m);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("sluice-rpc's " + GENERIC_VALUES + " is not as expected", e);
        }
    }

    /** {@code value}, a generic argument, as {@code type}. */
    Object realize(Object value, Type type) {
        try {
            return realize.invoke(values, value, type);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException(e);
        }
    }

    /** {@code value} in Dubbo's generic form. */
    static Object generalize(Object value) {
        try {
            return GENERALIZE.invoke(value);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException(e);
        }
    }
}
