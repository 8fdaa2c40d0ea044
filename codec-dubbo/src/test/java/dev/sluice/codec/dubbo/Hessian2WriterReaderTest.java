package dev.sluice.codec.dubbo;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.sluice.codec.dubbo.internal.DubboConstants;
import dev.sluice.codec.dubbo.model.Box;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.lang.reflect.Type;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.apache.dubbo.benchmark.bean.Page;
import org.apache.dubbo.benchmark.bean.User;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link Hessian2Writer} writes exactly hessian-lite's bytes and {@link Hessian2Reader} builds exactly hessian-lite's
 * objects from them, for randomized pages of {@code User} (nulls, unicode and surrogate pairs, strings across every
 * length encoding and chunk boundary, ints and longs across every encoding, empty and shared lists, repeated users)
 * and the other UserService bodies; values they do not reproduce are left to hessian-lite, untouched.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class Hessian2WriterReaderTest {
    private static final ClassAllowlist ALLOWLIST = Codecs.userServiceAllowlist();
    private static final Hessian2Values VALUES = new Hessian2Values(ALLOWLIST);
    private static final int[] INTS = {0, 1, -1, -16, -17, 47, 48, -2048, -2049, 2047, 2048, -262144, -262145, 262143,
        262144, Integer.MIN_VALUE, Integer.MAX_VALUE};
    private static final long[] LONGS = {0, -8, -9, 15, 16, -2048, -2049, 2047, 2048, -262144, -262145, 262143, 262144,
        Integer.MIN_VALUE, Integer.MAX_VALUE, Integer.MIN_VALUE - 1L, Integer.MAX_VALUE + 1L, Long.MIN_VALUE,
        Long.MAX_VALUE};

    @Test
    void randomPagesAreWrittenWithHessianLitesBytesAndReadToItsObjects() {
        int fastReads = 0;
        for (int seed = 0; seed < 200; seed++) {
            Random rnd = new Random(seed);
            Page<User> page = page(rnd);
            HashMap<String, Object> attachments = new HashMap<>();
            attachments.put("dubbo", "2.0.2");
            if (rnd.nextBoolean()) {
                attachments.put("trace", string(rnd));
            }
            Object[] body = {DubboConstants.RESPONSE_VALUE_WITH_ATTACHMENTS + 0, page, attachments};
            byte[] bytes = assertSameBytes(body, "seed " + seed);
            if (assertSameObjects(bytes, new Type[] {Object.class, Codecs.PAGE_OF_USER, Map.class}, "seed " + seed)) {
                fastReads++;
            }
        }
        // Only pages with a repeated list or user (back-references) go back to hessian-lite.
        assertTrue(fastReads > 120, "fast reads: " + fastReads);
    }

    @Test
    void theOtherUserServiceBodiesToo() {
        Random rnd = new Random(42);
        for (int i = 0; i < 100; i++) {
            User user = user(rnd, null);
            HashMap<String, Object> attachments = new HashMap<>(Codecs.benchmarkAttachments("1000"));
            // getUser's response, createUser's request (argument and attachments), getUser's and listUser's requests
            byte[] response = assertSameBytes(new Object[] {1, user}, "getUser " + i);
            assertTrue(assertSameObjects(response, new Type[] {Object.class, User.class}, "getUser " + i));
            byte[] request = assertSameBytes(new Object[] {user, attachments}, "createUser " + i);
            assertTrue(assertSameObjects(request, new Type[] {User.class, Map.class}, "createUser " + i));
            byte[] ids = assertSameBytes(new Object[] {LONGS[i % LONGS.length], INTS[i % INTS.length], attachments},
                    "ids " + i);
            assertTrue(assertSameObjects(ids, new Type[] {long.class, int.class, Map.class}, "ids " + i));
        }
    }

    @Test
    void emptyAndNullPages() {
        Page<User> empty = new Page<>();
        empty.setResult(new ArrayList<>());
        Page<User> none = new Page<>();
        for (Page<User> page : List.of(empty, none)) {
            byte[] bytes = assertSameBytes(new Object[] {page}, String.valueOf(page));
            assertTrue(assertSameObjects(bytes, new Type[] {Codecs.PAGE_OF_USER}, String.valueOf(page)));
        }
    }

    @Test
    void valuesItDoesNotReproduceAreLeftToHessianLite() {
        Box unregistered = new Box();
        User user = new User();
        user.setPermissions(new LinkedList<>(List.of(1, 2)));
        Object[][] bodies = {{unregistered}, {new IllegalStateException("x")}, {new int[] {1}}, {user},
            {List.of(1, 2)}, {new java.util.Date(0)}};
        for (Object[] body : bodies) {
            ByteBuf out = Unpooled.buffer();
            try {
                out.writeByte(7);
                assertFalse(Hessian2Writer.get().write(out, 0, Integer.MAX_VALUE, ALLOWLIST,
                        body), () -> "wrote " + body[0].getClass());
                assertEquals(1, out.writerIndex(), "the buffer is left as it was");
            } finally {
                out.release();
            }
        }
        // And without an allowlist no bean is written by it at all.
        ByteBuf out = Unpooled.buffer();
        try {
            assertFalse(Hessian2Writer.get().write(out, 0, Integer.MAX_VALUE, null,
                    new User()));
        } finally {
            out.release();
        }
    }

    @Test
    void aRefusedClassNameFailsAsBeforeAndIsNeverBuilt() {
        byte[] bytes = Hessian2AllowlistTest.objectNaming("dev.sluice.codec.dubbo.gadget.StaticInitGadget");
        Hessian2Bounds.values(bytes, 0, bytes.length, new DecodeBudget(DecodeLimits.DEFAULTS));
        RuntimeException before = assertThrows(RuntimeException.class,
                () -> Hessian2Values.read(VALUES.input(bytes, 0, bytes.length), Object.class));
        RuntimeException now = assertThrows(RuntimeException.class,
                () -> VALUES.readOne(bytes, 0, bytes.length, Object.class));
        assertSame(before.getClass(), now.getClass());
        assertEquals(before.getMessage(), now.getMessage());
        assertThrows(Hessian2Reader.Give.class,
                () -> VALUES.reader(bytes, 0, bytes.length).read(Object.class));
    }

    @Test
    void anIntegralFieldOutOfRangeFailsAsBefore() {
        ByteBuf out = Unpooled.buffer();
        try {
            Hessian2Values.write(out, new User());
            byte[] bytes = ByteBufUtil.getBytes(out);
            // User's first integral field in hessian-lite's order is "status" (an int): make it 2^40, a long.
            int at = indexOfInstanceField(bytes);
            byte[] forged = TestBytes.concat(java.util.Arrays.copyOf(bytes, at),
                    TestBytes.hex("4c 00 00 01 00 00 00 00 00"),
                    java.util.Arrays.copyOfRange(bytes, at + 1, bytes.length));
            Hessian2Bounds.values(forged, 0, forged.length, new DecodeBudget(DecodeLimits.DEFAULTS));
            RuntimeException before = assertThrows(RuntimeException.class,
                    () -> Hessian2Values.read(VALUES.input(forged, 0, forged.length), User.class));
            RuntimeException now = assertThrows(RuntimeException.class,
                    () -> VALUES.readOne(forged, 0, forged.length, User.class));
            assertEquals(before.getMessage(), now.getMessage());
        } finally {
            out.release();
        }
    }

    /** Where the first field value of the only object of {@code bytes} (a default User) starts. */
    private static int indexOfInstanceField(byte[] bytes) {
        for (int i = 0; i < bytes.length; i++) {
            if ((bytes[i] & 0xff) == 0x60) {
                // updateTime, createTime, permissions, birthday are null ('N'), then status (0 = 0x90)
                for (int j = i + 1; j < bytes.length; j++) {
                    if ((bytes[j] & 0xff) == 0x90) {
                        return j;
                    }
                }
            }
        }
        throw new AssertionError("no object in the bytes");
    }

    /** Writes {@code body} both ways; asserts the writer took it and wrote hessian-lite's bytes. */
    private static byte[] assertSameBytes(Object[] body, String what) {
        ByteBuf theirs = Unpooled.buffer();
        ByteBuf ours = Unpooled.buffer();
        try {
            Hessian2Values.write(theirs, body);
            ours.writeBytes(new byte[] {1, 2, 3});
            assertTrue(Hessian2Writer.get().write(ours, 3, Integer.MAX_VALUE, ALLOWLIST, body),
                    () -> what + ": not written by Hessian2Writer");
            ours.skipBytes(3);
            byte[] expected = ByteBufUtil.getBytes(theirs);
            assertArrayEquals(expected, ByteBufUtil.getBytes(ours), what);
            return expected;
        } finally {
            theirs.release();
            ours.release();
        }
    }

    /**
     * Reads {@code bytes} with hessian-lite and through {@link Hessian2Values#readOne}-style fast reading; asserts
     * equal objects. Returns whether {@link Hessian2Reader} read them (false: it gave up, hessian-lite read them).
     */
    private static boolean assertSameObjects(byte[] bytes, Type[] types, String what) {
        int[] starts = Hessian2Bounds.values(bytes, 0, bytes.length, new DecodeBudget(DecodeLimits.DEFAULTS));
        assertEquals(types.length, starts.length - 1, what);
        var in = VALUES.input(bytes, 0, bytes.length);
        Object[] expected = new Object[types.length];
        for (int i = 0; i < types.length; i++) {
            expected[i] = Hessian2Values.read(in, types[i]);
        }
        Hessian2Reader fast = VALUES.reader(bytes, 0, bytes.length);
        assertNotNull(fast);
        try {
            for (int i = 0; i < types.length; i++) {
                assertSameValue(expected[i], Hessian2Values.read(fast, types[i]), what + " value " + i);
            }
            assertEquals(bytes.length, fast.position(), what);
            return true;
        } catch (Hessian2Reader.Give g) {
            // The first value stands alone in these bodies: the fallback reads it as before.
            assertSameValue(expected[0], VALUES.readOne(bytes, 0, starts[1], types[0]), what);
            return false;
        }
    }

    /** Same classes, same data, all the way down (Page has no equals). */
    static void assertSameValue(Object expected, Object actual, String path) {
        if (expected == null || actual == null) {
            assertSame(expected, actual, path);
            return;
        }
        assertSame(expected.getClass(), actual.getClass(), path);
        if (expected instanceof List) {
            List<?> e = (List<?>) expected;
            List<?> a = (List<?>) actual;
            assertEquals(e.size(), a.size(), path);
            for (int i = 0; i < e.size(); i++) {
                assertSameValue(e.get(i), a.get(i), path + "[" + i + "]");
            }
        } else if (expected instanceof Map || expected.getClass().getName().startsWith("java.")) {
            assertEquals(expected, actual, path);
        } else {
            for (Class<?> c = expected.getClass(); c != Object.class; c = c.getSuperclass()) {
                for (Field f : c.getDeclaredFields()) {
                    if (Modifier.isStatic(f.getModifiers())) {
                        continue;
                    }
                    f.setAccessible(true);
                    try {
                        assertSameValue(f.get(expected), f.get(actual), path + "." + f.getName());
                    } catch (IllegalAccessException e) {
                        fail(e);
                    }
                }
            }
        }
    }

    private static Page<User> page(Random rnd) {
        Page<User> page = new Page<>();
        page.setPageNo(anInt(rnd));
        page.setTotal(anInt(rnd));
        int n = rnd.nextInt(8) == 0 ? 0 : rnd.nextInt(20);
        List<User> users = new ArrayList<>();
        User previous = null;
        for (int i = 0; i < n; i++) {
            if (previous != null && rnd.nextInt(25) == 0) {
                users.add(previous); // the same user twice: a back-reference
                continue;
            }
            previous = user(rnd, previous);
            users.add(previous);
        }
        page.setResult(rnd.nextInt(20) == 0 ? null : users);
        return page;
    }

    private static User user(Random rnd, User previous) {
        User u = new User();
        u.setId(aLong(rnd));
        u.setName(string(rnd));
        u.setSex(anInt(rnd));
        u.setBirthday(rnd.nextInt(6) == 0 ? null : LocalDate.of(1 + rnd.nextInt(9999), 1 + rnd.nextInt(12),
                1 + rnd.nextInt(28)));
        u.setEmail(string(rnd));
        u.setMobile(string(rnd));
        u.setAddress(string(rnd));
        u.setIcon(string(rnd));
        if (previous != null && previous.getPermissions() != null && rnd.nextInt(25) == 0) {
            u.setPermissions(previous.getPermissions()); // a shared list: a back-reference
        } else if (rnd.nextInt(8) != 0) {
            int n = rnd.nextInt(3) == 0 ? rnd.nextInt(8) : rnd.nextInt(40);
            List<Integer> p = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                p.add(rnd.nextInt(3) == 0 ? anInt(rnd) : rnd.nextInt(100));
            }
            u.setPermissions(p);
        }
        u.setStatus(anInt(rnd));
        LocalDateTime t = rnd.nextInt(6) == 0 ? null : LocalDateTime.of(LocalDate.of(1970 + rnd.nextInt(100),
                1 + rnd.nextInt(12), 1 + rnd.nextInt(28)), LocalTime.of(rnd.nextInt(24), rnd.nextInt(60),
                rnd.nextInt(60), rnd.nextBoolean() ? 0 : rnd.nextInt(1_000_000_000)));
        u.setCreateTime(t);
        u.setUpdateTime(rnd.nextBoolean() ? t : t == null ? null : t.plusSeconds(rnd.nextInt(100_000)));
        return u;
    }

    private static int anInt(Random rnd) {
        return rnd.nextBoolean() ? INTS[rnd.nextInt(INTS.length)] : rnd.nextInt();
    }

    private static long aLong(Random rnd) {
        return rnd.nextBoolean() ? LONGS[rnd.nextInt(LONGS.length)] : rnd.nextLong() >> rnd.nextInt(64);
    }

    /** Null, empty, ASCII, 2- and 3-byte chars, surrogate pairs, and lengths at every encoding and chunk edge. */
    static String string(Random rnd) {
        switch (rnd.nextInt(12)) {
            case 0:
                return null;
            case 1:
                return "";
            case 2: {
                if (rnd.nextInt(4) != 0) {
                    return "Doug Lea " + rnd.nextInt(100);
                }
                int[] edges = {31, 32, 1023, 1024, 0x8000, 0x8001, 0x10001};
                int len = edges[rnd.nextInt(edges.length)];
                StringBuilder sb = new StringBuilder(len);
                while (sb.length() < len) {
                    sb.append(rnd.nextInt(4) == 0 ? "北" : rnd.nextInt(50) == 0 ? "\uD83D\uDE00" : "a");
                }
                if (rnd.nextBoolean() && len > 0x8000) {
                    sb.setLength(0x7fff);
                    sb.append("\uD83D\uDE00"); // a pair across the first chunk's end
                    while (sb.length() < len) {
                        sb.append('b');
                    }
                }
                return sb.toString();
            }
            default: {
                int len = rnd.nextInt(rnd.nextInt(5) == 0 ? 200 : 40);
                StringBuilder sb = new StringBuilder(len);
                for (int i = 0; i < len; i++) {
                    switch (rnd.nextInt(12)) {
                        case 0 -> sb.append((char) (0x80 + rnd.nextInt(0x780)));
                        case 1 -> sb.append((char) (0x800 + rnd.nextInt(0xd000)));
                        case 2 -> sb.appendCodePoint(0x10000 + rnd.nextInt(0x10000));
                        default -> sb.append((char) (0x20 + rnd.nextInt(0x5f)));
                    }
                }
                return sb.toString();
            }
        }
    }
}
