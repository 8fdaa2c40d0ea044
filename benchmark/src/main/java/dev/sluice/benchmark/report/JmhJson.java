package dev.sluice.benchmark.report;

import com.alibaba.fastjson2.JSON;
import com.alibaba.fastjson2.JSONArray;
import com.alibaba.fastjson2.JSONObject;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads JMH's JSON result file ({@code -rf json}) into {@link Row}s: ops/ms from Throughput entries (the median of
 * the measurement iterations, and JMH's mean and error), percentiles from SampleTime entries or else from the
 * {@code call.*} results of {@code CallLatencyProfiler}, bytes/op from the gc profiler's
 * {@code gc.alloc.rate.norm}. Every report is built from this file, so a past run can be re-rendered
 * ({@code Runner --report DIR}).
 */
public final class JmhJson {

    private JmhJson() {}

    /**
     * Writes the entries of every JMH result file in {@code files} (one per run, each JMH's JSON array) into one
     * array in {@code merged}, ordered by target (in {@code targetOrder}), calls in flight, threads, benchmark and
     * mode, as one JMH run of them all would have listed them. Returns the number of entries; with none, writes
     * nothing.
     */
    public static int merge(List<Path> files, Path merged, List<String> targetOrder) throws IOException {
        List<JSONObject> all = new ArrayList<>();
        for (Path f : files) {
            JSONArray entries = JSON.parseArray(Files.readString(f, StandardCharsets.UTF_8));
            for (int i = 0; entries != null && i < entries.size(); i++) {
                all.add(entries.getJSONObject(i));
            }
        }
        if (all.isEmpty()) {
            return 0;
        }
        all.sort(java.util.Comparator.<JSONObject>comparingInt(e -> targetOrder.indexOf(param(e, "target")))
                .thenComparingInt(e -> param(e, "inflight") == null ? 0 : Integer.parseInt(param(e, "inflight")))
                .thenComparingInt(e -> e.getIntValue("threads"))
                .thenComparing(e -> e.getString("benchmark"))
                .thenComparing(e -> e.getString("mode")));
        Files.writeString(merged, JSON.toJSONString(all, com.alibaba.fastjson2.JSONWriter.Feature.PrettyFormat),
                StandardCharsets.UTF_8);
        return all.size();
    }

    private static String param(JSONObject entry, String name) {
        JSONObject params = entry.getJSONObject("params");
        return params == null ? null : params.getString(name);
    }

    public static List<Row> read(Path file) throws IOException {
        JSONArray entries = JSON.parseArray(Files.readString(file, StandardCharsets.UTF_8));
        Map<String, Row> rows = new LinkedHashMap<>();
        for (int i = 0; i < entries.size(); i++) {
            JSONObject e = entries.getJSONObject(i);
            String bench = e.getString("benchmark");
            String method = bench.substring(bench.lastIndexOf('.') + 1);
            JSONObject params = e.getJSONObject("params");
            String target = params == null || params.getString("target") == null ? "?" : params.getString("target");
            int inflight = params == null || params.getString("inflight") == null ? 0
                    : Integer.parseInt(params.getString("inflight"));
            int threads = e.getIntValue("threads");
            Row row = rows.computeIfAbsent(target + "/" + method + "/" + threads + "/" + inflight,
                    k -> new Row(target, method, threads, inflight));
            JSONObject primary = e.getJSONObject("primaryMetric");
            JSONObject secondary = e.getJSONObject("secondaryMetrics");
            double alloc = secondaryScore(secondary, "gc.alloc.rate.norm");
            switch (e.getString("mode")) {
                case "thrpt" -> {
                    String unit = primary.getString("scoreUnit");
                    row.opsPerMsMean = perMs(number(primary.get("score")), unit);
                    row.opsPerMsError = perMs(number(primary.get("scoreError")), unit);
                    double[] iterations = rawData(primary);
                    row.iterations = iterations.length;
                    row.iterationScores = iterations;
                    row.interleaved = "interleaved".equals(e.getString("harness"));
                    row.opsPerMs = iterations.length == 0 ? row.opsPerMsMean : perMs(median(iterations), unit);
                    if (!Double.isNaN(alloc)) {
                        row.bytesPerOp = alloc;
                    }
                    if (!"sample".equals(row.latencySource)) {
                        double p50 = secondaryMs(secondary, "call.p50");
                        if (!Double.isNaN(p50)) {
                            row.p50Ms = p50;
                            row.p99Ms = secondaryMs(secondary, "call.p99");
                            row.p999Ms = secondaryMs(secondary, "call.p99.9");
                            row.latencySource = "calls";
                        }
                    }
                }
                case "sample" -> {
                    // JMH's own sampling (dubbo-benchmark's way) wins over the per-call recorder
                    JSONObject p = primary.getJSONObject("scorePercentiles");
                    String unit = primary.getString("scoreUnit");
                    row.p50Ms = ms(number(p.get("50.0")), unit);
                    row.p99Ms = ms(number(p.get("99.0")), unit);
                    row.p999Ms = ms(number(p.get("99.9")), unit);
                    row.latencySource = "sample";
                    if (Double.isNaN(row.bytesPerOp)) {
                        row.bytesPerOp = alloc;
                    }
                }
                default -> {
                    // avgt and others are not part of the report
                }
            }
        }
        return new ArrayList<>(rows.values());
    }

    private static double secondaryScore(JSONObject secondary, String name) {
        if (secondary == null || secondary.getJSONObject(name) == null) {
            return Double.NaN;
        }
        return number(secondary.getJSONObject(name).get("score"));
    }

    private static double secondaryMs(JSONObject secondary, String name) {
        if (secondary == null || secondary.getJSONObject(name) == null) {
            return Double.NaN;
        }
        JSONObject m = secondary.getJSONObject(name);
        return ms(number(m.get("score")), m.getString("scoreUnit"));
    }

    /** Every measurement iteration's score, all forks together ({@code rawData} is forks x iterations). */
    private static double[] rawData(JSONObject primary) {
        JSONArray forks = primary.getJSONArray("rawData");
        if (forks == null) {
            return new double[0];
        }
        List<Double> out = new ArrayList<>();
        for (int f = 0; f < forks.size(); f++) {
            JSONArray its = forks.getJSONArray(f);
            for (int i = 0; its != null && i < its.size(); i++) {
                double v = number(its.get(i));
                if (!Double.isNaN(v)) {
                    out.add(v);
                }
            }
        }
        return out.stream().mapToDouble(Double::doubleValue).toArray();
    }

    /** The median (the mean of the middle two for an even count); NaN for none. */
    public static double median(double[] values) {
        if (values.length == 0) {
            return Double.NaN;
        }
        double[] v = values.clone();
        java.util.Arrays.sort(v);
        int n = v.length;
        return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    }

    private static double number(Object o) {
        if (o instanceof Number n) {
            return n.doubleValue();
        }
        if (o instanceof String s) {
            try {
                return Double.parseDouble(s); // JMH writes "NaN"
            } catch (NumberFormatException ignored) {
                return Double.NaN;
            }
        }
        return Double.NaN;
    }

    private static double perMs(double v, String unit) {
        return switch (unit) {
            case "ops/s" -> v / 1000;
            case "ops/us" -> v * 1000;
            case "ops/ns" -> v * 1_000_000;
            default -> v; // ops/ms
        };
    }

    private static double ms(double v, String unit) {
        return switch (unit) {
            case "s/op", "s" -> v * 1000;
            case "us/op", "us" -> v / 1000;
            case "ns/op", "ns" -> v / 1_000_000;
            default -> v; // ms/op
        };
    }
}
