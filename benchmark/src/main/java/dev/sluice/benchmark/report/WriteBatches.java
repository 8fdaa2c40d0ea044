package dev.sluice.benchmark.report;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;

/**
 * The write batches of a {@code --observe} run, read back from its JFR recordings ({@code dev.sluice.WriteBatch}
 * events, enabled by {@code sluice.jfc}): for each target and side, how many frames each write carried and how long
 * the oldest frame of each write waited between enqueue and flush. Laid out by the Runner as
 * {@code jfr/<target>/t<threads>/*.jfr} (the client JVMs of one thread count, every method, warm-up included) and
 * {@code jfr/<target>/server/*.jfr} (the target's server JVM over all its runs). Single-threaded.
 */
public final class WriteBatches {
    /** Upper bounds (inclusive) of the frames-per-write buckets; the last bucket is open. */
    static final int[] MESSAGE_BOUNDS = {1, 2, 4, 8, 16, 32, 64};
    /** Upper bounds (exclusive) of the oldest-wait buckets, in microseconds; the last bucket is open. */
    static final long[] WAIT_BOUNDS_MICROS = {2, 4, 8, 16, 32, 64, 128, 256, 512, 1024};

    /** The batches of one target on one side ({@code t1}, {@code t32}, ..., or {@code server}). */
    public static final class Series {
        public final String target;
        public final String side;
        public long writes;
        public long frames;
        public long bytes;
        public long direct;
        public long boundHits;
        /** Frames carried by writes of each size bucket ({@link #MESSAGE_BOUNDS}). */
        public final long[] framesBySize = new long[MESSAGE_BOUNDS.length + 1];
        /** Writes by the oldest wait bucket ({@link #WAIT_BOUNDS_MICROS}); direct writes (no wait) are left out. */
        public final long[] writesByWait = new long[WAIT_BOUNDS_MICROS.length + 1];
        private final List<Long> waits = new ArrayList<>();
        private final List<Integer> sizes = new ArrayList<>();

        Series(String target, String side) {
            this.target = target;
            this.side = side;
        }

        /** The thread count of a synchronous client series; 0 for the server's, -1 for an asynchronous one. */
        public int threads() {
            return side.matches("t[0-9]+") ? Integer.parseInt(side.substring(1)) : "server".equals(side) ? 0 : -1;
        }

        /** For the table: "server", "client, 32 threads", "client, async 4x64". */
        public String sideLabel() {
            int t = threads();
            return t == 0 ? "server" : t > 0 ? "client, " + t + " threads" : "client, async " + side.substring(1);
        }

        void add(int messages, long batchBytes, long oldestWaitNanos, boolean isDirect, boolean boundHit) {
            writes++;
            frames += messages;
            bytes += batchBytes;
            sizes.add(messages);
            if (boundHit) {
                boundHits++;
            }
            framesBySize[sizeBucket(messages)] += messages;
            if (isDirect) {
                direct++;
                return;
            }
            waits.add(oldestWaitNanos);
            writesByWait[waitBucket(oldestWaitNanos)]++;
        }

        public double framesPerWrite() {
            return writes == 0 ? Double.NaN : (double) frames / writes;
        }

        /** A percentile of frames per write, over every write. */
        public double sizePercentile(double p) {
            return percentile(sizes, p);
        }

        /** A percentile of the oldest frame's wait in microseconds, over the queued (not direct) writes. */
        public double waitPercentileMicros(double p) {
            return percentile(waits, p) / 1000.0;
        }

        private static <T extends Number> double percentile(List<T> values, double p) {
            if (values.isEmpty()) {
                return Double.NaN;
            }
            long[] sorted = values.stream().mapToLong(Number::longValue).sorted().toArray();
            int i = (int) Math.ceil(p * sorted.length) - 1;
            return sorted[Math.max(0, Math.min(sorted.length - 1, i))];
        }
    }

    static int sizeBucket(int messages) {
        for (int i = 0; i < MESSAGE_BOUNDS.length; i++) {
            if (messages <= MESSAGE_BOUNDS[i]) {
                return i;
            }
        }
        return MESSAGE_BOUNDS.length;
    }

    static int waitBucket(long nanos) {
        for (int i = 0; i < WAIT_BOUNDS_MICROS.length; i++) {
            if (nanos < WAIT_BOUNDS_MICROS[i] * 1000) {
                return i;
            }
        }
        return WAIT_BOUNDS_MICROS.length;
    }

    static String sizeLabel(int bucket) {
        if (bucket == MESSAGE_BOUNDS.length) {
            return ">" + MESSAGE_BOUNDS[bucket - 1];
        }
        int low = bucket == 0 ? 1 : MESSAGE_BOUNDS[bucket - 1] + 1;
        return low == MESSAGE_BOUNDS[bucket] ? String.valueOf(low) : low + "-" + MESSAGE_BOUNDS[bucket];
    }

    static String waitLabel(int bucket) {
        if (bucket == WAIT_BOUNDS_MICROS.length) {
            return "≥" + micros(WAIT_BOUNDS_MICROS[bucket - 1]);
        }
        return "<" + micros(WAIT_BOUNDS_MICROS[bucket]);
    }

    private static String micros(long us) {
        return us >= 1000 && us % 1000 == 0 ? us / 1000 + "ms" : us >= 1000 ? String.format(Locale.ROOT, "%.1fms",
                us / 1000.0) : us + "µs";
    }

    private final List<Series> series;

    private WriteBatches(List<Series> series) {
        this.series = series;
    }

    /** Every series found under {@code jfrDir} ({@code <target>/<side>/*.jfr}); empty when the directory is absent. */
    public static WriteBatches read(Path jfrDir) throws IOException {
        Map<String, Series> found = new TreeMap<>();
        if (Files.isDirectory(jfrDir)) {
            List<Path> files;
            try (Stream<Path> walk = Files.walk(jfrDir)) {
                files = walk.filter(p -> p.toString().endsWith(".jfr")).sorted().toList();
            }
            for (Path file : files) {
                Path rel = jfrDir.relativize(file);
                if (rel.getNameCount() != 3) {
                    continue;
                }
                String target = rel.getName(0).toString();
                String side = rel.getName(1).toString();
                Series s = found.computeIfAbsent(target + '\0' + side, k -> new Series(target, side));
                try (RecordingFile recording = new RecordingFile(file)) {
                    while (recording.hasMoreEvents()) {
                        RecordedEvent e = recording.readEvent();
                        if (e.getEventType().getName().equals("dev.sluice.WriteBatch")) {
                            Duration wait = e.getDuration("oldestWait");
                            s.add(e.getInt("messages"), e.getLong("bytes"), wait.toNanos(), e.getBoolean("direct"),
                                    e.getBoolean("chunkBoundHit"));
                        }
                    }
                } catch (IOException ex) {
                    // A client JVM killed mid-run leaves a truncated file: use what could be read, say so.
                    System.err.println("warning: " + file + ": " + ex.getMessage());
                }
            }
        }
        List<Series> list = new ArrayList<>();
        for (Series s : found.values()) {
            if (s.writes > 0) {
                list.add(s);
            }
        }
        return new WriteBatches(list);
    }

    public List<Series> series() {
        return series;
    }

    public boolean isEmpty() {
        return series.isEmpty();
    }

    /** A markdown table of every series, client sides first by threads, then the servers. */
    public String markdown(List<String> targetOrder) {
        StringBuilder sb = new StringBuilder("## Write batches (JFR, `--observe`)\n\n");
        sb.append("From the `dev.sluice.WriteBatch` events of each JVM (client: every method of one thread count,"
                + " warm-up included; server: all of the target's runs). \"oldest wait\": from enqueue of the oldest"
                + " frame of a write to its flush, queued writes only; \"direct\": written on the event loop with"
                + " nothing queued (no wait). `raw` sends its requests through the same `WriteQueue` as `sluice`;"
                + " its server answers on the event loop, mostly as direct writes.\n\n");
        sb.append("| target | side | writes | frames | frames/write | p50 | p99 | max | oldest wait p50 µs"
                + " | p99 µs | direct | bound hits |\n");
        sb.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (Series s : ordered(targetOrder)) {
            sb.append(String.format(Locale.ROOT, "| %s | %s | %d | %d | %.2f | %.0f | %.0f | %.0f | %.1f | %.1f"
                            + " | %.0f%% | %d |%n", s.target, s.sideLabel(), s.writes, s.frames, s.framesPerWrite(),
                                    s.sizePercentile(0.5),
                    s.sizePercentile(0.99), s.sizePercentile(1.0), s.waitPercentileMicros(0.5),
                    s.waitPercentileMicros(0.99), 100.0 * s.direct / s.writes, s.boundHits));
        }
        sb.append("\n![write batches](write-batches.svg)\n");
        return sb.toString();
    }

    /** Series in report order: targets as {@code targetOrder}, client sides by threads, the server last. */
    List<Series> ordered(List<String> targetOrder) {
        List<Series> out = new ArrayList<>(series);
        out.sort((a, b) -> {
            int c = Integer.compare(index(targetOrder, a.target), index(targetOrder, b.target));
            if (c == 0) {
                c = Integer.compare(rank(a), rank(b));
            }
            if (c == 0) {
                c = a.side.compareTo(b.side);
            }
            return c;
        });
        return out;
    }

    /** Synchronous clients by threads, then asynchronous ones, then the server. */
    private static int rank(Series s) {
        int t = s.threads();
        return t > 0 ? t : t < 0 ? Integer.MAX_VALUE - 1 : Integer.MAX_VALUE;
    }

    private static int index(List<String> order, String v) {
        int i = order.indexOf(v);
        return i < 0 ? Integer.MAX_VALUE : i;
    }
}
