package dev.sluice.codec.dubbo;

import static dev.sluice.codec.dubbo.TestBytes.concat;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.alibaba.fastjson2.JSONWriter;
import dev.sluice.codec.dubbo.internal.DubboConstants;
import dev.sluice.codec.dubbo.internal.InterfaceTypeResolver;
import dev.sluice.codec.dubbo.model.Animal;
import dev.sluice.codec.dubbo.model.Dog;
import dev.sluice.codec.dubbo.model.ProbeService;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.dubbo.benchmark.bean.User;
import org.apache.dubbo.benchmark.service.UserService;
import org.apache.dubbo.benchmark.service.UserServiceServerImpl;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** docs/reliability.md G30: only reachable classes and a small JDK set are deserialized, STRICT by default. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class AllowlistTest {
    private static final String GADGET = "dev.sluice.codec.dubbo.gadget.StaticInitGadget";
    private static final DubboMethod ECHO = DubboMethod.of(ProbeService.class.getName(), null, "echo",
            "Ljava/lang/Object;");
    private static final DubboMethod ADOPT = DubboMethod.of(ProbeService.class.getName(), null, "adopt",
            "Ldev/sluice/codec/dubbo/model/Animal;");

    /** A typed JSONB value naming {@code typeName}, written without ever touching that class. */
    static byte[] typedValue(String typeName) {
        try (JSONWriter w = JSONWriter.ofJSONB()) {
            w.writeTypeName(typeName);
            w.startObject();
            w.writeName("command");
            w.writeString("touch /tmp/pwned");
            w.endObject();
            return w.getBytes();
        }
    }

    static byte[] item(byte[] jsonb) {
        return concat(ByteBuffer.allocate(4).putInt(jsonb.length).array(), jsonb);
    }

    /** A request frame for {@code method} whose single argument item is {@code argJsonb}. */
    static byte[] requestWithArgument(long id, DubboMethod method, byte[] argJsonb) {
        byte[] body = concat(method.fastjson2Prefix(), item(argJsonb), TestBytes.hex("00 00 00 02 a6 a5"));
        return concat(FramingTest.header(0xd7, 0, id, body.length), body);
    }

    /** A status-20 response frame with flag 1 and value item {@code valueJsonb}. */
    static byte[] responseWithValue(long id, byte[] valueJsonb) {
        byte[] body = concat(TestBytes.hex("00 00 00 02 bd 01"), item(valueJsonb));
        return concat(FramingTest.header(0x17, 20, id, body.length), body);
    }

    private static DubboDecoder probeServer() {
        ClassAllowlist allowlist = ClassAllowlist.strict();
        return new DubboDecoder(8 << 20, allowlist, new InterfaceTypeResolver(allowlist)
                .register(ProbeService.class, null));
    }

    private static DubboDecoder probeClient() {
        return new DubboDecoder(8 << 20, ClassAllowlist.strict().register(ProbeService.class),
                DubboTypeResolver.forClient(id -> Object.class));
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "com.sun.rowset.JdbcRowSetImpl",
        "com.sun.org.apache.xalan.internal.xsltc.trax.TemplatesImpl",
        "org.apache.commons.collections.functors.InvokerTransformer",
        "java.lang.ProcessBuilder",
        "java.lang.Runtime",
        "java.lang.Class",
        "javax.naming.InitialContext",
        "java.net.URL",
        "java.io.File",
        "org.springframework.beans.factory.ObjectFactory",
        GADGET,                                          // a class from an unregistered package
        "dev.sluice.codec.dubbo.model.Dog",             // undeclared subclass of a registered type
        "org.apache.dubbo.benchmark.bean.User",         // reachable only from an interface not registered here
        "[Lcom.sun.rowset.JdbcRowSetImpl;",
        "com.sun.rowset.JdbcRowSetImpl[]",
        "[com.sun.rowset.JdbcRowSetImpl",
        "dev.sluice.codec.dubbo.model.Animal$Evil",
        "",
    })
    void refusedTypeNames(String typeName) {
        // As an Object parameter (always checked) and as an Animal parameter (checked unless it names Animal).
        for (DubboMethod method : List.of(ECHO, ADOPT)) {
            DubboRequest r = (DubboRequest) Codecs.decodeOne(probeServer(),
                    requestWithArgument(101L, method, typedValue(typeName)));
            assertTrue(r.isBroken(), () -> typeName + " accepted by " + method.methodName() + ": " + r);
            assertEquals(101L, r.id());
            assertEquals(DubboConstants.STATUS_BAD_REQUEST, r.brokenStatus());
            if (!typeName.isEmpty()) {
                assertTrue(r.errorMessage().contains("Refused to deserialize type '" + typeName + "'"),
                        r.errorMessage());
            }
        }
        // As a returned value on the client.
        DubboResponse resp = (DubboResponse) Codecs.decodeOne(probeClient(), responseWithValue(102L,
                typedValue(typeName)));
        assertEquals(102L, resp.id());
        assertEquals(DubboConstants.STATUS_CLIENT_ERROR, resp.status(), resp::toString);
        // And by a client that parses results on the waiting thread: refused there, with the same reason.
        DubboResponse deferred = (DubboResponse) Codecs.decodeOne(probeDeferringClient(), responseWithValue(103L,
                typedValue(typeName)));
        assertTrue(deferred.isOk(), deferred::toString);
        DubboSerializationException e = assertThrows(DubboSerializationException.class,
                () -> deferred.readValue(Object.class), () -> typeName + " accepted by a deferred read");
        assertTrue(e.getMessage().startsWith("Failed to decode the response to request 103: "), e.getMessage());
        if (!typeName.isEmpty()) {
            assertTrue(e.getMessage().contains("Refused to deserialize type '" + typeName + "'"), e.getMessage());
        }
        assertNull(System.getProperty("sluice.test.gadget.initialized"));
    }

    private static DubboDecoder probeDeferringClient() {
        return new DubboDecoder(8 << 20, ClassAllowlist.strict().register(ProbeService.class),
                DubboTypeResolver.NONE, true);
    }

    @Test
    void aRefusedClassIsNeverLoadedNorInitialized() {
        // Name the gadget in every position a type name can take; its static initializer must never run.
        Map<String, Object> attachments = new HashMap<>();
        attachments.put("x", "y");
        byte[][] frames = {
            requestWithArgument(1L, ECHO, typedValue(GADGET)),
            requestWithArgument(2L, ADOPT, typedValue(GADGET)),
            responseWithValue(3L, typedValue(GADGET)),
            responseWithValue(4L, typedValue("[L" + GADGET + ";")),
        };
        for (byte[] frame : frames) {
            Object m = Codecs.decodeOne(probeServer(), frame);
            assertTrue(m instanceof DubboRequest ? ((DubboRequest) m).isBroken() : !((DubboResponse) m).isOk());
        }
        for (byte[] frame : new byte[][] {frames[2], frames[3]}) {
            DubboResponse r = (DubboResponse) Codecs.decodeOne(probeDeferringClient(), frame);
            assertThrows(DubboSerializationException.class, () -> r.readValue(Object.class));
        }
        assertNull(System.getProperty("sluice.test.gadget.initialized"), "the gadget's static initializer ran");
        assertFalse(ClassAllowlist.strict().register(ProbeService.class).isAllowed(GADGET));
        assertNull(System.getProperty("sluice.test.gadget.initialized"));
    }

    @Test
    void reachableClassesAreAccepted() {
        ClassAllowlist allowlist = ClassAllowlist.strict().register(UserService.class);
        for (String name : List.of("org.apache.dubbo.benchmark.bean.User", "org.apache.dubbo.benchmark.bean.Page",
                "java.time.LocalDateTime", "java.lang.Integer", "java.util.ArrayList", "java.util.LinkedHashMap",
                "java.lang.IllegalStateException", "java.lang.StackTraceElement", "[String", "[I",
                "org.apache.dubbo.benchmark.bean.User[]", "[Lorg.apache.dubbo.benchmark.bean.User;")) {
            assertTrue(allowlist.isAllowed(name), name);
        }
        assertFalse(ClassAllowlist.strict().isAllowed("org.apache.dubbo.benchmark.bean.User"));
        // Superclasses and field types of reachable classes are reachable; subclasses are not.
        ClassAllowlist probe = ClassAllowlist.strict().register(ProbeService.class);
        assertTrue(probe.isAllowed(Animal.class));
        assertFalse(probe.isAllowed(Dog.class));
    }

    @Test
    void undeclaredSubclassIsAcceptedOnlyWhenAllowedExplicitly() {
        byte[] dog = Codecs.encode(DubboRequest.invocation(7L, ADOPT, new Object[] {new Dog("rex", "collie")},
                null));
        assertTrue(((DubboRequest) Codecs.decodeOne(probeServer(), dog)).isBroken());

        ClassAllowlist allowlist = ClassAllowlist.strict().allow(Dog.class);
        DubboDecoder decoder = new DubboDecoder(8 << 20, allowlist, new InterfaceTypeResolver(allowlist)
                .register(ProbeService.class, null));
        DubboRequest r = (DubboRequest) Codecs.decodeOne(decoder, dog);
        assertFalse(r.isBroken(), r::toString);
        Dog back = assertInstanceOf(Dog.class, r.arguments()[0]);
        assertEquals("collie", back.getBreed());

        // By name and by package prefix too.
        assertTrue(ClassAllowlist.strict().allow("dev.sluice.codec.dubbo.model.Dog").isAllowed(
                "dev.sluice.codec.dubbo.model.Dog"));
        assertTrue(ClassAllowlist.strict().allow("dev.sluice.codec.dubbo.model.").isAllowed(
                "dev.sluice.codec.dubbo.model.Dog"));
    }

    @Test
    void denyListCannotBeAllowed() {
        for (String name : List.of("com.sun.rowset.JdbcRowSetImpl", "javax.naming.", "java.lang.Runtime",
                "org.apache.commons.collections.functors.InvokerTransformer")) {
            assertThrows(IllegalArgumentException.class, () -> ClassAllowlist.strict().allow(name), name);
        }
        // ... without catching names that merely share a prefix.
        assertTrue(ClassAllowlist.strict().allow("java.lang.ClassCastException").isAllowed(
                "java.lang.ClassCastException"));
    }

    @Test
    void jdkValuesPassTheStrictList() {
        List<Object> values = List.of(new LinkedHashMap<>(Map.of("a", 1)), new TreeMap<>(Map.of("b", 2L)),
                List.of(1, 2, 3), Arrays.asList("x", "y"), new IllegalStateException("boom"),
                new String[] {"s", "t"}, new ArrayList<>(List.of(java.time.LocalDate.of(2024, 1, 2))),
                new java.math.BigDecimal("12.50"), List.of(), List.of("one"), java.util.Set.of(1, 2, 3),
                Map.of("k", "v"), Map.of("a", 1, "b", 2, "c", 3), java.util.Collections.emptyList(),
                java.util.Collections.singletonList(5), java.util.Collections.unmodifiableList(new ArrayList<>(
                        List.of(1))), java.util.Collections.unmodifiableMap(new HashMap<>(Map.of("u", 1))),
                java.util.Collections.emptyMap(), new java.util.HashSet<>(List.of("h")), new java.util.TreeSet<>(
                        List.of(3, 1)));
        for (Object v : values) {
            DubboRequest r = (DubboRequest) Codecs.decodeOne(probeServer(),
                    Codecs.encode(DubboRequest.invocation(8L, ECHO, new Object[] {v}, null)));
            assertFalse(r.isBroken(), () -> v.getClass() + ": " + r);
            Object back = r.arguments()[0];
            if (v instanceof Throwable) {
                assertEquals(v.getClass(), back.getClass());
                assertEquals("boom", ((Throwable) back).getMessage());
            } else if (v instanceof Object[]) {
                assertTrue(Arrays.equals((Object[]) v, (Object[]) back));
            } else {
                assertEquals(v, back);
            }
        }
    }

    @Test
    void typedValuesNestedInCollectionsAndAttachmentsAreChecked() {
        ClassAllowlist allowlist = ClassAllowlist.strict();
        DubboDecoder decoder = new DubboDecoder(8 << 20, allowlist,
                new InterfaceTypeResolver(allowlist).register(ProbeService.class, null));
        // A list holding a typed gadget, passed as Object.
        byte[] list;
        try (JSONWriter w = JSONWriter.ofJSONB()) {
            w.startArray(1);
            w.writeTypeName("com.sun.rowset.JdbcRowSetImpl");
            w.startObject();
            w.endObject();
            list = w.getBytes();
        }
        DubboRequest r = (DubboRequest) Codecs.decodeOne(decoder, requestWithArgument(9L, ECHO, list));
        assertTrue(r.isBroken(), r::toString);
        assertTrue(r.errorMessage().contains("com.sun.rowset.JdbcRowSetImpl"), r.errorMessage());

        // Attachments are a map of Objects: a typed value there is refused too.
        byte[] map;
        try (JSONWriter w = JSONWriter.ofJSONB()) {
            w.startObject();
            w.writeName("evil");
            w.writeTypeName(GADGET);
            w.startObject();
            w.endObject();
            w.endObject();
            map = w.getBytes();
        }
        byte[] body = concat(ECHO.fastjson2Prefix(), item(new byte[] {(byte) 0xaf}), item(map));
        DubboRequest r2 = (DubboRequest) Codecs.decodeOne(decoder,
                concat(FramingTest.header(0xd7, 0, 10L, body.length), body));
        assertTrue(r2.isBroken(), r2::toString);
        assertNull(System.getProperty("sluice.test.gadget.initialized"));
    }

    @Test
    void pageItemsNeedTheAllowlistToBeUsers() {
        // docs/wire-format.md §7.3: without the handler accepting User, Page.result items would silently be HashMaps.
        DubboResponse resp = (DubboResponse) Codecs.decodeOne(Codecs.clientDecoder(Codecs.PAGE_OF_USER),
                Codecs.encode(DubboResponse.value(11L, (byte) 23, new UserServiceServerImpl().listUser(1), null)));
        assertInstanceOf(User.class, ((org.apache.dubbo.benchmark.bean.Page<?>) resp.value()).getResult().get(0));
    }
}
