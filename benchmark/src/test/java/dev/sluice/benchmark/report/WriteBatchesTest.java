package dev.sluice.benchmark.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.benchmark.BenchTarget;
import dev.sluice.benchmark.targets.SluiceTarget;
import dev.sluice.rpc.Serialization;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import jdk.jfr.Recording;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The report step of {@code --observe}: a recording of real calls through the {@code sluice} target, laid out as the
 * Runner lays it out, read back into write batches whose frames add up to the calls made.
 */
@Timeout(60)
class WriteBatchesTest {
    @TempDir
    Path dir;

    @Test
    void bucketsCoverEveryValueOnce() {
        assertEquals(List.of("1", "2", "3-4", "5-8", "9-16", "17-32", "33-64", ">64"),
                Arrays.stream(new int[] {0, 1, 2, 3, 4, 5, 6, 7}).mapToObj(WriteBatches::sizeLabel).toList());
        assertEquals(0, WriteBatches.sizeBucket(1));
        assertEquals(2, WriteBatches.sizeBucket(4));
        assertEquals(7, WriteBatches.sizeBucket(65));
        assertEquals(0, WriteBatches.waitBucket(1_999));
        assertEquals(1, WriteBatches.waitBucket(2_000));
        assertEquals(10, WriteBatches.waitBucket(1_024_000));
        assertEquals("<2µs", WriteBatches.waitLabel(0));
        assertEquals("≥1.0ms", WriteBatches.waitLabel(10));
    }

    @Test
    void framesOfTheRecordedBatchesAddUpToTheCallsMade() throws Exception {
        int threads = 4;
        int perThread = 50;
        int port;
        try (ServerSocket probe = new ServerSocket(0)) {
            port = probe.getLocalPort();
        }
        SluiceTarget target = new SluiceTarget("sluice", Serialization.FASTJSON2);
        Path file = dir.resolve("jfr").resolve("sluice").resolve("t" + threads).resolve("client.jfr");
        Files.createDirectories(file.getParent());
        try (Recording recording = new Recording()) {
            recording.enable("dev.sluice.WriteBatch");
            recording.start();
            try (AutoCloseable server = target.startServer("127.0.0.1", port);
                 BenchTarget.Client client = target.connect(new BenchTarget.ClientConfig("127.0.0.1", port, 10_000))) {
                ExecutorService pool = Executors.newFixedThreadPool(threads);
                try {
                    List<Future<?>> done = new ArrayList<>();
                    for (int t = 0; t < threads; t++) {
                        done.add(pool.submit(() -> {
                            for (int i = 0; i < perThread; i++) {
                                client.service().getUser(i);
                            }
                            return null;
                        }));
                    }
                    for (Future<?> f : done) {
                        f.get(30, TimeUnit.SECONDS);
                    }
                } finally {
                    pool.shutdown();
                }
            }
            recording.stop();
            recording.dump(file);
        }
        WriteBatches batches = WriteBatches.read(dir.resolve("jfr"));
        assertEquals(1, batches.series().size());
        WriteBatches.Series s = batches.series().get(0);
        assertEquals(threads, s.threads());
        // Client and server in one JVM here: every call is one request and one response frame.
        int calls = threads * perThread;
        assertEquals(2L * calls, s.frames);
        assertEquals(2L * calls, Arrays.stream(s.framesBySize).sum());
        assertEquals(s.writes - s.direct, Arrays.stream(s.writesByWait).sum());
        assertTrue(s.writes >= 1 && s.writes <= 2L * calls, String.valueOf(s.writes));
        String svg = WriteBatchChart.render(batches, List.of("sluice"), "test");
        assertTrue(svg.startsWith("<svg") && svg.contains(threads + " threads"), svg);
        assertTrue(batches.markdown(List.of("sluice")).contains("| sluice | client, 4 threads | " + s.writes + " | "
                + 2 * calls + " |"));
    }
}
