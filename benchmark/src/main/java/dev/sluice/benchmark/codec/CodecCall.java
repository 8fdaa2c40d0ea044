package dev.sluice.benchmark.codec;

import java.lang.reflect.Method;
import org.apache.dubbo.benchmark.service.UserService;
import org.apache.dubbo.benchmark.service.UserServiceServerImpl;

/**
 * One {@link UserService} call as the codec benchmarks frame it: the method, the argument the benchmark client sends
 * and the result dubbo-benchmark's server returns. Values are built once (the timestamps inside are fixed then), so
 * every encode of a case writes the same bytes. Immutable after construction; any thread.
 */
public final class CodecCall {
    /** The request id of every frame the benchmarks encode and decode. */
    public static final long ID = 1;
    /** The call timeout the attachments carry, as the end-to-end benchmark's clients send it. */
    public static final int TIMEOUT_MILLIS = 1000;

    private final Method method;
    private final Object[] arguments;
    private final Object result;

    private CodecCall(Method method, Object[] arguments, Object result) {
        this.method = method;
        this.arguments = arguments;
        this.result = result;
    }

    /** The call of {@code methodName}: existUser, createUser, getUser or listUser. */
    public static CodecCall of(String methodName) {
        UserServiceServerImpl impl = new UserServiceServerImpl();
        Object[] args;
        switch (methodName) {
            case "existUser":
                args = new Object[] {"1234567"};
                break;
            case "createUser":
                args = new Object[] {impl.getUser(7)};
                break;
            case "getUser":
                args = new Object[] {7L};
                break;
            case "listUser":
                args = new Object[] {7};
                break;
            default:
                throw new IllegalArgumentException("no UserService method " + methodName
                        + "; expected existUser, createUser, getUser or listUser");
        }
        for (Method m : UserService.class.getMethods()) {
            if (m.getName().equals(methodName)) {
                try {
                    return new CodecCall(m, args, m.invoke(impl, args));
                } catch (ReflectiveOperationException e) {
                    throw new IllegalStateException("UserServiceServerImpl." + methodName + " failed", e);
                }
            }
        }
        throw new IllegalStateException("UserService has no method " + methodName);
    }

    public Method method() {
        return method;
    }

    /** The arguments; not to be modified. */
    public Object[] arguments() {
        return arguments;
    }

    public Object result() {
        return result;
    }
}
