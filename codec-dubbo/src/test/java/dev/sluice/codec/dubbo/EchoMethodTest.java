package dev.sluice.codec.dubbo;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.codec.dubbo.internal.DubboConstants;
import dev.sluice.codec.dubbo.internal.InterfaceTypeResolver;
import java.lang.reflect.Type;
import java.util.concurrent.TimeUnit;
import org.apache.dubbo.benchmark.service.UserService;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Dubbo's built-in {@code $echo(Object)}: resolvable for every registered service, with no Java method behind it. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class EchoMethodTest {
    private final ClassAllowlist allowlist = ClassAllowlist.strict();
    private final InterfaceTypeResolver services = new InterfaceTypeResolver(allowlist)
            .register(UserService.class, null)
            .register(UserService.class, "2.0");

    @Test
    void echoResolvesToOneObjectParameterForEachRegisteredServiceVersion() {
        String path = UserService.class.getName();
        assertArrayEquals(new Type[] {Object.class},
                services.parameterTypes(path, "0.0.0", DubboConstants.ECHO_METHOD, DubboConstants.ECHO_DESC));
        assertArrayEquals(new Type[] {Object.class},
                services.parameterTypes(path, "2.0", DubboConstants.ECHO_METHOD, DubboConstants.ECHO_DESC));
        assertNull(services.method(path, "0.0.0", DubboConstants.ECHO_METHOD, DubboConstants.ECHO_DESC),
                "no Java method: the server answers $echo itself");
        assertNull(services.parameterTypes(path, "3.0", DubboConstants.ECHO_METHOD, DubboConstants.ECHO_DESC));
        assertNull(services.parameterTypes("com.example.Unknown", "0.0.0", DubboConstants.ECHO_METHOD,
                DubboConstants.ECHO_DESC));
        assertNull(services.parameterTypes(path, "0.0.0", DubboConstants.ECHO_METHOD, "Ljava/lang/String;"));
    }

    @Test
    void echoRequestDecodesItsArgumentAsWhatItSays() {
        DubboMethod echo = DubboMethod.of(UserService.class.getName(), null, DubboConstants.ECHO_METHOD,
                DubboConstants.ECHO_DESC);
        DubboRequest back = (DubboRequest) Codecs.decodeOne(new DubboDecoder(8 << 20, allowlist, services),
                Codecs.encode(DubboRequest.invocation(7L, echo, new Object[] {"ping"}, null)));
        assertFalse(back.isBroken(), back::toString);
        assertTrue(back.isTwoWay());
        assertEquals(DubboConstants.ECHO_METHOD, back.methodName());
        assertArrayEquals(new Object[] {"ping"}, back.arguments());
    }
}
