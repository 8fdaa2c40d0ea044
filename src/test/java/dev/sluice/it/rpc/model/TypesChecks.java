package dev.sluice.it.rpc.model;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * The value round trips every RPC pairing must pass, whoever is client and server (SluiceClient, SluiceServer,
 * Dubbo consumer, Dubbo provider). Used in-process by the standalone tests and in child JVMs by the conformance suite,
 * which report each named check ({@link #checks()}) as its own result.
 */
public final class TypesChecks {
    /** One named round trip against a {@link TypesService}; throws AssertionError on a mismatch. */
    @FunctionalInterface
    public interface Check {
        void run(TypesService s) throws Exception;
    }

    private static final Map<String, Check> CHECKS = build();

    private TypesChecks() {
    }

    /** Every check by name, in a fixed order. */
    public static Map<String, Check> checks() {
        return CHECKS;
    }

    /** Runs every check; throws AssertionError on the first mismatch. */
    public static void all(TypesService s) throws Exception {
        for (Check check : CHECKS.values()) {
            check.run(s);
        }
    }

    private static Map<String, Check> build() {
        Map<String, Check> c = new LinkedHashMap<>();
        c.put("primitives", s -> {
            assertEquals(1 + 2 + 3 + 4 + 1 + 5 + 6 + 'A',
                    s.primitives(1, 2L, 3.9d, 4.2f, true, (byte) 5, (short) 6, 'A'));
            assertEquals(Integer.MIN_VALUE + 1L + Long.MAX_VALUE - Long.MAX_VALUE,
                    (long) s.primitives(Integer.MIN_VALUE, 1L, 0d, 0f, false, (byte) 0, (short) 0, '\0'));
        });
        c.put("string-empty", s -> assertEquals("", s.echo("")));
        c.put("string-ascii", s -> assertEquals("ascii", s.echo("ascii")));
        c.put("string-cjk", s -> assertEquals("北京市 中关村 中关村大街1号", s.echo("北京市 中关村 中关村大街1号")));
        c.put("string-emoji", s -> assertEquals("emoji 😀🚀 mixed ä", s.echo("emoji 😀🚀 mixed ä")));
        c.put("string-long", s -> assertEquals("x".repeat(5000), s.echo("x".repeat(5000))));
        c.put("java-time", s -> {
            LocalDate date = LocalDate.of(1968, 12, 8);
            LocalTime time = LocalTime.of(23, 59, 58, 123_456_789);
            Instant instant = Instant.ofEpochSecond(1_700_000_017L, 5);
            assertEquals(LocalDateTime.of(date, time).plusSeconds(instant.getEpochSecond() % 60),
                    s.time(date, time, LocalDateTime.of(date, time), instant));
        });
        c.put("bigdecimal", s -> assertEquals(new BigDecimal("12345678901234567890.125"),
                s.money(new BigDecimal("0.125"), new BigInteger("12345678901234567890"))));
        c.put("enum", s -> {
            assertEquals(Color.GREEN, s.color(Color.RED));
            assertEquals(Color.RED, s.color(Color.BLUE));
        });
        c.put("list", s -> assertEquals(List.of("a", "b", "end"), s.list(new ArrayList<>(List.of("a", "b")))));
        c.put("map", s -> {
            Map<String, Long> m = new HashMap<>();
            m.put("k", Long.MAX_VALUE);
            Map<String, Long> mOut = s.map(m);
            assertEquals(Long.MAX_VALUE, mOut.get("k"));
            assertEquals(1L, mOut.get("size"));
        });
        c.put("set", s -> {
            Set<Integer> set = new HashSet<>(List.of(1, 2, 3));
            assertEquals(set, s.set(set));
        });
        c.put("int-array", s -> assertArrayEquals(new int[] {2, 4, 6}, s.ints(new int[] {1, 2, 3})));
        c.put("string-array", s -> assertArrayEquals(new String[] {"x", null, "z"},
                s.strings(new String[] {"x", null, "z"})));
        c.put("pojo-nested", s -> assertEquals(parent(), s.item(parent())));
        c.put("pojo-generic", s -> assertEquals(new Box<>(parent()), s.box(new Box<>(parent()))));
        c.put("pojo-list", s -> {
            List<Item> items = s.items(20);
            assertEquals(20, items.size());
            assertEquals("item19", items.get(19).getName());
            assertEquals(Color.values()[19 % 3], items.get(19).getColor());
        });
        c.put("null", s -> {
            assertNull(s.nullable(null));
            assertEquals("x!", s.nullable("x"));
        });
        c.put("void", s -> s.nothing("void method"));
        c.put("exception-jdk-state", s -> {
            IllegalStateException state = assertThrows(IllegalStateException.class, () -> s.fail("state"));
            assertEquals("boom: illegal state", state.getMessage());
        });
        c.put("exception-jdk-argument", s -> {
            IllegalArgumentException arg = assertThrows(IllegalArgumentException.class, () -> s.fail("arg"));
            assertEquals("boom: bad argument", arg.getMessage());
        });
        c.put("exception-checked", s -> {
            InsufficientFundsException funds = assertThrows(InsufficientFundsException.class, () -> s.fail("funds"));
            assertEquals("balance 3 < 5", funds.getMessage());
            assertEquals(0, s.fail("none"));
        });
        c.put("async", s -> assertEquals("async:hi", s.async("hi", 20).get(5, TimeUnit.SECONDS)));
        c.put("proxy-tostring", s -> assertTrue(s.toString() != null));
        return Collections.unmodifiableMap(c);
    }

    private static Item parent() {
        Map<String, Integer> counts = new HashMap<>();
        counts.put("a", 1);
        Item child = new Item("child", new BigDecimal("1.50"), Color.BLUE, null, null);
        return new Item("parent", new BigDecimal("-3.25"), Color.RED, new ArrayList<>(List.of(child)), counts);
    }
}
