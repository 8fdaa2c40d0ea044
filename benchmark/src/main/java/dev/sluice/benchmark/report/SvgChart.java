package dev.sluice.benchmark.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;

/**
 * A self-contained SVG: for each load (thread count, or async threads x calls in flight), grouped bars per method
 * with one bar per target, for throughput
 * (ops/ms, higher is better) and, when sample-time data exists, p99 latency (µs, lower is better).
 */
public final class SvgChart {

    private static final int PANEL_W = 560;
    private static final int PANEL_H = 320;
    private static final int GAP = 20;
    private static final int LEGEND_H = 64;

    private SvgChart() {}

    public static String render(Report report, String title) {
        List<String> targets = new ArrayList<>();
        for (String t : report.targets()) {
            if (report.rows().stream().anyMatch(r -> r.target.equals(t))) {
                targets.add(t);
            }
        }
        List<String> methods = new ArrayList<>();
        for (String m : report.methods()) {
            if (report.rows().stream().anyMatch(r -> r.method.equals(m))) {
                methods.add(m);
            }
        }
        boolean latency = report.rows().stream().anyMatch(r -> !Double.isNaN(r.p99Ms));
        List<Row.Load> loads = report.loads();
        int columns = latency ? 2 : 1;
        int width = Math.max(GAP + columns * (PANEL_W + GAP), GAP + Svg.legendWidth(targets) + GAP);
        int height = LEGEND_H + loads.size() * (PANEL_H + GAP) + GAP;

        StringBuilder svg = new StringBuilder();
        Svg.open(svg, width, height, GAP, title);
        Svg.legend(svg, targets, GAP, 36);

        int y = LEGEND_H;
        for (Row.Load t : loads) {
            String suffix = t.label();
            panel(svg, report, targets, methods, t, GAP, y, "Throughput, ops/ms (higher is better), " + suffix,
                    r -> r.opsPerMs, r -> r.opsPerMsError);
            if (latency) {
                panel(svg, report, targets, methods, t, GAP + PANEL_W + GAP, y,
                        "p99 latency, µs (lower is better), " + suffix, r -> r.p99Ms * 1000, r -> Double.NaN);
            }
            y += PANEL_H + GAP;
        }
        svg.append("</svg>\n");
        return svg.toString();
    }

    private static void panel(StringBuilder svg, Report report, List<String> targets, List<String> methods,
            Row.Load load, int x0, int y0, String title, ToDoubleFunction<Row> value, ToDoubleFunction<Row> error) {
        int left = 56;
        int top = 28;
        int bottom = 34;
        int plotW = PANEL_W - left - 10;
        int plotH = PANEL_H - top - bottom;
        double max = 0;
        for (Row r : report.rows()) {
            if (r.load().equals(load)) {
                double v = value.applyAsDouble(r);
                if (!Double.isNaN(v)) {
                    max = Math.max(max, v); // error bars are clipped, so a noisy run does not flatten the bars
                }
            }
        }
        double step = niceStep(max <= 0 ? 1 : max / 5);
        double top_ = Math.max(step, Math.ceil(max * 1.08 / step) * step);

        svg.append(String.format(Locale.ROOT, "<g transform=\"translate(%d,%d)\">\n", x0, y0));
        svg.append(String.format(Locale.ROOT,
                "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#dddddd\"/>\n", PANEL_W,
                PANEL_H));
        svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"18\" font-weight=\"bold\">%s</text>\n", 8,
                Svg.esc(title)));
        for (double v = 0; v <= top_ + step / 2; v += step) {
            double py = top + plotH - v / top_ * plotH;
            svg.append(String.format(Locale.ROOT,
                    "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#eeeeee\"/>"
                            + "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" fill=\"#555555\">%s</text>\n",
                    left, left + plotW, py, py, left - 4, py + 4, label(v)));
        }
        svg.append(String.format(Locale.ROOT,
                "<line x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\" stroke=\"#333333\"/>\n", left, left + plotW,
                top + plotH, top + plotH));

        double groupW = (double) plotW / Math.max(1, methods.size());
        double barW = groupW * 0.8 / Math.max(1, targets.size());
        for (int m = 0; m < methods.size(); m++) {
            double gx = left + m * groupW + groupW * 0.1;
            svg.append(String.format(Locale.ROOT,
                    "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>\n", left + m * groupW + groupW / 2,
                    top + plotH + 18, Svg.esc(methods.get(m))));
            for (int t = 0; t < targets.size(); t++) {
                Row row = find(report, targets.get(t), methods.get(m), load);
                double v = row == null ? Double.NaN : value.applyAsDouble(row);
                if (Double.isNaN(v)) {
                    continue;
                }
                double h = v / top_ * plotH;
                double bx = gx + t * barW;
                double by = top + plotH - h;
                svg.append(String.format(Locale.ROOT,
                        "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\">"
                                + "<title>%s %s: %s</title></rect>\n",
                        bx, by, Math.max(1, barW - 2), h, Svg.color(t), Svg.esc(targets.get(t)),
                        Svg.esc(methods.get(m)), label(v)));
                double e = error.applyAsDouble(row);
                if (!Double.isNaN(e) && e > 0) {
                    double cx = bx + (barW - 2) / 2;
                    double y1 = top + plotH - Math.min(top_, v + e) / top_ * plotH;
                    double y2 = top + plotH - Math.max(0, v - e) / top_ * plotH;
                    svg.append(String.format(Locale.ROOT,
                            "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#222222\""
                                    + " stroke-opacity=\"0.45\"/>\n", cx, cx, y1, y2));
                }
                svg.append(String.format(Locale.ROOT,
                        "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"9\""
                                + " fill=\"#333333\">%s</text>\n",
                        bx + (barW - 2) / 2, by - 3, label(v)));
            }
        }
        svg.append("</g>\n");
    }

    private static Row find(Report report, String target, String method, Row.Load load) {
        for (Row r : report.rows()) {
            if (r.target.equals(target) && r.method.equals(method) && r.load().equals(load)) {
                return r;
            }
        }
        return null;
    }

    static double niceStep(double raw) {
        double exp = Math.pow(10, Math.floor(Math.log10(raw)));
        double f = raw / exp;
        double nice = f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10;
        return nice * exp;
    }

    private static String label(double v) {
        double a = Math.abs(v);
        if (a >= 100 || a == Math.rint(a)) {
            return String.format(Locale.ROOT, "%.0f", v);
        }
        if (a >= 10) {
            return String.format(Locale.ROOT, "%.1f", v);
        }
        return String.format(Locale.ROOT, "%.2f", v);
    }
}
