package dev.sluice.codec.dubbo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import com.alibaba.fastjson2.util.Fnv;
import java.lang.management.ManagementFactory;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.apache.dubbo.benchmark.bean.User;
import org.apache.dubbo.benchmark.service.UserService;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class LongClassMapTest {

    @Test
    void findsWhatWasStoredInAnyOrderAndPutIfAbsentKeepsTheFirst() {
        LongClassMap map = new LongClassMap();
        Map<Long, Class<?>> expected = new HashMap<>();
        Class<?>[] classes = {String.class, Integer.class, User.class, Map.class};
        Random random = new Random(42);
        for (int i = 0; i < 500; i++) {
            long key = random.nextLong();
            Class<?> c = classes[i % classes.length];
            map.putIfAbsent(key, c);
            expected.putIfAbsent(key, c);
            map.putIfAbsent(key, Object.class); // kept: a value is there already
        }
        expected.forEach((k, v) -> assertSame(v, map.get(k), "key " + k));
        assertNull(map.get(random.nextLong()));
        long first = expected.keySet().iterator().next();
        map.put(first, Object.class);
        assertSame(Object.class, map.get(first), "put replaces");
        map.put(Long.MIN_VALUE, Long.class);
        map.put(Long.MAX_VALUE, Short.class);
        assertSame(Long.class, map.get(Long.MIN_VALUE));
        assertSame(Short.class, map.get(Long.MAX_VALUE));
    }

    // fastjson2 asks the allowlist for the class of every typed value by its name's hash (every User in a listUser
    // page); with a Map<Long, Class> each lookup boxed the hash, 24 bytes per element.
    @Test
    void classLookupByHashAllocatesNothing() {
        ClassAllowlist allowlist = ClassAllowlist.strict().register(UserService.class);
        long hash = Fnv.hashCode64(User.class.getName());
        assertSame(User.class, allowlist.apply(hash, null, 0));
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long thread = Thread.currentThread().getId();
        int calls = 10_000;
        long before = mx.getThreadAllocatedBytes(thread);
        Class<?> last = null;
        for (int i = 0; i < calls; i++) {
            last = allowlist.apply(hash, null, 0);
        }
        long allocated = mx.getThreadAllocatedBytes(thread) - before;
        assertSame(User.class, last);
        // A boxed key would be 240,000 bytes; allow the measurement's own noise.
        assertEquals(0, allocated / calls, "bytes allocated per lookup (" + allocated + " in " + calls + ")");
    }
}
