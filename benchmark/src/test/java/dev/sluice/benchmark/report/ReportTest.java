package dev.sluice.benchmark.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;

class ReportTest {

    private static Row row(String target, String method, int threads, double ops) {
        Row r = new Row(target, method, threads);
        r.opsPerMs = ops;
        r.opsPerMsError = ops / 10;
        r.p50Ms = 0.5;
        r.p99Ms = 2.25;
        r.p999Ms = 9;
        r.bytesPerOp = 12345;
        return r;
    }

    private final Report report = new Report(
            List.of(row("sluice", "getUser", 32, 30), row("dubbo-netty4", "getUser", 32, 20),
                    row("dubbo-netty4", "existUser", 32, 25), row("dubbo-netty4", "getUser", 1, 2)),
            List.of("dubbo-netty4", "dubbo-sluice", "sluice"), List.of("createUser", "existUser", "getUser", "listUser"),
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

    @Test
    void niceSteps() {
        assertEquals(1, SvgChart.niceStep(0.9), 1e-12);
        assertEquals(20, SvgChart.niceStep(13), 1e-12);
        assertEquals(50, SvgChart.niceStep(41), 1e-12);
        assertEquals(0.5, SvgChart.niceStep(0.3), 1e-12);
    }
}
