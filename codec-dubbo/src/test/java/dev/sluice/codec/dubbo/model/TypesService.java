package dev.sluice.codec.dubbo.model;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.dubbo.benchmark.bean.Page;
import org.apache.dubbo.benchmark.bean.User;

/** One method per kind of value the codec must carry. */
public interface TypesService {
    int primitives(int i, long l, double d, float f, short s, byte b, char c, boolean z);

    String strings(String ascii, String cjk, String emoji, String longAscii, String empty);

    LocalDateTime times(LocalDate date, LocalDateTime dateTime, LocalTime time, Instant instant, Duration duration,
            OffsetDateTime offset, Date legacy);

    BigDecimal numbers(BigDecimal decimal, BigInteger integer, Integer boxed, Long nullLong);

    Color enums(Color color, List<Color> colors);

    Map<String, Integer> collections(List<String> list, Set<Long> set, Map<String, Integer> map,
            List<List<String>> nested);

    int[] arrays(int[] ints, String[] strings, long[][] grid, byte[] bytes, User[] users);

    Box<User> generics(Box<User> box, Page<User> page);

    Object anything(Object value);

    void nothing(String ignored) throws TypesException;
}
