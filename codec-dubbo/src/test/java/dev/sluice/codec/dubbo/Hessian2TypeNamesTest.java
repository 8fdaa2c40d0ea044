package dev.sluice.codec.dubbo;

import static dev.sluice.codec.dubbo.TestBytes.concat;
import static dev.sluice.codec.dubbo.TestBytes.hex;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.alibaba.com.caucho.hessian.io.SerializerFactory;
import dev.sluice.codec.dubbo.internal.DubboConstants;
import dev.sluice.codec.dubbo.internal.InterfaceTypeResolver;
import java.lang.management.ManagementFactory;
import java.lang.reflect.Field;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.apache.dubbo.benchmark.service.UserService;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * docs/reliability.md G32: a hessian2 type name the allowlist does not accept is refused before hessian-lite sees it,
 * with or without a dot, so hessian-lite logs nothing and caches nothing per name (it logs a JUL WARNING and keeps the
 * name forever in a static map and in the factory for every name it cannot load); hessian's own type names still
 * read.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class Hessian2TypeNamesTest {
    private static final DubboMethod ECHO = DubboMethod.of(UserService.class.getName(), null,
            DubboConstants.ECHO_METHOD, DubboConstants.ECHO_DESC);
    private static final byte[] NO_ATTACHMENTS = hex("48 5a");
    private static final int NAMES_PER_KIND = 5_000;
    /** Long names, so what a leak keeps is well above the noise of a heap measurement. */
    private static final String PADDING = "x".repeat(200);

    private static byte[] s(String v) {
        return NumberLimitsTest.hessian2(v);
    }

    /** The places a type name goes: typed map, typed fixed and variable lists, class definition. */
    private static final List<Function<String, byte[]>> KINDS = List.of(
            name -> concat(hex("4d"), s(name), hex("5a")),
            name -> concat(hex("56"), s(name), hex("90")),
            name -> concat(hex("55"), s(name), hex("5a")),
            name -> concat(hex("43"), s(name), hex("91"), s("f"), hex("60 4e")));

    private final ClassAllowlist allowlist = Codecs.userServiceAllowlist();
    private final Hessian2Values shared = new Hessian2Values(allowlist);
    private final DubboDecoder decoder = new DubboDecoder(8 << 20, allowlist,
            new InterfaceTypeResolver(allowlist).register(UserService.class, null), false, shared,
            DecodeLimits.DEFAULTS);

    private static int size(Object owner, Class<?> declaring, String field) throws ReflectiveOperationException {
        Field f = declaring.getDeclaredField(field);
        f.setAccessible(true);
        return ((Map<?, ?>) f.get(owner)).size();
    }

    private int factoryCacheSize() throws ReflectiveOperationException {
        Field f = Hessian2Values.class.getDeclaredField("readFactory");
        f.setAccessible(true);
        return size(f.get(shared), SerializerFactory.class, "_typeNotFoundDeserializerMap");
    }

    private static int staticCacheSize() throws ReflectiveOperationException {
        return size(null, SerializerFactory.class, "_unrecognizedTypeCache");
    }

    private static long usedHeapAfterGc() {
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    private DubboRequest decode(long id, byte[] value) {
        byte[] body = concat(ECHO.hessian2Prefix(), value, NO_ATTACHMENTS);
        return assertInstanceOf(DubboRequest.class,
                Codecs.decodeOne(decoder, concat(FramingTest.header(0xc2, 0, id, body.length), body)));
    }

    @Test
    void distinctDotlessTypeNamesAreRefusedWithoutAWarningACacheEntryOrHeapKept() throws Exception {
        Logger hessianLog = Logger.getLogger(SerializerFactory.class.getName()); // held: JUL loggers are weak
        AtomicInteger warnings = new AtomicInteger();
        Handler counter = new Handler() {
            @Override
            public void publish(LogRecord record) {
                if (record.getLevel().intValue() >= Level.WARNING.intValue()) {
                    warnings.incrementAndGet();
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        boolean parentHandlers = hessianLog.getUseParentHandlers();
        hessianLog.addHandler(counter);
        hessianLog.setUseParentHandlers(false); // 20,000 lines on the console before the fix
        try {
            decode(1, KINDS.get(0).apply("Warmup" + PADDING)); // load classes before measuring
            int staticBefore = staticCacheSize();
            int factoryBefore = factoryCacheSize();
            long heapBefore = usedHeapAfterGc();
            long id = 10;
            for (int kind = 0; kind < KINDS.size(); kind++) {
                for (int i = 0; i < NAMES_PER_KIND; i++) {
                    String name = "Gadget" + kind + "n" + i + PADDING;
                    DubboRequest r = decode(id++, KINDS.get(kind).apply(name));
                    assertTrue(r.isBroken(), () -> "accepted: " + r);
                    assertEquals(DubboConstants.STATUS_BAD_REQUEST, r.brokenStatus());
                    assertTrue(r.errorMessage().contains("Refused to deserialize type '" + name + "'"),
                            r.errorMessage());
                }
            }
            long kept = usedHeapAfterGc() - heapBefore;
            assertEquals(0, warnings.get(), "JUL warnings from hessian-lite");
            assertEquals(staticBefore, staticCacheSize(), "hessian-lite's static cache of unknown names");
            assertEquals(factoryBefore, factoryCacheSize(), "the factory's cache of unknown names");
            // Each of the 20,000 names is about 240 bytes of string alone; a leak keeps well over 5 MB.
            assertTrue(kept < 2 * 1024 * 1024, "heap kept after 20,000 refused names: " + kept + " bytes");
        } finally {
            hessianLog.removeHandler(counter);
            hessianLog.setUseParentHandlers(parentHandlers);
        }
    }

    @Test
    void handleLookalikesAndDeepArraysAreRefusedToo() throws Exception {
        int before = staticCacheSize();
        for (String name : new String[] {"com.alibaba.com.caucho.hessian.io.java8.NoSuchHandle",
            "com.alibaba.com.caucho.hessian.io.java8.Other" + PADDING + "Handle", "[[[[[[[[[[[[int",
            "[[[[[[[[[[[[java.lang.String", "[Gadget", "[[Gadget"}) {
            DubboRequest r = decode(2, KINDS.get(1).apply(name));
            assertTrue(r.isBroken(), () -> name + " accepted: " + r);
            assertTrue(r.errorMessage().contains("Refused to deserialize type"), r.errorMessage());
        }
        assertEquals(before, staticCacheSize());
    }

    @Test
    void hessiansOwnTypeNamesStillRead() throws Exception {
        Field f = Hessian2Values.class.getDeclaredField("readFactory");
        f.setAccessible(true);
        SerializerFactory factory = (SerializerFactory) f.get(shared);
        for (String name : new String[] {"void", "boolean", "byte", "short", "int", "long", "float", "double", "char",
            "string", "object", "date", "[boolean", "[byte", "[short", "[int", "[long", "[float", "[double", "[char",
            "[string", "[object", "[[int", "[[[string"}) {
            assertTrue(factory.getDeserializer(name) != null, name);
        }
        for (String name : new String[] {"[int", "[string", "[object", "[[int", "[java.lang.String",
            "java.util.ArrayList", ""}) {
            DubboRequest r = decode(3, KINDS.get(1).apply(name));
            assertFalse(r.isBroken(), () -> name + ": " + r.errorMessage());
        }
        DubboRequest map = decode(4, concat(hex("4d"), s("java.util.TreeMap"), s("k"), s("v"), hex("5a")));
        assertFalse(map.isBroken(), map::errorMessage);
        assertEquals(Map.of("k", "v"), map.arguments()[0]);
    }
}
