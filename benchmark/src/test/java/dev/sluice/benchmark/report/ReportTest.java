package dev.sluice.benchmark.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;

@org.junit.jupiter.api.Timeout(30)
class ReportTest {

    private static Row row(String target, String method, int threads, double ops) {
        return row(target, method, threads, 0, ops, ops / 10);
    }

    private static Row row(String target, String method, int threads, int inflight, double ops, double error) {
        Row r = new Row(target, method, threads, inflight);
        r.opsPerMs = ops;
        r.opsPerMsMean = ops;
        r.opsPerMsError = error;
        r.latencySource = "calls";
        r.p50Ms = 0.5;
        r.p99Ms = 2.25;
        r.p999Ms = 9;
        r.bytesPerOp = 12345;
        return r;
    }

    private final Report report = new Report(
            List.of(row("sluice", "getUser", 32, 30), row("dubbo-netty4", "getUser", 32, 20),
                    row("dubbo-netty4", "existUser", 32, 25), row("dubbo-netty4", "getUser", 1, 2)),
            List.of("dubbo-netty4", "dubbo-sluice", "sluice"),
                    List.of("createUser", "existUser", "getUser", "listUser"),
            "dubbo-netty4");

    @Test
    void sortsByThreadsMethodAndTargetAndComputesRatios() {
        List<Row> rows = report.rows();
        assertEquals(1, rows.get(0).threads);
        assertEquals("existUser", rows.get(1).method);
        assertEquals("dubbo-netty4", rows.get(2).target);
        assertEquals("sluice", rows.get(3).target);
        assertEquals(1.5, report.ratio(rows.get(3)), 1e-9);
        assertEquals(List.of(1, 32), report.threadCounts());
    }

    @Test
    void tablesShowMicrosecondsRatiosAndBytes() {
        String text = report.text();
        assertTrue(text.contains("threads = 32"), text);
        assertTrue(text.contains("1.50x"), text);
        assertTrue(text.contains("2250.0"), text); // p99 2.25 ms in µs
        assertTrue(text.contains("12,345"), text);
        String md = report.markdown();
        assertTrue(md.contains("| getUser | sluice | 30.00 | 3.00 | 1.50x |"), md);
        assertTrue(md.contains("### 32 threads"), md);
        assertTrue(md.contains(
                "ratio: ops/ms over dubbo-netty4's at the same method and load, for dubbo-netty4, sluice"), md);
        assertTrue(!md.contains("do not quote"), md); // every error here is exactly 10 %: not marked
    }

    @Test
    void jsonAndSvgAreWellFormed() throws Exception {
        String json = report.json(Map.of("a \"quoted\"", "line\nbreak"));
        assertTrue(json.contains("\"a \\\"quoted\\\"\": \"line\\nbreak\""), json);
        assertTrue(json.contains("\"ratioToBaseline\": 1.50000"), json);

        String svg = SvgChart.render(report, "t <&> t");
        Document doc = DocumentBuilderFactory.newInstance().newDocumentBuilder()
                .parse(new ByteArrayInputStream(svg.getBytes(StandardCharsets.UTF_8)));
        assertEquals("svg", doc.getDocumentElement().getNodeName());
        // one bar per row in each of the two panels (throughput, p99), plus background, frames and legend
        assertTrue(doc.getElementsByTagName("rect").getLength() >= 2 * 4);
    }

    /**
     * A chart of every target of {@code --targets all} (the smoke's): each target's bars and legend swatch in a colour
     * of its own, and the whole legend inside the chart.
     */
    @Test
    void aChartOfEveryTargetGivesEachItsOwnColourAndShowsTheWholeLegend() throws Exception {
        List<String> all = dev.sluice.benchmark.Targets.group(dev.sluice.benchmark.Targets.ALL);
        List<Row> rows = all.stream().map(t -> row(t, "listUser", 32, 10)).toList();
        Report every = new Report(rows, dev.sluice.benchmark.Targets.names(), List.of("listUser"),
                dev.sluice.benchmark.Targets::baselineOf);
        String svg = SvgChart.render(every, "all");
        Document doc = DocumentBuilderFactory.newInstance().newDocumentBuilder()
                .parse(new ByteArrayInputStream(svg.getBytes(StandardCharsets.UTF_8)));
        int width = Integer.parseInt(doc.getDocumentElement().getAttribute("width"));
        java.util.Set<String> swatches = new java.util.LinkedHashSet<>();
        org.w3c.dom.NodeList rects = doc.getElementsByTagName("rect");
        for (int i = 0; i < rects.getLength(); i++) {
            org.w3c.dom.Element r = (org.w3c.dom.Element) rects.item(i);
            if ("14".equals(r.getAttribute("width")) && "14".equals(r.getAttribute("height"))) {
                swatches.add(r.getAttribute("fill"));
            }
        }
        assertEquals(all.size(), swatches.size(), "one colour per target: " + swatches);
        org.w3c.dom.NodeList texts = doc.getElementsByTagName("text");
        for (int i = 0; i < texts.getLength(); i++) {
            org.w3c.dom.Element t = (org.w3c.dom.Element) texts.item(i);
            if (all.contains(t.getTextContent())) {
                int end = Integer.parseInt(t.getAttribute("x")) + 8 * t.getTextContent().length();
                assertTrue(end <= width, t.getTextContent() + " ends at " + end + " of " + width);
            }
        }
    }

    private final Report mixed = new Report(
            List.of(row("dubbo-netty4", "listUser", 32, 20), row("sluice", "listUser", 32, 40),
                    row("dubbo-netty4-hessian2", "listUser", 32, 10), row("sluice-hessian2", "listUser", 32, 0, 35, 7),
                    row("dubbo-netty4", "listUser", 4, 64, 50, 1), row("sluice", "listUser", 4, 64, 400, 2),
                    row("sluice", "listUser", 32, 8, 300, 3), row("dubbo-netty4", "listUser", 1, 64, 30, 1)),
            List.of("dubbo-netty4", "sluice", "raw", "dubbo-netty4-hessian2", "sluice-hessian2"),
            List.of("createUser", "existUser", "getUser", "listUser"),
            t -> t.endsWith("-hessian2") ? "dubbo-netty4-hessian2" : "dubbo-netty4");

    @Test
    void eachRowIsComparedWithItsOwnBaselineAtTheSameLoad() {
        Row sluiceHessian2 = find(mixed, "sluice-hessian2", 32, 0);
        assertEquals(3.5, mixed.ratio(sluiceHessian2), 1e-9); // 35 / dubbo-netty4-hessian2's 10, not dubbo-netty4's 20
        assertEquals(2.0, mixed.ratio(find(mixed, "sluice", 32, 0)), 1e-9);
        assertEquals(8.0, mixed.ratio(find(mixed, "sluice", 4, 64)), 1e-9); // async against async, same load
        assertTrue(Double.isNaN(mixed.ratio(find(mixed, "sluice", 32, 8)))); // no dubbo-netty4 at 32 x 8
        Report alone = new Report(List.of(row("sluice", "getUser", 32, 30)), List.of("dubbo-netty4", "sluice"),
                List.of("getUser"), "dubbo-netty4");
        assertTrue(alone.text().contains("for sluice (dubbo-netty4 not in this run)."), alone.text());
        assertTrue(alone.text().contains("getUser  sluice   30.00  3.00      -"), alone.text());
        String text = mixed.text();
        assertTrue(text.contains("ratio: ops/ms over dubbo-netty4-hessian2's at the same method and load, for"
                + " dubbo-netty4-hessian2, sluice-hessian2"), text);
    }

    @Test
    void loadsAreSyncFirstThenAsyncWithTheirOwnTables() {
        assertEquals(List.of(new Row.Load(32, 0), new Row.Load(1, 64), new Row.Load(4, 64), new Row.Load(32, 8)),
                mixed.loads());
        assertEquals(List.of(32), mixed.threadCounts());
        String md = mixed.markdown();
        int sync = md.indexOf("### 32 threads");
        int async1 = md.indexOf("### async, 1 thread x 64 in flight");
        int async4 = md.indexOf("### async, 4 threads x 64 in flight");
        int async32 = md.indexOf("### async, 32 threads x 8 in flight");
        assertTrue(sync >= 0 && sync < async1 && async1 < async4 && async4 < async32, md);
        assertTrue(mixed.text().contains("async, 4 threads x 64 in flight\n"), mixed.text());
        String json = mixed.json(Map.of());
        assertTrue(json.contains("\"inflightPerThread\": 64"), json);
        assertTrue(json.contains("\"baseline\": \"dubbo-netty4-hessian2\""), json);
    }

    @Test
    void aRowWhoseErrorIsOverTenPercentIsMarked() {
        Row noisy = find(mixed, "sluice-hessian2", 32, 0); // 7 on 35: 20 %
        assertTrue(Report.noisy(noisy));
        assertTrue(!Report.noisy(find(mixed, "sluice", 4, 64)));
        String md = mixed.markdown();
        assertTrue(md.contains("| listUser | sluice-hessian2 | 35.00 | 7.00 ! | 3.50x |"), md);
        assertTrue(md.contains("| listUser | sluice | 40.00 | 4.00 | 2.00x |"), md);
        assertTrue(md.contains("!: JMH's error is over 10 % of the score: the iterations disagree, do not quote this"
                + " row."), md);
        assertTrue(mixed.json(Map.of()).contains("\"noisy\": true"));

        // interleaved, a row's ratio pairs its rounds with the baseline's: the legend sends the reader to its interval
        Row a = row("sluice", "existUser", 32, 0, 20, 4); // 20 %
        Row b = row("dubbo-netty4", "existUser", 32, 0, 10, 0.5);
        a.iterationScores = new double[] {16, 20, 24, 20, 22, 18};
        b.iterationScores = new double[] {8, 10, 12, 10, 11, 9};
        a.interleaved = true;
        b.interleaved = true;
        String legend = String.join("\n", new Report(List.of(a, b), List.of("dubbo-netty4", "sluice"),
                List.of("existUser"), "dubbo-netty4").legend());
        assertTrue(legend.contains("the iterations disagree; quote an interleaved row's ops/ms only with its ± (its"
                + " ratio has its own interval, from rounds paired with the baseline's)."), legend);
        // beside a noisy row measured otherwise (an async load), that one is still not to be quoted
        Row async = row("sluice", "existUser", 4, 64, 200, 40);
        legend = String.join("\n", new Report(List.of(a, b, async), List.of("dubbo-netty4", "sluice"),
                List.of("existUser"), "dubbo-netty4").legend());
        assertTrue(legend.contains("(its ratio has its own interval, from rounds paired with the baseline's); do not"
                + " quote another row marked so."), legend);
    }

    @Test
    void theChartHasAPanelPairPerLoad() throws Exception {
        String svg = SvgChart.render(mixed, "mixed");
        Document doc = DocumentBuilderFactory.newInstance().newDocumentBuilder()
                .parse(new ByteArrayInputStream(svg.getBytes(StandardCharsets.UTF_8)));
        assertEquals("svg", doc.getDocumentElement().getNodeName());
        assertTrue(svg.contains("Throughput, ops/ms (higher is better), async, 4 threads x 64 in flight"), svg);
        assertTrue(svg.contains("p99 latency, µs (lower is better), 32 threads"), svg);
    }

    private static Row find(Report report, String target, int threads, int inflight) {
        return report.rows().stream()
                .filter(r -> r.target.equals(target) && r.threads == threads && r.inflight == inflight)
                .findFirst().orElseThrow();
    }

    @Test
    void niceSteps() {
        assertEquals(1, SvgChart.niceStep(0.9), 1e-12);
        assertEquals(20, SvgChart.niceStep(13), 1e-12);
        assertEquals(50, SvgChart.niceStep(41), 1e-12);
        assertEquals(0.5, SvgChart.niceStep(0.3), 1e-12);
    }

    @Test
    void interleavedRowsTakeTheHodgesLehmannEstimateOfTheirPerRoundRatiosOtherRowsTheRatioOfTheirMedians() {
        Row a = row("sluice", "getUser", 32, 20);
        Row b = row("dubbo-netty4", "getUser", 32, 20);
        a.iterationScores = new double[] {10, 30, 20}; // median 20
        b.iterationScores = new double[] {5, 20, 20}; // median 20; per round 2.0, 1.5, 1.0
        Report jmh = new Report(List.of(a, b), List.of("dubbo-netty4", "sluice"), List.of("getUser"), "dubbo-netty4");
        assertEquals(1.0, jmh.ratio(a), 1e-9);
        a.interleaved = true;
        b.interleaved = true;
        Report interleaved = new Report(List.of(a, b), List.of("dubbo-netty4", "sluice"), List.of("getUser"),
                "dubbo-netty4");
        // geometric means of the pairs (2,2) (2,1.5) (2,1) (1.5,1.5) (1.5,1) (1,1): 2, 1.732, 1.414, 1.5, 1.225, 1;
        // their median sqrt(1.414 * 1.5)
        assertEquals(Math.sqrt(Math.sqrt(2) * 1.5), interleaved.ratio(a), 1e-9);
        assertTrue(String.join("\n", interleaved.legend()).contains("Hodges-Lehmann estimate of the per-round ratios"));
        b.iterationScores = new double[] {5, 20}; // rounds that do not pair up: the medians again
        assertEquals(1.0, interleaved.ratio(a), 1e-9);
    }

    @Test
    void anInterleavedRatioShowsItsSignedRankConfidenceInterval() {
        Row a = row("sluice", "existUser", 32, 20);
        Row b = row("dubbo-netty4", "existUser", 32, 10);
        a.iterationScores = new double[] {20, 30, 20, 24, 18, 26, 40}; // per round 2.0, 3.0, 2.5, 2.4, 1.5, 2.6, 4.0
        b.iterationScores = new double[] {10, 10, 8, 10, 12, 10, 10};
        a.interleaved = true;
        b.interleaved = true;
        Report report = new Report(List.of(a, b), List.of("dubbo-netty4", "sluice"), List.of("existUser"),
                "dubbo-netty4");
        // 28 pairwise geometric means; the 14th and 15th are sqrt(2.4 * 2.6) and sqrt(2.0 * 3.0)
        assertEquals(Math.sqrt(Math.sqrt(2.4 * 2.6) * Math.sqrt(6.0)), report.ratio(a), 1e-9);
        double[] range = report.ratioRange(a);
        assertEquals(Math.sqrt(1.5 * 2.4), range[0], 1e-9, "third lowest of the 28: 1.5, sqrt(1.5 * 2), then this");
        assertEquals(Math.sqrt(2.6 * 4.0), range[1], 1e-9, "third highest: 4.0, sqrt(3 * 4), then this");
        assertEquals(null, report.ratioRange(b), "the baseline's own row");
        assertTrue(report.text().contains("2.47x (1.90-3.22)"), report.text());
        assertTrue(report.markdown().contains("2.47x (1.90-3.22)"), report.markdown());
        String json = report.json(java.util.Map.of());
        assertTrue(json.contains("\"ratioLow\": 1.89737, \"ratioHigh\": 3.22490"), json);
        assertTrue(String.join("\n", report.legend()).contains("its 95.3 % confidence interval with 7 rounds"),
                String.join("\n", report.legend()));
        // Wilcoxon's tables (two-sided 5 %): critical rank sums 2, 8, 29, 40 at 7, 10, 16, 18 rounds
        assertEquals(3, Report.signedRankK(7));
        assertEquals(9, Report.signedRankK(10));
        assertEquals(30, Report.signedRankK(16));
        assertEquals(41, Report.signedRankK(18));
        assertEquals(1 - 2 * 3 / 128.0, Report.rangeConfidence(7), 1e-12); // rank sums 0, 1, 2: one subset each
        assertEquals(1 - 2 / 64.0, Report.rangeConfidence(6), 1e-12);
        assertEquals(1, Report.signedRankK(5));
        assertEquals(1 - 2 / 32.0, Report.rangeConfidence(5), 1e-12); // below 95 %: the whole span
        assertTrue(String.join("\n", new Report(List.of(trim(a, 5), trim(b, 5)), List.of("dubbo-netty4", "sluice"),
                List.of("existUser"), "dubbo-netty4").legend()).contains("the whole span of the rounds, below 6"));

        Row c = row("sluice", "listUser", 32, 20); // not interleaved: no range
        Row d = row("dubbo-netty4", "listUser", 32, 10);
        Report plain = new Report(List.of(c, d), List.of("dubbo-netty4", "sluice"), List.of("listUser"),
                "dubbo-netty4");
        assertEquals(null, plain.ratioRange(c));
        assertTrue(plain.text().contains("2.00x"), plain.text());
        assertFalse(plain.text().contains("2.00x ("), plain.text());
    }

    private static Row trim(Row r, int rounds) {
        Row t = row(r.target, r.method, 32, r.opsPerMs);
        t.iterationScores = java.util.Arrays.copyOf(r.iterationScores, rounds);
        t.interleaved = r.interleaved;
        return t;
    }
}
