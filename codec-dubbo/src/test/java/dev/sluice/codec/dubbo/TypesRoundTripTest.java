package dev.sluice.codec.dubbo;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.codec.dubbo.internal.DubboConstants;
import dev.sluice.codec.dubbo.internal.InterfaceTypeResolver;
import dev.sluice.codec.dubbo.model.Box;
import dev.sluice.codec.dubbo.model.Color;
import dev.sluice.codec.dubbo.model.TypesException;
import dev.sluice.codec.dubbo.model.TypesService;
import dev.sluice.codec.dubbo.model.UndeclaredException;
import java.lang.reflect.Method;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Date;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.dubbo.benchmark.bean.Page;
import org.apache.dubbo.benchmark.bean.User;
import org.apache.dubbo.benchmark.service.UserServiceServerImpl;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Values of every kind survive encode → decode, as arguments and as results. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class TypesRoundTripTest {
    private final ClassAllowlist allowlist = ClassAllowlist.strict();
    private final InterfaceTypeResolver services = new InterfaceTypeResolver(allowlist)
            .register(TypesService.class, "1.0.0");

    private static Method method(String name) {
        for (Method m : TypesService.class.getMethods()) {
            if (m.getName().equals(name)) {
                return m;
            }
        }
        throw new AssertionError(name);
    }

    /** Sends {@code args} to {@code name} and returns what the server decoded. */
    private Object[] roundTripArguments(String name, Object... args) {
        DubboMethod target = DubboMethod.of(TypesService.class, method(name), "1.0.0");
        DubboRequest back = (DubboRequest) Codecs.decodeOne(new DubboDecoder(8 << 20, allowlist, services),
                Codecs.encode(DubboRequest.invocation(1L, target, args, null)));
        assertFalse(back.isBroken(), back::toString);
        assertEquals(target, back.method());
        return back.arguments();
    }

    /** Returns {@code value} from {@code name} and returns what the client decoded. */
    private DubboResponse roundTripResult(String name, Object value) {
        java.lang.reflect.Type type = method(name).getGenericReturnType();
        ClassAllowlist clientList = ClassAllowlist.strict().register(TypesService.class);
        return (DubboResponse) Codecs.decodeOne(new DubboDecoder(8 << 20, clientList,
                DubboTypeResolver.forClient(id -> type)),
                Codecs.encode(DubboResponse.value(2L, (byte) 23, value, DubboResponse.DEFAULT_ATTACHMENTS)));
    }

    private Object roundTripValue(String name, Object value) {
        DubboResponse r = roundTripResult(name, value);
        assertTrue(r.isOk(), r::toString);
        // The same frame through a client decoder that leaves the value to the caller: the same value, parsed here.
        java.lang.reflect.Type type = method(name).getGenericReturnType();
        ClassAllowlist clientList = ClassAllowlist.strict().register(TypesService.class);
        DubboResponse deferred = (DubboResponse) Codecs.decodeOne(new DubboDecoder(8 << 20, clientList,
                DubboTypeResolver.NONE, true),
                Codecs.encode(DubboResponse.value(2L, (byte) 23, value, DubboResponse.DEFAULT_ATTACHMENTS)));
        assertTrue(deferred.isOk(), deferred::toString);
        assertEquals(r.attachments(), deferred.attachments());
        if (r.value() != null) {
            assertTrue(deferred.isValueDeferred(), deferred::toString);
            assertThrows(IllegalStateException.class, deferred::value);
        }
        Object late = deferred.readValue(type);
        assertTrue(java.util.Objects.deepEquals(r.value(), late), () -> r.value() + " != " + late);
        return r.value();
    }

    @Test
    void primitives() {
        Object[] args = {Integer.MIN_VALUE, Long.MAX_VALUE, Math.PI, 1.5f, (short) -300, (byte) 7, '字', true};
        assertArrayEquals(args, roundTripArguments("primitives", args));
        for (int v : new int[] {0, -16, 47, 48, -2048, 2047, 262143, Integer.MAX_VALUE}) {
            assertEquals(v, roundTripValue("primitives", v));
        }
    }

    @Test
    void numbersAreConvertedToTheParameterType() {
        // An int sent for a long parameter (Dubbo observed this works); a long for an int.
        Object[] back = roundTripArguments("primitives", 1L, 2, 3, 4, 5, 6, 'c', false);
        assertEquals(1, back[0]);
        assertEquals(2L, back[1]);
        assertEquals(3.0d, back[2]);
        assertEquals(4.0f, back[3]);
    }

    @Test
    void strings() {
        Object[] args = {"plain ascii", "北京市 中关村 中关村大街1号", "emoji 😀👍🏽 mixed ünïcödé", "a".repeat(5000), ""};
        assertArrayEquals(args, roundTripArguments("strings", args));
        assertEquals("北京😀", roundTripValue("strings", "北京😀"));
        assertEquals("x".repeat(48), roundTripValue("strings", "x".repeat(48)), "first length past the short form");
        assertEquals("é", roundTripValue("strings", "é"), "Latin-1, not ASCII");
    }

    @Test
    void times() {
        Object[] args = {LocalDate.of(1968, 12, 8), LocalDateTime.of(2024, 2, 29, 23, 59, 59, 123_456_789),
            LocalTime.of(7, 8, 9, 10), Instant.ofEpochSecond(1_700_000_000L, 42), Duration.ofMillis(1234),
            OffsetDateTime.of(2020, 1, 2, 3, 4, 5, 6, ZoneOffset.ofHours(8)), new Date(1_600_000_000_123L)};
        Object[] back = roundTripArguments("times", args);
        for (int i = 0; i < args.length; i++) {
            if (args[i] instanceof OffsetDateTime) {
                assertTrue(((OffsetDateTime) args[i]).isEqual((OffsetDateTime) back[i]), back[i]::toString);
            } else {
                assertEquals(args[i], back[i], "argument " + i);
            }
        }
        assertEquals(args[1], roundTripValue("times", args[1]));
    }

    @Test
    void bigNumbersAndNulls() {
        Object[] args = {new BigDecimal("-12345678901234567890.000000001"), new BigInteger("9".repeat(40)), null,
            null};
        assertArrayEquals(args, roundTripArguments("numbers", args));
        assertEquals(new BigDecimal("0.1"), roundTripValue("numbers", new BigDecimal("0.1")));
        DubboResponse nullResult = roundTripResult("numbers", null);
        assertEquals(DubboConstants.RESPONSE_NULL_VALUE_WITH_ATTACHMENTS, nullResult.resultFlag());
        assertNull(nullResult.value());
    }

    @Test
    void enums() {
        Object[] args = {Color.GREEN, List.of(Color.RED, Color.BLUE)};
        assertArrayEquals(args, roundTripArguments("enums", args));
        assertEquals(Color.BLUE, roundTripValue("enums", Color.BLUE));
    }

    @Test
    void collections() {
        Map<String, Integer> map = new HashMap<>(Map.of("a", 1, "b", 2));
        Object[] args = {new ArrayList<>(List.of("x", "y")), new LinkedHashSet<>(List.of(3L, 1L, 2L)), map,
            List.of(List.of("n1"), List.of("n2", "n3"))};
        assertArrayEquals(args, roundTripArguments("collections", args));
        assertEquals(map, roundTripValue("collections", map));
    }

    @Test
    void arrays() {
        User user = new UserServiceServerImpl().getUser(9);
        Object[] args = {new int[] {1, -1, 300}, new String[] {"a", null, "c"}, new long[][] {{1L}, {2L, 3L}},
            new byte[] {0, 1, (byte) 0xff}, new User[] {user}};
        Object[] back = roundTripArguments("arrays", args);
        assertArrayEquals((int[]) args[0], (int[]) back[0]);
        assertArrayEquals((String[]) args[1], (String[]) back[1]);
        assertArrayEquals((long[][]) args[2], (long[][]) back[2]);
        assertArrayEquals((byte[]) args[3], (byte[]) back[3]);
        GoldenVectorsTest.assertDougLea(((User[]) back[4])[0], 9, "");
        assertArrayEquals(new int[] {4, 5}, (int[]) roundTripValue("arrays", new int[] {4, 5}));
    }

    @Test
    void nestedGenericPojos() {
        User user = new UserServiceServerImpl().getUser(3);
        Box<User> box = new Box<>(user, List.of(new Box.Inner(Color.RED, new long[] {1, 2})),
                new HashMap<>(Map.of("k", List.of(1, 2))));
        Page<User> page = new UserServiceServerImpl().listUser(4);
        Object[] back = roundTripArguments("generics", box, page);
        @SuppressWarnings("unchecked")
        Box<User> boxBack = (Box<User>) back[0];
        GoldenVectorsTest.assertDougLea(boxBack.getContent(), 3, "");
        assertEquals(box.getInners(), boxBack.getInners());
        assertEquals(box.getIndex(), boxBack.getIndex());
        Page<?> pageBack = (Page<?>) back[1];
        assertEquals(15, pageBack.getResult().size());
        assertInstanceOf(User.class, pageBack.getResult().get(14));

        @SuppressWarnings("unchecked")
        Box<User> result = (Box<User>) roundTripValue("generics", box);
        assertInstanceOf(User.class, result.getContent());
    }

    @Test
    void objectParameterKeepsTheConcreteType() {
        assertEquals(Color.RED, roundTripArguments("anything", Color.RED)[0]);
        assertInstanceOf(User.class, roundTripArguments("anything", new UserServiceServerImpl().getUser(1))[0]);
        assertEquals(5L, roundTripArguments("anything", 5L)[0]);
        assertNull(roundTripArguments("anything", (Object) null)[0]);
    }

    @Test
    void voidMethodAndDescriptorWithNoArguments() {
        Object[] none = roundTripArguments("nothing", "ignored");
        assertEquals(1, none.length);
        DubboResponse r = roundTripResult("nothing", null);
        assertTrue(r.isOk());
        assertNull(r.value());
    }

    @Test
    void exceptions() {
        ClassAllowlist clientList = ClassAllowlist.strict().register(TypesService.class);
        DubboDecoder client = new DubboDecoder(8 << 20, clientList, DubboTypeResolver.forClient(id -> void.class));
        for (Throwable t : List.of(new TypesException("declared", 42), new IllegalStateException("raw boom"),
                new IllegalArgumentException("with cause", new NullPointerException("inner")))) {
            DubboResponse r = (DubboResponse) Codecs.decodeOne(client, Codecs.encode(
                    DubboResponse.exception(3L, (byte) 23, t, DubboResponse.DEFAULT_ATTACHMENTS)));
            assertTrue(r.isOk(), r::toString);
            assertTrue(r.hasException());
            Throwable back = r.exception();
            assertEquals(t.getClass(), back.getClass());
            assertEquals(t.getMessage(), back.getMessage());
            assertTrue(back.getStackTrace().length > 0, "the stack trace travels");
            assertEquals(t.getStackTrace()[0].toString(), back.getStackTrace()[0].toString());
            if (t instanceof TypesException) {
                assertEquals(42, ((TypesException) back).getCode());
            }
            if (t.getCause() != null) {
                assertEquals("inner", back.getCause().getMessage());
            }
            assertEquals(Map.of("dubbo", "2.0.2"), r.attachments());
        }
        // An exception no service declares is refused on the consumer: the call fails with CLIENT_ERROR.
        DubboResponse refused = (DubboResponse) Codecs.decodeOne(client, Codecs.encode(
                DubboResponse.exception(4L, (byte) 23, new UndeclaredException("nope"), null)));
        assertEquals(4L, refused.id());
        assertEquals(DubboConstants.STATUS_CLIENT_ERROR, refused.status());
        assertTrue(refused.errorMessage().contains(UndeclaredException.class.getName()), refused.errorMessage());
    }

    @Test
    void descriptors() {
        assertEquals("Ljava/lang/String;", DubboDescriptors.desc(String.class));
        assertEquals("J", DubboDescriptors.desc(long.class));
        assertEquals("[I", DubboDescriptors.desc(int[].class));
        assertEquals("IJ[Ljava/lang/String;", DubboDescriptors.desc(int.class, long.class, String[].class));
        assertEquals("Ldev/sluice/codec/dubbo/model/Box$Inner;", DubboDescriptors.desc(Box.Inner.class));
        assertEquals("", DubboDescriptors.desc());
        assertEquals("IJDFSBCZ", DubboDescriptors.desc(method("primitives")));
        assertEquals("[I[Ljava/lang/String;[[J[B[Lorg/apache/dubbo/benchmark/bean/User;",
                DubboDescriptors.desc(method("arrays")));
        assertEquals(List.of("int", "long", "[Ljava.lang.String;", "dev.sluice.codec.dubbo.model.Box$Inner", "[[Z"),
                DubboDescriptors.typeNames("IJ[Ljava/lang/String;Ldev/sluice/codec/dubbo/model/Box$Inner;[[Z"));
        assertArrayEquals(new Class<?>[] {int.class, String[].class, Box.Inner.class, long[][].class},
                DubboDescriptors.classes("I[Ljava/lang/String;Ldev/sluice/codec/dubbo/model/Box$Inner;[[J",
                        getClass().getClassLoader()));
        for (Method m : TypesService.class.getMethods()) {
            assertArrayEquals(m.getParameterTypes(), DubboDescriptors.classes(DubboDescriptors.desc(m),
                    getClass().getClassLoader()), m::toString);
        }
        for (String bad : List.of("[", "L", "Ljava/lang/String", "X", "[V", "L;")) {
            org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                    () -> DubboDescriptors.typeNames(bad), bad);
        }
        assertEquals(Arrays.asList(), DubboDescriptors.typeNames(""));
    }
}
