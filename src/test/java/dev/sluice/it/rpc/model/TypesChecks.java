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
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * The value round trips every RPC pairing must pass, whoever is client and server (SluiceClient, SluiceServer,
 * Dubbo consumer, Dubbo provider). Used in-process by the standalone tests and in child JVMs by interop scenarios.
 */
public final class TypesChecks {
    private TypesChecks() {
    }

    /** Runs every check; throws AssertionError on the first mismatch. */
    public static void all(TypesService s) throws Exception {
        assertEquals(1 + 2 + 3 + 4 + 1 + 5 + 6 + 'A', s.primitives(1, 2L, 3.9d, 4.2f, true, (byte) 5, (short) 6, 'A'));
        assertEquals(Integer.MIN_VALUE + 1L + Long.MAX_VALUE - Long.MAX_VALUE,
                (long) s.primitives(Integer.MIN_VALUE, 1L, 0d, 0f, false, (byte) 0, (short) 0, '\0'));
        for (String text : new String[] {"", "ascii", "北京市 中关村 中关村大街1号", "emoji 😀🚀 mixed ä", "x".repeat(5000)}) {
            assertEquals(text, s.echo(text));
        }
        LocalDate date = LocalDate.of(1968, 12, 8);
        LocalTime time = LocalTime.of(23, 59, 58, 123_456_789);
        Instant instant = Instant.ofEpochSecond(1_700_000_017L, 5);
        assertEquals(LocalDateTime.of(date, time).plusSeconds(instant.getEpochSecond() % 60), s.time(date, time, LocalDateTime.of(date, time), instant));
        assertEquals(new BigDecimal("12345678901234567890.125"),
                s.money(new BigDecimal("0.125"), new BigInteger("12345678901234567890")));
        assertEquals(Color.GREEN, s.color(Color.RED));
        assertEquals(Color.RED, s.color(Color.BLUE));
        assertEquals(List.of("a", "b", "end"), s.list(new ArrayList<>(List.of("a", "b"))));
        Map<String, Long> m = new HashMap<>();
        m.put("k", Long.MAX_VALUE);
        Map<String, Long> mOut = s.map(m);
        assertEquals(Long.MAX_VALUE, mOut.get("k"));
        assertEquals(1L, mOut.get("size"));
        Set<Integer> set = new HashSet<>(List.of(1, 2, 3));
        assertEquals(set, s.set(set));
        assertArrayEquals(new int[] {2, 4, 6}, s.ints(new int[] {1, 2, 3}));
        assertArrayEquals(new String[] {"x", null, "z"}, s.strings(new String[] {"x", null, "z"}));
        Map<String, Integer> counts = new HashMap<>();
        counts.put("a", 1);
        Item child = new Item("child", new BigDecimal("1.50"), Color.BLUE, null, null);
        Item parent = new Item("parent", new BigDecimal("-3.25"), Color.RED, new ArrayList<>(List.of(child)), counts);
        assertEquals(parent, s.item(parent));
        assertEquals(new Box<>(parent), s.box(new Box<>(parent)));
        List<Item> items = s.items(20);
        assertEquals(20, items.size());
        assertEquals("item19", items.get(19).getName());
        assertEquals(Color.values()[19 % 3], items.get(19).getColor());
        assertNull(s.nullable(null));
        assertEquals("x!", s.nullable("x"));
        s.nothing("void method");
        IllegalStateException state = assertThrows(IllegalStateException.class, () -> s.fail("state"));
        assertEquals("boom: illegal state", state.getMessage());
        IllegalArgumentException arg = assertThrows(IllegalArgumentException.class, () -> s.fail("arg"));
        assertEquals("boom: bad argument", arg.getMessage());
        InsufficientFundsException funds = assertThrows(InsufficientFundsException.class, () -> s.fail("funds"));
        assertEquals("balance 3 < 5", funds.getMessage());
        assertEquals(0, s.fail("none"));
        assertEquals("async:hi", s.async("hi", 20).get(5, TimeUnit.SECONDS));
        assertTrue(s.toString() != null);
    }
}
