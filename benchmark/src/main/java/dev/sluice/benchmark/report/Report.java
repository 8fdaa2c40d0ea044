package dev.sluice.benchmark.report;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;

/** Turns {@link Row}s into the comparison table (plain text and Markdown) and a summary JSON. */
public final class Report {

    private final List<Row> rows;
    private final List<String> targets;
    private final List<String> methods;
    private final String baseline;

    /**
     * @param targets report order of the targets; the first one present is the baseline unless {@code baseline}
     *     is present
     * @param methods report order of the methods
     */
    public Report(List<Row> rows, List<String> targets, List<String> methods, String baseline) {
        this.targets = targets;
        this.methods = methods;
        this.baseline = baseline;
        List<Row> sorted = new ArrayList<>(rows);
        sorted.sort(Comparator.<Row>comparingInt(r -> r.threads)
                .thenComparingInt(r -> index(methods, r.method))
                .thenComparingInt(r -> index(targets, r.target)));
        this.rows = sorted;
    }

    private static int index(List<String> order, String v) {
        int i = order.indexOf(v);
        return i < 0 ? Integer.MAX_VALUE : i;
    }

    public List<Row> rows() {
        return rows;
    }

    public List<Integer> threadCounts() {
        TreeSet<Integer> t = new TreeSet<>();
        rows.forEach(r -> t.add(r.threads));
        return new ArrayList<>(t);
    }

    /** Throughput of the baseline target for the same method and threads divided into this row's; NaN if none. */
    public double ratio(Row row) {
        for (Row r : rows) {
            if (r.target.equals(baseline) && r.method.equals(row.method) && r.threads == row.threads) {
                return row.opsPerMs / r.opsPerMs;
            }
        }
        return Double.NaN;
    }

    private static final String[] HEADER = {
        "method", "target", "ops/ms", "±", "vs " + "base", "p50 µs", "p99 µs", "p99.9 µs", "B/op"
    };

    private List<String[]> cells(int threads) {
        List<String[]> out = new ArrayList<>();
        for (Row r : rows) {
            if (r.threads != threads) {
                continue;
            }
            double ratio = ratio(r);
            out.add(new String[] {
                r.method,
                r.target,
                fixed(r.opsPerMs, 2),
                fixed(r.opsPerMsError, 2),
                Double.isNaN(ratio) ? "-" : String.format(Locale.ROOT, "%.2fx", ratio),
                fixed(r.p50Ms * 1000, 1),
                fixed(r.p99Ms * 1000, 1),
                fixed(r.p999Ms * 1000, 1),
                Double.isNaN(r.bytesPerOp) ? "-" : String.format(Locale.ROOT, "%,.0f", r.bytesPerOp)
            });
        }
        return out;
    }

    private static String fixed(double v, int decimals) {
        return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%." + decimals + "f", v);
    }

    /** Aligned plain-text tables, one per thread count. */
    public String text() {
        StringBuilder sb = new StringBuilder();
        String[] header = HEADER.clone();
        header[4] = "vs " + baseline;
        for (int threads : threadCounts()) {
            List<String[]> cells = cells(threads);
            int[] width = new int[header.length];
            for (int i = 0; i < header.length; i++) {
                width[i] = header[i].length();
                for (String[] c : cells) {
                    width[i] = Math.max(width[i], c[i].length());
                }
            }
            sb.append("threads = ").append(threads).append('\n');
            appendAligned(sb, header, width);
            String previousMethod = null;
            for (String[] c : cells) {
                if (previousMethod != null && !previousMethod.equals(c[0])) {
                    sb.append('\n');
                }
                String[] shown = c.clone();
                if (c[0].equals(previousMethod)) {
                    shown[0] = "";
                }
                previousMethod = c[0];
                appendAligned(sb, shown, width);
            }
            sb.append('\n');
        }
        return sb.toString();
    }

    private static void appendAligned(StringBuilder sb, String[] cells, int[] width) {
        for (int i = 0; i < cells.length; i++) {
            String c = cells[i];
            String pad = " ".repeat(width[i] - c.length());
            sb.append(i < 2 ? c + pad : pad + c);
            sb.append(i == cells.length - 1 ? "" : "  ");
        }
        sb.append('\n');
    }

    /** GitHub-flavoured Markdown tables, one per thread count. */
    public String markdown() {
        StringBuilder sb = new StringBuilder();
        String[] header = HEADER.clone();
        header[4] = "vs " + baseline;
        for (int threads : threadCounts()) {
            sb.append("### ").append(threads).append(threads == 1 ? " thread" : " threads").append("\n\n");
            sb.append("| ").append(String.join(" | ", header)).append(" |\n");
            sb.append("|---|---|").append("---:|".repeat(header.length - 2)).append('\n');
            for (String[] c : cells(threads)) {
                sb.append("| ").append(String.join(" | ", c)).append(" |\n");
            }
            sb.append('\n');
        }
        return sb.toString();
    }

    /** A small JSON document with every row and the run's metadata. */
    public String json(Map<String, String> meta) {
        StringBuilder sb = new StringBuilder("{\n  \"meta\": {");
        boolean first = true;
        for (Map.Entry<String, String> e : meta.entrySet()) {
            sb.append(first ? "\n" : ",\n").append("    ").append(quote(e.getKey())).append(": ")
                    .append(quote(e.getValue()));
            first = false;
        }
        sb.append("\n  },\n  \"baseline\": ").append(quote(baseline)).append(",\n  \"rows\": [");
        first = true;
        for (Row r : rows) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("target", r.target);
            m.put("method", r.method);
            m.put("threads", r.threads);
            m.put("opsPerMs", r.opsPerMs);
            m.put("opsPerMsError", r.opsPerMsError);
            m.put("ratioToBaseline", ratio(r));
            m.put("p50Ms", r.p50Ms);
            m.put("p99Ms", r.p99Ms);
            m.put("p999Ms", r.p999Ms);
            m.put("clientBytesPerOp", r.bytesPerOp);
            sb.append(first ? "\n    {" : ",\n    {");
            boolean f = true;
            for (Map.Entry<String, Object> e : m.entrySet()) {
                sb.append(f ? "" : ", ").append(quote(e.getKey())).append(": ");
                Object v = e.getValue();
                if (v instanceof String s) {
                    sb.append(quote(s));
                } else if (v instanceof Double d) {
                    sb.append(d.isNaN() || d.isInfinite() ? "null" : String.format(Locale.ROOT, "%.6g", d));
                } else {
                    sb.append(v);
                }
                f = false;
            }
            sb.append('}');
            first = false;
        }
        sb.append("\n  ]\n}\n");
        return sb.toString();
    }

    static String quote(String s) {
        StringBuilder sb = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                default -> {
                    if (c < 0x20) {
                        sb.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        return sb.append('"').toString();
    }

    public List<String> targets() {
        return targets;
    }

    public List<String> methods() {
        return methods;
    }

    public String baseline() {
        return baseline;
    }
}
