package dev.sluice.codec.dubbo;

import static dev.sluice.codec.dubbo.TestBytes.concat;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.alibaba.com.caucho.hessian.io.Hessian2Output;
import com.alibaba.com.caucho.hessian.io.SerializerFactory;
import com.alibaba.fastjson2.JSONArray;
import com.alibaba.fastjson2.JSONB;
import com.alibaba.fastjson2.JSONObject;
import com.alibaba.fastjson2.JSONWriter;
import com.alibaba.fastjson2.TypeReference;
import dev.sluice.codec.dubbo.internal.DubboConstants;
import dev.sluice.codec.dubbo.internal.InterfaceTypeResolver;
import dev.sluice.codec.dubbo.model.UntypedService;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Type;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Values a real Dubbo peer writes where a contract says {@code Object}, {@code Map<String, Object>} or
 * {@code List<Object>}: a Dubbo 3.3 provider that read its arguments untyped holds fastjson2's {@code JSONObject} /
 * {@code JSONArray}, and both serializations name JDK collection classes such as {@code Arrays$ArrayList} or
 * {@code Collections$SingletonMap}. Each is written here as the peer writes it (fastjson2's JSONB writer with Dubbo's
 * writer features; hessian-lite, Dubbo's hessian2 library), then read by a strict decoder that only knows
 * {@link UntypedService}: as a result (while decoding, and deferred as {@code SluiceClient} reads it) and as a
 * request argument. Every value must be read, equal to what was sent, and hold no fastjson2 class.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class UntypedValuesTest {
    private static final String SERVICE = UntypedService.class.getName();
    private static final DubboMethod ANY = DubboMethod.of(SERVICE, null, "any", "Ljava/lang/Object;");
    private static final DubboMethod MAP = DubboMethod.of(SERVICE, null, "map", "Ljava/util/Map;");
    private static final DubboMethod LIST = DubboMethod.of(SERVICE, null, "list", "Ljava/util/List;");
    private static final Type MAP_TYPE = new TypeReference<Map<String, Object>>() { }.getType();
    private static final Type LIST_TYPE = new TypeReference<List<Object>>() { }.getType();

    enum Ser {
        FASTJSON2(DubboConstants.SERIALIZATION_FASTJSON2),
        HESSIAN2(DubboConstants.SERIALIZATION_HESSIAN2);

        final byte id;

        Ser(byte id) {
            this.id = id;
        }
    }

    /** Each kind of value a real provider may write for an untyped position ({@link UntypedKinds}), by name. */
    static Map<String, Object> values() {
        Map<String, Object> v = UntypedKinds.values();
        // A Map<String, Object> result holding one of each, nested: the shape of the reported failure.
        Map<String, Object> all = new LinkedHashMap<>(v);
        JSONObject nested = UntypedKinds.jsonObject();
        nested.put("deeper", UntypedKinds.jsonArray());
        all.put("nested", nested);
        v.put("Map of all", all);
        return v;
    }

    static Stream<Arguments> cases() {
        List<Arguments> cases = new ArrayList<>();
        for (Ser ser : Ser.values()) {
            values().forEach((name, value) -> cases.add(Arguments.of(ser, name, value)));
        }
        return cases.stream();
    }

    // ---- bytes as a Dubbo peer writes them ----

    /** One value as Dubbo's FastJson2ObjectOutput writes it: JSONB with Dubbo's writer features. */
    private static byte[] jsonb(Object value) {
        return JSONB.toBytes(value, DubboEncoder.WRITER_FEATURES);
    }

    private static byte[] item(byte[] jsonb) {
        return concat(ByteBuffer.allocate(4).putInt(jsonb.length).array(), jsonb);
    }

    /** Values as one stream of Dubbo's Hessian2ObjectOutput: hessian-lite with its own default factory. */
    private static byte[] hessian(Object... values) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        Hessian2Output out = new Hessian2Output(bytes);
        out.setSerializerFactory(new SerializerFactory());
        try {
            for (Object v : values) {
                out.writeObject(v);
            }
            out.flushBuffer();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    /** A status-20 response: flag 4 (a value, then attachments), the value, attachments — as Dubbo 3.3 answers. */
    private static byte[] response(Ser ser, long id, Object value) {
        Map<String, Object> attachments = new HashMap<>(Map.of("dubbo", "2.0.2"));
        byte[] body = ser == Ser.FASTJSON2
                ? concat(item(jsonb(4)), item(jsonb(value)), item(jsonb(attachments)))
                : hessian(4, value, attachments);
        return concat(FramingTest.header(ser.id, 20, id, body.length), body);
    }

    /** A two-way request to {@code method} with {@code value} as its one argument, as a Dubbo 3.3 consumer sends. */
    private static byte[] request(Ser ser, long id, DubboMethod method, Object value) {
        Map<String, Object> attachments = new HashMap<>(Map.of("path", SERVICE, "interface", SERVICE));
        byte[] body = ser == Ser.FASTJSON2
                ? concat(method.fastjson2Prefix(), item(jsonb(value)), item(jsonb(attachments)))
                : concat(method.hessian2Prefix(), hessian(value, attachments));
        return concat(FramingTest.header(0xc0 | ser.id, 0, id, body.length), body);
    }

    // ---- decoders that know UntypedService only ----

    private static ClassAllowlist allowlist() {
        return ClassAllowlist.strict().register(UntypedService.class);
    }

    private static DubboDecoder client(Type returnType) {
        return new DubboDecoder(8 << 20, allowlist(), DubboTypeResolver.forClient(id -> returnType));
    }

    private static DubboDecoder deferringClient() {
        return new DubboDecoder(8 << 20, allowlist(), DubboTypeResolver.NONE, true);
    }

    private static DubboDecoder server() {
        ClassAllowlist allowlist = ClassAllowlist.strict();
        return new DubboDecoder(8 << 20, allowlist, new InterfaceTypeResolver(allowlist)
                .register(UntypedService.class, null));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("cases")
    void readAsAResult(Ser ser, String name, Object value) {
        Map<String, Object> inMap = new JSONObject();
        inMap.put("value", value);
        List<Object> inList = new JSONArray();
        inList.add(value);
        Object[][] shapes = {{Object.class, value}, {MAP_TYPE, inMap}, {LIST_TYPE, inList}};
        long id = 1;
        for (Object[] shape : shapes) {
            Type type = (Type) shape[0];
            Object sent = shape[1];
            byte[] frame = response(ser, id, sent);
            DubboResponse r = assertInstanceOf(DubboResponse.class, Codecs.decodeOne(client(type), frame));
            assertTrue(r.isOk(), () -> ser + " " + name + " as " + type.getTypeName() + ": " + r);
            assertSameValue(sent, r.value(), ser + " " + name + " as " + type.getTypeName());
            assertEquals("2.0.2", r.attachments().get("dubbo"));

            DubboResponse deferred = assertInstanceOf(DubboResponse.class,
                    Codecs.decodeOne(deferringClient(), frame));
            assertTrue(deferred.isOk(), deferred::toString);
            assertSameValue(sent, deferred.readValue(type), ser + " " + name + " deferred as " + type.getTypeName());
            id++;
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("cases")
    void readAsAnArgument(Ser ser, String name, Object value) {
        DubboRequest any = assertInstanceOf(DubboRequest.class, Codecs.decodeOne(server(),
                request(ser, 11L, ANY, value)));
        assertFalse(any.isBroken(), () -> ser + " " + name + ": " + any);
        assertSameValue(value, any.arguments()[0], ser + " " + name + " as Object");

        JSONObject inMap = new JSONObject();
        inMap.put("value", value);
        DubboRequest map = assertInstanceOf(DubboRequest.class, Codecs.decodeOne(server(),
                request(ser, 12L, MAP, inMap)));
        assertFalse(map.isBroken(), () -> ser + " " + name + " in a map: " + map);
        assertSameValue(inMap, map.arguments()[0], ser + " " + name + " in a Map<String, Object>");

        JSONArray inList = new JSONArray();
        inList.add(value);
        DubboRequest list = assertInstanceOf(DubboRequest.class, Codecs.decodeOne(server(),
                request(ser, 13L, LIST, inList)));
        assertFalse(list.isBroken(), () -> ser + " " + name + " in a list: " + list);
        assertSameValue(inList, list.arguments()[0], ser + " " + name + " in a List<Object>");
    }

    @Test
    void fastjson2ContainersAreReadAsTheJdkMapAndList() {
        for (Ser ser : Ser.values()) {
            Object o = Codecs.decodeOne(client(Object.class), response(ser, 21L, UntypedKinds.jsonObject()));
            LinkedHashMap<?, ?> map = assertInstanceOf(LinkedHashMap.class, ((DubboResponse) o).value(), ser::name);
            assertEquals(List.of("k", "m", "l"), new ArrayList<>(map.keySet()), "insertion order kept");
            assertInstanceOf(LinkedHashMap.class, map.get("m"));
            assertInstanceOf(ArrayList.class, map.get("l"));
            Object a = ((DubboResponse) Codecs.decodeOne(client(Object.class),
                    response(ser, 22L, UntypedKinds.jsonArray()))).value();
            assertInstanceOf(ArrayList.class, a, ser::name);
        }
    }

    @Test
    void theSubstitutesDoNotOpenTheFastjsonPackage() {
        ClassAllowlist allowlist = allowlist();
        assertTrue(allowlist.isAllowed("com.alibaba.fastjson2.JSONObject"));
        assertTrue(allowlist.isAllowed("com.alibaba.fastjson2.JSONArray"));
        for (String name : List.of("com.alibaba.fastjson2.JSONPath", "com.alibaba.fastjson2.JSONObject$1",
                "com.alibaba.fastjson2.JSONObjectX",
                "com.alibaba.fastjson.JSONObject", "com.alibaba.fastjson2.support.spring.data.mongodb.GeoJsonReader",
                "com.alibaba.fastjson2.util.ParameterizedTypeImpl")) {
            assertFalse(allowlist.isAllowed(name), name);
        }
    }

    // ---- comparison ----

    /**
     * {@code read} holds the same data as {@code sent}. From hessian2 it holds no fastjson2 class at all. From
     * fastjson2 it may hold a {@code JSONArray} that fastjson2 itself built for an untyped list inside a map (its map
     * reader does so whatever the reader features say, at a Dubbo consumer too): a plain {@code ArrayList}, never a
     * class named on the wire; any other fastjson2 class fails.
     */
    private static void assertSameValue(Object sent, Object read, String what) {
        assertEquals(TestValues.normalize(sent), TestValues.normalize(read), what);
        boolean fastjson2 = what.startsWith(Ser.FASTJSON2.name());
        noFastjsonClass(read, what, "value", fastjson2, Collections.newSetFromMap(new IdentityHashMap<>()));
    }

    private static void noFastjsonClass(Object v, String what, String path, boolean jsonArrayAllowed,
            Set<Object> seen) {
        if (v == null || !seen.add(v)) {
            return;
        }
        boolean builtByFastjson2 = jsonArrayAllowed && v.getClass() == JSONArray.class;
        if (v.getClass().getName().startsWith("com.alibaba.") && !builtByFastjson2) {
            fail(what + ": read a " + v.getClass().getName() + " at " + path);
        }
        if (v instanceof Map) {
            for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet()) {
                noFastjsonClass(e.getKey(), what, path + " key", jsonArrayAllowed, seen);
                noFastjsonClass(e.getValue(), what, path + "[" + e.getKey() + "]", jsonArrayAllowed, seen);
            }
        } else if (v instanceof Collection) {
            int i = 0;
            for (Object e : (Collection<?>) v) {
                noFastjsonClass(e, what, path + "[" + i++ + "]", jsonArrayAllowed, seen);
            }
        } else if (v instanceof Object[]) {
            for (int i = 0; i < ((Object[]) v).length; i++) {
                noFastjsonClass(((Object[]) v)[i], what, path + "[" + i + "]", jsonArrayAllowed, seen);
            }
        }
    }

    @Test
    void nothingOutsideTheAllowlistIsLoadedOnTheWay() {
        // A typed gadget inside a JSONObject / JSONArray is still refused: the substitutes' entries are read with the
        // same allowlist.
        String gadget = "dev.sluice.codec.dubbo.gadget.StaticInitGadget";
        byte[] inObject;
        try (JSONWriter w = JSONWriter.ofJSONB()) {
            w.writeTypeName("com.alibaba.fastjson2.JSONObject");
            w.startObject();
            w.writeName("evil");
            w.writeTypeName(gadget);
            w.startObject();
            w.endObject();
            w.endObject();
            inObject = w.getBytes();
        }
        byte[] body = concat(item(jsonb(1)), item(inObject));
        DubboResponse r = (DubboResponse) Codecs.decodeOne(client(Object.class),
                concat(FramingTest.header(Ser.FASTJSON2.id, 20, 31L, body.length), body));
        assertEquals(DubboConstants.STATUS_CLIENT_ERROR, r.status(), r::toString);
        assertTrue(r.errorMessage().contains("Refused to deserialize type '" + gadget + "'"), r.errorMessage());

        byte[] hessianBody = concat(hessian(1), TestBytes.hex("4d"), hessianString("com.alibaba.fastjson2.JSONObject"),
                hessianString("evil"), Hessian2AllowlistTest.objectNaming(gadget), TestBytes.hex("5a"));
        DubboResponse h = (DubboResponse) Codecs.decodeOne(client(Object.class),
                concat(FramingTest.header(Ser.HESSIAN2.id, 20, 32L, hessianBody.length), hessianBody));
        assertEquals(DubboConstants.STATUS_CLIENT_ERROR, h.status(), h::toString);
        assertTrue(h.errorMessage().contains("Refused to deserialize type '" + gadget + "'"), h.errorMessage());
        assertNull(System.getProperty("sluice.test.gadget.initialized"), "the gadget's static initializer ran");
    }

    @Test
    void aHessian2ReferenceThatEndsTheValueIsRead() {
        // hessian2 refers back to a type or an object already written by its index. When that reference is the last
        // thing in a result with no attachments (flag 1), or in a value cut out for a deferred read, fewer bytes are
        // left than the index: a nested String[][] whose second row reuses the type "[string", and a list holding the
        // same map twice.
        Map<String, Object> shared = new HashMap<>(Map.of("k", "v"));
        Object[] values = {new String[][] {{"a"}, {}}, new ArrayList<>(Arrays.asList(shared, shared))};
        for (Object value : values) {
            byte[] body = hessian(1, value);
            byte[] frame = concat(FramingTest.header(Ser.HESSIAN2.id, 20, 41L, body.length), body);
            DubboResponse r = (DubboResponse) Codecs.decodeOne(client(Object.class), frame);
            assertTrue(r.isOk(), r::toString);
            assertSameValue(value, r.value(), "HESSIAN2 " + value.getClass().getSimpleName());
            DubboResponse deferred = (DubboResponse) Codecs.decodeOne(deferringClient(), frame);
            assertSameValue(value, deferred.readValue(Object.class), "HESSIAN2 deferred");
        }
        List<?> twice = (List<?>) ((DubboResponse) Codecs.decodeOne(client(Object.class), concat(FramingTest.header(
                Ser.HESSIAN2.id, 20, 42L, hessian(1, values[1]).length), hessian(1, values[1])))).value();
        assertTrue(twice.get(0) == twice.get(1), "the reference is resolved to the same map");
    }

    private static byte[] hessianString(String s) {
        return hessian(s);
    }
}
