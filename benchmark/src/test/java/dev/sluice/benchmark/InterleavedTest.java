package dev.sluice.benchmark;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.benchmark.report.JmhJson;
import dev.sluice.benchmark.report.Row;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The interleaved run: the whole Runner against two real server JVMs ({@code raw} and {@code sluice} on loopback) up
 * at once, the targets taking turns per method in a balanced order; and one client JVM's slots in process.
 */
@Timeout(240)
class InterleavedTest {
    private static final Pattern TURN = Pattern.compile("t=(\\d+)\\s+(warm |round) (\\d)/\\d (\\w+)\\s+(\\S+) [\\d.]+"
            + "\\s+(\\S+) [\\d.]+");

    @TempDir
    Path dir;

    @Test
    void theTargetsTakeTurnsPerMethodInBalancedOrderAndEveryRowIsMeasured() throws Exception {
        int port;
        try (ServerSocket free = new ServerSocket(0)) {
            port = free.getLocalPort();
        }
        Settings s = Settings.parse(new String[] {"--targets", "raw,sluice", "--benchmarks", "existUser,getUser",
            "--threads", "1,2", "--warmup-iterations", "1", "--warmup-time", "1", "--iterations", "2", "--time", "1",
            "--host", "127.0.0.1", "--port", String.valueOf(port), "--out", dir.toString(), "--lock-wait", "2"});
        assertTrue(s.interleaved, "the default profile's way");
        ByteArrayOutputStream console = new ByteArrayOutputStream();
        int status = Runner.run(s, new PrintStream(console, true, StandardCharsets.UTF_8));
        String out = console.toString(StandardCharsets.UTF_8);
        assertEquals(0, status, out);

        // per thread count (2 first), round and method, both targets one turn each (in the targets' canonical order,
        // sluice before raw, then the other way round: with two targets the balanced order alternates)
        Matcher m = TURN.matcher(out);
        List<String> turns = new ArrayList<>();
        while (m.find()) {
            assertFalse(m.group(5).equals(m.group(6)), m.group());
            turns.add(m.group(1) + " " + m.group(2) + m.group(3) + " " + m.group(4) + " " + m.group(5) + ","
                    + m.group(6));
        }
        assertEquals(List.of(
                "2 warm 1 existUser sluice,raw", "2 warm 1 getUser sluice,raw",
                "2 round1 existUser raw,sluice", "2 round1 getUser raw,sluice",
                "2 round2 existUser sluice,raw", "2 round2 getUser sluice,raw",
                "1 warm 1 existUser sluice,raw", "1 warm 1 getUser sluice,raw",
                "1 round1 existUser raw,sluice", "1 round1 getUser raw,sluice",
                "1 round2 existUser sluice,raw", "1 round2 getUser sluice,raw"), turns, out);

        List<Row> rows = JmhJson.read(dir.resolve("jmh-result.json"));
        assertEquals(8, rows.size(), rows.toString());
        for (Row r : rows) {
            String what = r.target + " " + r.method + " t=" + r.threads;
            assertEquals(2, r.iterations, what);
            assertTrue(r.opsPerMs > 0, what + " " + r.opsPerMs);
            assertTrue(r.p50Ms > 0 && r.p99Ms >= r.p50Ms, what + " p50 " + r.p50Ms + " p99 " + r.p99Ms);
            assertTrue(r.bytesPerOp > 0, what + " B/op " + r.bytesPerOp);
        }
        assertTrue(Files.exists(dir.resolve("runs").resolve("interleaved-sluice.json")));
        assertTrue(Files.readString(dir.resolve("summary.md")).contains("sluice"));
    }

    /**
     * Over a cycle of rounds every target takes every position and follows every other target equally often, so no
     * target always takes its turn right after the same one (an order rotated by one fails this from three targets).
     */
    @Test
    void noTargetAlwaysFollowsTheSameOneEveryOrderedPairIsAdjacentEquallyOften() {
        for (int n = 1; n <= 7; n++) {
            int cycle = n % 2 == 0 ? n : 2 * n;
            int[][] follows = new int[n][n];
            int[][] positions = new int[n][n];
            for (int round = 0; round < cycle; round++) {
                int[] order = Interleaved.turnOrder(round, n);
                assertEquals(n, order.length);
                boolean[] seen = new boolean[n];
                for (int k = 0; k < n; k++) {
                    assertFalse(seen[order[k]], "round " + round + " of " + n + ": " + Arrays.toString(order));
                    seen[order[k]] = true;
                    positions[order[k]][k]++;
                    if (k > 0) {
                        follows[order[k - 1]][order[k]]++;
                    }
                }
                assertArrayEquals(order, Interleaved.turnOrder(round + cycle, n), "the order repeats every cycle");
            }
            int perPair = n < 2 ? 0 : (cycle * (n - 1)) / (n * (n - 1));
            for (int a = 0; a < n; a++) {
                for (int b = 0; b < n; b++) {
                    assertEquals(a == b ? 0 : perPair, follows[a][b], n + " targets: " + a + " before " + b);
                    assertEquals(cycle / n, positions[a][b], n + " targets: " + a + " at " + b);
                }
            }
        }
        assertArrayEquals(new int[] {0, 1, 3, 2}, Interleaved.turnOrder(0, 4));
        assertThrows(IllegalArgumentException.class, () -> Interleaved.turnOrder(0, 0));
    }

    @Test
    void aSlotCountsOnlyItsWindowsCallsRunsItsThreadCountAndAFailedCallEndsItWithoutStoppingTheNext() throws Exception {
        InterleavedClient client = new InterleavedClient(3);
        client.startCallers();
        AtomicInteger calls = new AtomicInteger();
        Set<String> callers = ConcurrentHashMap.newKeySet();
        String ok = client.slot(() -> {
            callers.add(Thread.currentThread().getName());
            return calls.incrementAndGet();
        }, 3, 20, 200);
        String[] w = ok.split(" ");
        assertEquals("ok", w[0], ok);
        long measured = Long.parseLong(w[1]);
        assertTrue(measured > 0 && measured <= calls.get(), ok + " of " + calls.get() + " calls in all");
        assertTrue(Long.parseLong(w[2]) >= 200_000_000L, "the window's nanos: " + ok);
        assertEquals(3, callers.size(), callers.toString());

        AtomicInteger before = new AtomicInteger();
        IllegalStateException failed = assertThrows(IllegalStateException.class, () -> client.slot(() -> {
            if (before.incrementAndGet() == 50) {
                throw new IllegalArgumentException("call 50 refused");
            }
            return null;
        }, 3, 10, 60_000));
        assertTrue(failed.getMessage().contains("call 50 refused"), failed.getMessage());

        int afterFailure = calls.get();
        Set<String> oneCaller = ConcurrentHashMap.newKeySet();
        String again = client.slot(() -> {
            oneCaller.add(Thread.currentThread().getName());
            return calls.incrementAndGet();
        }, 1, 10, 100);
        assertTrue(again.startsWith("ok ") && Long.parseLong(again.split(" ")[1]) > 0, again);
        assertTrue(calls.get() > afterFailure);
        assertEquals(1, oneCaller.size(), "a one-thread slot in a three-thread client: " + oneCaller);
        assertThrows(IllegalArgumentException.class, () -> client.slot(calls::incrementAndGet, 4, 10, 100));
    }

    @Test
    void aFailedMeasuredTurnDropsOnlyItsRowAndAFailedWarmUpTurnIsOnlyNoted() throws Exception {
        // Two scripted clients speaking InterleavedClient's protocol: every turn answers 2,000 calls in 1 s (100 B
        // each, p50 1 ms), except sluice's first getUser turn (a warm-up) and its second existUser turn (measured).
        String ok = "echo ok 2000 1000000000 200000 1000000 2000000 3000000";
        String failing = "echo ready; n=0; g=0; while read -r cmd m rest; do [ \"$cmd\" = quit ] && exit 0;"
                + " if [ \"$m\" = existUser ]; then n=$((n+1)); if [ $n -eq 2 ]; then echo error existUser timed out;"
                + " continue; fi; fi; if [ \"$m\" = getUser ] && [ $g -eq 0 ]; then g=1; echo error getUser cold;"
                + " continue; fi; " + ok + "; done";
        String steady = "echo ready; while read -r cmd rest; do [ \"$cmd\" = quit ] && exit 0; " + ok + "; done";
        Interleaved.Client sluice = Interleaved.Client.start(Targets.get("sluice"),
                new ProcessBuilder("bash", "-c", failing));
        Interleaved.Client raw = Interleaved.Client.start(Targets.get("raw"), new ProcessBuilder("bash", "-c", steady));
        try {
            assertEquals("ready", sluice.await(10));
            assertEquals("ready", raw.await(10));
            Settings s = Settings.parse(new String[] {"--benchmarks", "existUser,getUser", "--threads", "1",
                "--warmup-iterations", "1", "--warmup-time", "1", "--iterations", "2", "--time", "1"});
            ByteArrayOutputStream console = new ByteArrayOutputStream();
            PrintStream out = new PrintStream(console, true, StandardCharsets.UTF_8);
            Interleaved.measure(s, List.of(sluice, raw), 1, 1, out, out);
            String printed = console.toString(StandardCharsets.UTF_8);
            assertTrue(printed.contains("sluice t=1 getUser (warm-up): getUser cold"), printed);
            assertTrue(printed.contains("sluice t=1 existUser: existUser timed out"), printed);
            assertEquals(null, sluice.failure, "the client goes on");
            assertEquals(List.of("t=1 existUser"), List.copyOf(sluice.failedRows.keySet()));

            Interleaved.write(dir, sluice, "127.0.0.1", 1, s);
            Interleaved.write(dir, raw, "127.0.0.1", 2, s);
            JmhJson.merge(List.of(dir.resolve("runs/interleaved-sluice.json"),
                    dir.resolve("runs/interleaved-raw.json")), dir.resolve("merged.json"), Targets.names());
            List<String> rows = new ArrayList<>();
            for (Row r : JmhJson.read(dir.resolve("merged.json"))) {
                rows.add(r.target + " " + r.method);
                assertEquals(2, r.iterations, r.target + " " + r.method);
                assertEquals(2.0, r.opsPerMs, 1e-9);
                assertEquals(100.0, r.bytesPerOp, 1e-9);
                assertEquals(1.0, r.p50Ms, 1e-9);
            }
            assertEquals(List.of("sluice getUser", "raw existUser", "raw getUser"), rows);
        } finally {
            sluice.process.destroyForcibly();
            raw.process.destroyForcibly();
        }
    }
}
