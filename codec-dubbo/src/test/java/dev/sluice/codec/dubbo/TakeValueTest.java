package dev.sluice.codec.dubbo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.codec.dubbo.internal.DubboConstants;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.dubbo.benchmark.bean.Page;
import org.apache.dubbo.benchmark.bean.User;
import org.apache.dubbo.benchmark.service.UserServiceServerImpl;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link DubboResponse#takeValue}: a deferred result read once hands its bytes back, the next deferred result of the
 * same size reuses them (no copy allocated per response), and the taken response can never be read again.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class TakeValueTest {
    private static final UserServiceServerImpl SERVICE = new UserServiceServerImpl();

    private static DubboResponse deferred(DubboDecoder client, byte ser, long id, Object value) {
        return (DubboResponse) Codecs.decodeOne(client,
                Codecs.encode(DubboResponse.value(id, ser, value, DubboResponse.DEFAULT_ATTACHMENTS)));
    }

    private static DubboDecoder client() {
        return new DubboDecoder(8 << 20, Codecs.userServiceAllowlist(), DubboTypeResolver.NONE, true);
    }

    @ParameterizedTest(name = "serialization {0}")
    @ValueSource(bytes = {DubboConstants.SERIALIZATION_FASTJSON2, DubboConstants.SERIALIZATION_HESSIAN2})
    void aTakenValuesBytesCarryTheNextResponseOfTheSameSize(byte ser) {
        DubboDecoder client = client();
        Page<User> first = SERVICE.listUser(1);
        Page<User> second = SERVICE.listUser(2);
        second.getResult().get(3).setName("Doug Lee"); // same size, other bytes
        for (int i = 0; i < 3; i++) { // leave taken arrays behind
            assertPage(first, deferred(client, ser, 1, first).takeValue(Codecs.PAGE_OF_USER));
        }
        DubboResponse a = deferred(client, ser, 1, first);
        int size = ((DeferredValue) valueOf(a)).bytes().length;
        int kept = ItemArrays.kept(size);
        assertPage(first, a.takeValue(Codecs.PAGE_OF_USER));
        assertEquals(kept + 1, ItemArrays.kept(size), "taking the value handed its array back");
        DubboResponse b = deferred(client, ser, 2, second);
        assertEquals(kept, ItemArrays.kept(size), "the next deferred value of that size reused one");
        assertPage(second, b.takeValue(Codecs.PAGE_OF_USER));

        // readValue leaves the bytes to the response: the next one gets its own
        DubboResponse c = deferred(client, ser, 3, first);
        assertPage(first, c.readValue(Codecs.PAGE_OF_USER));
        assertPage(first, c.readValue(Codecs.PAGE_OF_USER));
        DubboResponse d = deferred(client, ser, 4, first);
        assertNotSame(((DeferredValue) valueOf(c)).bytes(), ((DeferredValue) valueOf(d)).bytes());
    }

    @Test
    void aTakenValueCannotBeReadAgain() {
        DubboResponse r = deferred(client(), DubboConstants.SERIALIZATION_FASTJSON2, 9, SERVICE.getUser(9));
        assertEquals(SERVICE.getUser(9).getName(), ((User) r.takeValue(User.class)).getName());
        IllegalStateException again = assertThrows(IllegalStateException.class, () -> r.takeValue(User.class));
        assertTrue(again.getMessage().contains("response 9 was already taken"), again.getMessage());
        assertThrows(IllegalStateException.class, () -> r.readValue(User.class));
    }

    @Test
    void aValueDecodedWithTheFrameIsTakenAsOftenAsAsked() {
        DubboDecoder client = new DubboDecoder(8 << 20, Codecs.userServiceAllowlist(), DubboTypeResolver.NONE, false);
        DubboResponse r = deferred(client, DubboConstants.SERIALIZATION_FASTJSON2, 9, "plain");
        assertEquals("plain", r.takeValue(String.class));
        assertEquals("plain", r.takeValue(String.class));
    }

    private static Object valueOf(DubboResponse r) {
        assertTrue(r.isValueDeferred(), r::toString);
        try {
            java.lang.reflect.Field f = DubboResponse.class.getDeclaredField("value");
            f.setAccessible(true);
            return f.get(r);
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(e);
        }
    }

    private static void assertPage(Page<User> expected, Object actual) {
        Page<?> p = (Page<?>) actual;
        assertEquals(expected.getPageNo(), p.getPageNo());
        assertEquals(expected.getTotal(), p.getTotal());
        List<?> users = p.getResult();
        assertEquals(expected.getResult(), users);
        users.forEach(u -> assertSame(User.class, u.getClass()));
    }
}
