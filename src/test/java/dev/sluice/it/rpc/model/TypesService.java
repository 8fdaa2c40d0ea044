package dev.sluice.it.rpc.model;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/** Every kind of value the interop and standalone suites send both ways. */
public interface TypesService {
    int primitives(int i, long l, double d, float f, boolean b, byte by, short s, char c);

    String echo(String s);

    LocalDateTime time(LocalDate date, LocalTime time, LocalDateTime dateTime, Instant instant);

    BigDecimal money(BigDecimal a, BigInteger b);

    Color color(Color c);

    List<String> list(List<String> in);

    Map<String, Long> map(Map<String, Long> in);

    Set<Integer> set(Set<Integer> in);

    int[] ints(int[] in);

    String[] strings(String[] in);

    Item item(Item in);

    Box<Item> box(Box<Item> in);

    List<Item> items(int n);

    String nullable(String maybeNull);

    void nothing(String ignored);

    int fail(String kind) throws InsufficientFundsException;

    CompletableFuture<String> async(String s, int delayMillis);

    String attachment(String key);

    String slow(int millis);

    void fire(String tag);
}
