package dev.sluice.benchmark.report;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * Turns {@link Row}s into the comparison tables (plain text and Markdown, one table per load: a thread count of the
 * synchronous workload, or threads x calls in flight of the asynchronous one) and a summary JSON. Each row's ratio is
 * its throughput over its baseline's (see {@link #baselineOf}) at the same method and load.
 */
public final class Report {

    /** A row whose JMH error is above this fraction of its score is marked: too noisy to quote. */
    public static final double NOISY = 0.10;

    private final List<Row> rows;
    private final List<String> targets;
    private final List<String> methods;
    private final Function<String, String> baselineOf;

    /** Every row compared with one baseline target. */
    public Report(List<Row> rows, List<String> targets, List<String> methods, String baseline) {
        this(rows, targets, methods, t -> baseline);
    }

    /**
     * @param targets report order of the targets
     * @param methods report order of the methods
     * @param baselineOf the target each target's rows are compared with (e.g. Dubbo in the same serialization)
     */
    public Report(List<Row> rows, List<String> targets, List<String> methods, Function<String, String> baselineOf) {
        this.targets = targets;
        this.methods = methods;
        this.baselineOf = baselineOf;
        List<Row> sorted = new ArrayList<>(rows);
        sorted.sort(Comparator.comparing(Row::load)
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

    /** The loads present, synchronous ones first. */
    public List<Row.Load> loads() {
        TreeSet<Row.Load> t = new TreeSet<>();
        rows.forEach(r -> t.add(r.load()));
        return new ArrayList<>(t);
    }

    /** The thread counts of the synchronous rows. */
    public List<Integer> threadCounts() {
        TreeSet<Integer> t = new TreeSet<>();
        rows.stream().filter(r -> r.inflight == 0).forEach(r -> t.add(r.threads));
        return new ArrayList<>(t);
    }

    /** The target {@code target}'s rows are compared with. */
    public String baselineOf(String target) {
        return baselineOf.apply(target);
    }

    /**
     * This row's throughput divided by its baseline's for the same method and load; NaN if that is missing. Rows
     * measured interleaved (round i of both taken seconds apart) give the Hodges-Lehmann estimate of the per-round
     * ratios ({@link #hodgesLehmann}), so a slow stretch of the machine that slowed both turns of a round cancels out
     * and one odd round moves the figure little; other rows the ratio of the medians.
     */
    public double ratio(Row row) {
        Row base = baselineRow(row);
        if (base == null) {
            return Double.NaN;
        }
        return pairedRounds(row, base) ? hodgesLehmann(perRoundRatios(row, base)) : row.opsPerMs / base.opsPerMs;
    }

    /** The baseline's row for the same method and load as {@code row}, or null. */
    private Row baselineRow(Row row) {
        String baseline = baselineOf(row.target);
        for (Row r : rows) {
            if (r.target.equals(baseline) && r.method.equals(row.method) && r.load().equals(row.load())) {
                return r;
            }
        }
        return null;
    }

    private static boolean pairedRounds(Row a, Row b) {
        return a.interleaved && b.interleaved && a.iterationScores.length > 0
                && a.iterationScores.length == b.iterationScores.length;
    }

    private static double[] perRoundRatios(Row a, Row b) {
        double[] r = new double[a.iterationScores.length];
        for (int i = 0; i < r.length; i++) {
            r[i] = a.iterationScores[i] / b.iterationScores[i];
        }
        return r;
    }

    /**
     * For a row whose rounds pair up with its baseline's (see {@link #ratio}): the confidence interval of its ratio,
     * {@code [low, high]}, from the per-round ratios by Wilcoxon's signed-rank method (the interval that goes with the
     * Hodges-Lehmann estimate): the k-th lowest and k-th highest of the pairwise geometric means, k the largest with
     * at least {@link #CONFIDENCE} coverage ({@link #rangeConfidence(int)}; below 6 rounds the whole span, with less).
     * How far this run's ratio can be trusted. Null for other rows and for the baseline's own.
     */
    public double[] ratioRange(Row row) {
        Row base = baselineRow(row);
        if (base == null || base == row || !pairedRounds(row, base)) {
            return null; // the baseline's own row is 1.00x in every round
        }
        double[] w = walshAverages(perRoundRatios(row, base));
        int k = signedRankK(row.iterationScores.length);
        return new double[] {Math.exp(w[k - 1]), Math.exp(w[w.length - k])};
    }

    /** The coverage {@link #ratioRange} aims for. */
    static final double CONFIDENCE = 0.95;

    /**
     * The Hodges-Lehmann estimate of the ratios: the median, over every pair of rounds (a round with itself
     * included), of the pair's geometric mean. As robust as the median against one odd round, and for rounds with
     * normal noise nearly as precise as the mean (95 % efficiency against the median's 64 %): two runs agree with
     * fewer rounds.
     */
    static double hodgesLehmann(double[] ratios) {
        return Math.exp(JmhJson.median(walshAverages(ratios)));
    }

    /** The means of the logarithms of every pair of {@code ratios} (each with itself included), sorted. */
    private static double[] walshAverages(double[] ratios) {
        int n = ratios.length;
        double[] logs = new double[n];
        for (int i = 0; i < n; i++) {
            logs[i] = Math.log(ratios[i]);
        }
        double[] w = new double[n * (n + 1) / 2];
        int m = 0;
        for (int i = 0; i < n; i++) {
            for (int j = i; j < n; j++) {
                w[m++] = (logs[i] + logs[j]) / 2;
            }
        }
        java.util.Arrays.sort(w);
        return w;
    }

    /**
     * The largest k for which the k-th lowest to the k-th highest of n rounds' Walsh averages holds the true ratio
     * with at least {@link #CONFIDENCE} (1 below 6 rounds, where even the whole span holds it with less).
     */
    static int signedRankK(int n) {
        return (int) signedRankInterval(n)[0];
    }

    /** For {@link #ratioRange} with n rounds: its coverage (rounds taken as independent and symmetric in noise). */
    static double rangeConfidence(int n) {
        return signedRankInterval(n)[1];
    }

    /** {@code {k, coverage}} of {@link #signedRankK}: k grows while one more rank sum outside keeps the coverage. */
    private static double[] signedRankInterval(int n) {
        double[] counts = signedRankCounts(n);
        double all = Math.pow(2, n);
        int k = 1;
        double below = counts[0]; // subsets with rank sums 0 .. k-1
        while (k < counts.length && 1 - 2 * (below + counts[k]) / all >= CONFIDENCE) {
            below += counts[k];
            k++;
        }
        return new double[] {k, 1 - 2 * below / all};
    }

    /** How many subsets of the ranks 1..n sum to each s, 0 to n(n+1)/2: Wilcoxon's signed-rank distribution. */
    private static double[] signedRankCounts(int n) {
        double[] c = new double[n * (n + 1) / 2 + 1];
        c[0] = 1;
        for (int r = 1; r <= n; r++) {
            for (int s = c.length - 1; s >= r; s--) {
                c[s] += c[s - r];
            }
        }
        return c;
    }

    /** Whether JMH's error is over {@link #NOISY} of the row's score. */
    public static boolean noisy(Row row) {
        return row.relativeError() > NOISY;
    }

    private static final String[] HEADER = {
        "method", "target", "ops/ms", "±", "ratio", "p50 µs", "p99 µs", "p99.9 µs", "B/op"
    };

    private List<String[]> cells(Row.Load load) {
        List<String[]> out = new ArrayList<>();
        for (Row r : rows) {
            if (!r.load().equals(load)) {
                continue;
            }
            double ratio = ratio(r);
            double[] range = ratioRange(r);
            out.add(new String[] {
                r.method,
                r.target,
                fixed(r.opsPerMs, 2),
                fixed(r.opsPerMsError, 2) + (noisy(r) ? " !" : ""),
                Double.isNaN(ratio) ? "-" : String.format(Locale.ROOT, "%.2fx", ratio) + (range == null ? ""
                        : String.format(Locale.ROOT, " (%.2f-%.2f)", range[0], range[1])),
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

    /** What the columns mean, for the lines under the tables. */
    public List<String> legend() {
        List<String> out = new ArrayList<>();
        out.add("ops/ms: median of the measurement iterations (Throughput mode);"
                + " ±: JMH's 99.9 % error of their mean.");
        Map<String, List<String>> byBaseline = new TreeMap<>();
        for (String t : presentTargets()) {
            byBaseline.computeIfAbsent(baselineOf(t), k -> new ArrayList<>()).add(t);
        }
        for (Map.Entry<String, List<String>> e : byBaseline.entrySet()) {
            boolean present = rows.stream().anyMatch(r -> r.target.equals(e.getKey()));
            out.add("ratio: ops/ms over " + e.getKey() + "'s at the same method and load, for "
                    + String.join(", ", e.getValue()) + (present ? "." : " (" + e.getKey() + " not in this run)."));
        }
        if (rows.stream().anyMatch(r -> r.interleaved)) {
            out.add("interleaved: the targets took turns per method, round after round; ops/ms is the median of the"
                    + " rounds, ratio the Hodges-Lehmann estimate of the per-round ratios (the median of the geometric"
                    + " means of every pair of rounds), percentiles and B/op (every thread's allocation counter) the"
                    + " median of the rounds'.");
            int n = rows.stream().filter(r -> r.interleaved).mapToInt(r -> r.iterationScores.length).max().orElse(0);
            if (n > 0) {
                out.add(String.format(Locale.ROOT, "(a-b) after a ratio: its %.1f %% confidence interval with %d rounds"
                        + " (Wilcoxon signed-rank, rounds taken as independent)%s. Quote a ratio with its interval.",
                        100 * rangeConfidence(n), n, n >= 6 ? "" : "; the whole span of the rounds, below 6 rounds"));
            }
        }
        boolean sample = rows.stream().anyMatch(r -> "sample".equals(r.latencySource));
        boolean calls = rows.stream().anyMatch(r -> "calls".equals(r.latencySource));
        if (sample) {
            out.add("percentiles" + (calls ? " of rows with SampleTime data" : "")
                    + ": JMH SampleTime mode (the whole benchmark method, as dubbo-benchmark).");
        }
        if (calls) {
            out.add("percentiles" + (sample ? " of the other rows" : "")
                    + ": every call's own duration (per-call recorder, mean of the iterations' percentiles);"
                    + " async: issue to future completion.");
        }
        out.add("B/op: client JVM allocation per call (gc profiler); the server's is not measured.");
        if (rows.stream().anyMatch(Report::noisy)) {
            boolean interleaved = rows.stream().anyMatch(r -> r.interleaved && noisy(r));
            boolean other = rows.stream().anyMatch(r -> !r.interleaved && noisy(r));
            out.add("!: JMH's error is over " + Math.round(NOISY * 100) + " % of the score: the iterations disagree"
                    + (interleaved ? "; quote an interleaved row's ops/ms only with its ± (its ratio has its own"
                            + " interval, from rounds paired with the baseline's)" : "")
                    + (other ? (interleaved ? "; do not quote another row marked so." : ", do not quote this row.")
                            : "."));
        }
        return out;
    }

    private List<String> presentTargets() {
        List<String> out = new ArrayList<>();
        for (String t : targets) {
            if (rows.stream().anyMatch(r -> r.target.equals(t))) {
                out.add(t);
            }
        }
        rows.stream().map(r -> r.target).filter(t -> !out.contains(t)).distinct().forEach(out::add);
        return out;
    }

    /** Aligned plain-text tables, one per load, then the legend. */
    public String text() {
        StringBuilder sb = new StringBuilder();
        String[] header = HEADER;
        for (Row.Load load : loads()) {
            List<String[]> cells = cells(load);
            int[] width = new int[header.length];
            for (int i = 0; i < header.length; i++) {
                width[i] = header[i].length();
                for (String[] c : cells) {
                    width[i] = Math.max(width[i], c[i].length());
                }
            }
            sb.append(load.async() ? load.label() : "threads = " + load.threads()).append('\n');
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
        if (!rows.isEmpty()) {
            legend().forEach(l -> sb.append(l).append('\n'));
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

    /** GitHub-flavoured Markdown tables, one per load, then the legend. */
    public String markdown() {
        StringBuilder sb = new StringBuilder();
        String[] header = HEADER;
        for (Row.Load load : loads()) {
            sb.append("### ").append(load.label()).append("\n\n");
            sb.append("| ").append(String.join(" | ", header)).append(" |\n");
            sb.append("|---|---|").append("---:|".repeat(header.length - 2)).append('\n');
            for (String[] c : cells(load)) {
                sb.append("| ").append(String.join(" | ", c)).append(" |\n");
            }
            sb.append('\n');
        }
        if (!rows.isEmpty()) {
            legend().forEach(l -> sb.append("* ").append(l).append('\n'));
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
        sb.append("\n  },\n  \"rows\": [");
        first = true;
        for (Row r : rows) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("target", r.target);
            m.put("method", r.method);
            m.put("threads", r.threads);
            m.put("inflightPerThread", r.inflight);
            m.put("opsPerMs", r.opsPerMs);
            m.put("opsPerMsMean", r.opsPerMsMean);
            m.put("opsPerMsError", r.opsPerMsError);
            m.put("iterations", r.iterations);
            m.put("noisy", noisy(r));
            m.put("baseline", baselineOf(r.target));
            m.put("ratioToBaseline", ratio(r));
            double[] range = ratioRange(r);
            if (range != null) { // the ratio's signed-rank confidence interval
                m.put("ratioLow", range[0]);
                m.put("ratioHigh", range[1]);
            }
            m.put("p50Ms", r.p50Ms);
            m.put("p99Ms", r.p99Ms);
            m.put("p999Ms", r.p999Ms);
            m.put("latencySource", r.latencySource);
            m.put("clientBytesPerOp", r.bytesPerOp);
            sb.append(first ? "\n    {" : ",\n    {");
            boolean f = true;
            for (Map.Entry<String, Object> e : m.entrySet()) {
                sb.append(f ? "" : ", ").append(quote(e.getKey())).append(": ");
                Object v = e.getValue();
                if (v == null) {
                    sb.append("null");
                } else if (v instanceof String s) {
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

}
