package dev.sluice.benchmark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;

class SettingsTest {

    @Test
    void shortIsTheDefault() {
        Settings s = Settings.parse(new String[0]);
        assertEquals("short", s.profile);
        assertEquals(List.of(1, 32), s.threads);
        assertEquals(List.of("thrpt", "sample"), s.modes);
        assertEquals(Settings.METHODS, s.methods);
        assertNull(s.targets);
    }

    @Test
    void fullIsDubboBenchmark() {
        Settings s = Settings.parse(new String[] {"--full"});
        assertEquals(3, s.warmupIterations);
        assertEquals(10, s.warmupSeconds);
        assertEquals(3, s.iterations);
        assertEquals(10, s.seconds);
        assertEquals(List.of(32), s.threads);
    }

    @Test
    void smokeIsOneSecond() {
        Settings s = Settings.parse(new String[] {"--smoke"});
        assertEquals(0, s.warmupIterations);
        assertEquals(1, s.iterations);
        assertEquals(1, s.seconds);
    }

    @Test
    void overridesWinOverTheProfile() {
        Settings s = Settings.parse(new String[] {"--threads", "1,8,32,128", "--full", "--targets", "dubbo-netty4,raw",
            "--benchmarks", "listUser,existUser", "--time", "5"});
        assertEquals(List.of(1, 8, 32, 128), s.threads);
        assertEquals(List.of("dubbo-netty4", "raw"), s.targets);
        assertEquals(List.of("existUser", "listUser"), s.methods); // canonical order
        assertEquals(5, s.seconds);
    }

    @Test
    void rejectsNonsense() {
        assertThrows(Settings.UsageException.class, () -> Settings.parse(new String[] {"--bogus"}));
        assertThrows(Settings.UsageException.class, () -> Settings.parse(new String[] {"--threads", "0"}));
        assertThrows(Settings.UsageException.class, () -> Settings.parse(new String[] {"--benchmarks", "nope"}));
        assertThrows(Settings.UsageException.class, () -> Settings.parse(new String[] {"--threads"}));
    }
}
