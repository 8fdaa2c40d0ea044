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
 * Reads JMH's JSON result file ({@code -rf json}) into {@link Row}s: ops/ms from Throughput entries, percentiles
 * from SampleTime entries, bytes/op from the gc profiler's {@code gc.alloc.rate.norm}. Every report is built from
 * this file, so a past run can be re-rendered ({@code Runner --report DIR}).
 */
public final class JmhJson {

    private JmhJson() {}

    public static List<Row> read(Path file) throws IOException {
        JSONArray entries = JSON.parseArray(Files.readString(file, StandardCharsets.UTF_8));
        Map<String, Row> rows = new LinkedHashMap<>();
        for (int i = 0; i < entries.size(); i++) {
            JSONObject e = entries.getJSONObject(i);
            String bench = e.getString("benchmark");
            String method = bench.substring(bench.lastIndexOf('.') + 1);
            JSONObject params = e.getJSONObject("params");
            String target = params == null || params.getString("target") == null ? "?" : params.getString("target");
            int threads = e.getIntValue("threads");
            Row row = rows.computeIfAbsent(target + "/" + method + "/" + threads, k -> new Row(target, method, threads));
            JSONObject primary = e.getJSONObject("primaryMetric");
            JSONObject secondary = e.getJSONObject("secondaryMetrics");
            double alloc = Double.NaN;
            if (secondary != null && secondary.getJSONObject("gc.alloc.rate.norm") != null) {
                alloc = number(secondary.getJSONObject("gc.alloc.rate.norm").get("score"));
            }
            switch (e.getString("mode")) {
                case "thrpt" -> {
                    row.opsPerMs = perMs(number(primary.get("score")), primary.getString("scoreUnit"));
                    row.opsPerMsError = perMs(number(primary.get("scoreError")), primary.getString("scoreUnit"));
                    if (!Double.isNaN(alloc)) {
                        row.bytesPerOp = alloc;
                    }
                }
                case "sample" -> {
                    JSONObject p = primary.getJSONObject("scorePercentiles");
                    String unit = primary.getString("scoreUnit");
                    row.p50Ms = ms(number(p.get("50.0")), unit);
                    row.p99Ms = ms(number(p.get("99.0")), unit);
                    row.p999Ms = ms(number(p.get("99.9")), unit);
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
            case "s/op" -> v * 1000;
            case "us/op" -> v / 1000;
            case "ns/op" -> v / 1_000_000;
            default -> v; // ms/op
        };
    }
}
