package dev.sluice.benchmark.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.TreeSet;

/**
 * The picture of the write queue at work, as a self-contained SVG: for each client thread count, the share of frames
 * carried by writes of each size (frames per write), and the share of queued writes by how long their oldest frame
 * waited, one bar per target. Client side only: the requests, which every Sluice target queues the same way.
 */
public final class WriteBatchChart {
    private static final int PANEL_W = 560;
    private static final int PANEL_H = 300;
    private static final int GAP = 20;
    private static final int HEAD_H = 84;

    private WriteBatchChart() {}

    public static String render(WriteBatches batches, List<String> targetOrder, String title) {
        List<WriteBatches.Series> clients = new ArrayList<>();
        TreeSet<Integer> threads = new TreeSet<>();
        List<String> targets = new ArrayList<>();
        for (WriteBatches.Series s : batches.ordered(targetOrder)) {
            if (s.threads() > 0) {
                clients.add(s);
                threads.add(s.threads());
                if (!targets.contains(s.target)) {
                    targets.add(s.target);
                }
            }
        }
        int width = GAP + 2 * (PANEL_W + GAP);
        int height = HEAD_H + threads.size() * (PANEL_H + GAP) + GAP;
        StringBuilder svg = new StringBuilder();
        Svg.open(svg, width, height, GAP, title);
        svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"40\" fill=\"#555555\">%s</text>\n", GAP,
                Svg.esc("Client JVMs (requests), every method, warm-up included; from dev.sluice.WriteBatch JFR events."
                        + " raw queues its requests like sluice.")));
        Svg.legend(svg, targets, GAP, 54);
        int y = HEAD_H;
        for (int t : threads) {
            List<WriteBatches.Series> row = new ArrayList<>();
            for (String target : targets) {
                row.add(clients.stream().filter(s -> s.target.equals(target) && s.threads() == t).findFirst()
                        .orElse(null));
            }
            int buckets = WriteBatches.MESSAGE_BOUNDS.length + 1;
            String[] sizeLabels = new String[buckets];
            double[][] sizeShares = new double[row.size()][buckets];
            for (int b = 0; b < buckets; b++) {
                sizeLabels[b] = WriteBatches.sizeLabel(b);
            }
            StringBuilder means = new StringBuilder();
            for (int i = 0; i < row.size(); i++) {
                WriteBatches.Series s = row.get(i);
                if (s == null) {
                    continue;
                }
                for (int b = 0; b < buckets; b++) {
                    sizeShares[i][b] = 100.0 * s.framesBySize[b] / s.frames;
                }
                means.append(String.format(Locale.ROOT, "%s%s %.1f", means.length() == 0 ? "" : ", ", s.target,
                        s.framesPerWrite()));
            }
            panel(svg, GAP, y, t + " threads: % of frames by frames per write (mean: " + means + ")",
                    sizeLabels, sizeShares);
            int waitBuckets = WriteBatches.WAIT_BOUNDS_MICROS.length + 1;
            String[] waitLabels = new String[waitBuckets];
            double[][] waitShares = new double[row.size()][waitBuckets];
            for (int b = 0; b < waitBuckets; b++) {
                waitLabels[b] = WriteBatches.waitLabel(b);
            }
            for (int i = 0; i < row.size(); i++) {
                WriteBatches.Series s = row.get(i);
                long queued = s == null ? 0 : s.writes - s.direct;
                for (int b = 0; b < waitBuckets && queued > 0; b++) {
                    waitShares[i][b] = 100.0 * s.writesByWait[b] / queued;
                }
            }
            panel(svg, GAP + PANEL_W + GAP, y, t + " threads: % of queued writes by wait of their oldest frame",
                    waitLabels, waitShares);
            y += PANEL_H + GAP;
        }
        svg.append("</svg>\n");
        return svg.toString();
    }

    private static void panel(StringBuilder svg, int x0, int y0, String title, String[] labels, double[][] shares) {
        int left = 44;
        int top = 28;
        int bottom = 34;
        int plotW = PANEL_W - left - 10;
        int plotH = PANEL_H - top - bottom;
        svg.append(String.format(Locale.ROOT, "<g transform=\"translate(%d,%d)\">\n", x0, y0));
        svg.append(String.format(Locale.ROOT,
                "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#dddddd\"/>\n", PANEL_W,
                PANEL_H));
        svg.append(String.format(Locale.ROOT,
                "<text x=\"8\" y=\"18\" font-weight=\"bold\" font-size=\"11\">%s</text>\n",
                Svg.esc(title)));
        for (int v = 0; v <= 100; v += 20) {
            double py = top + plotH - v / 100.0 * plotH;
            svg.append(String.format(Locale.ROOT,
                    "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#eeeeee\"/>"
                            + "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" fill=\"#555555\">%d%%</text>\n",
                    left, left + plotW, py, py, left - 4, py + 4, v));
        }
        svg.append(String.format(Locale.ROOT, "<line x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\" stroke=\"#333333\"/>\n",
                left, left + plotW, top + plotH, top + plotH));
        double groupW = (double) plotW / labels.length;
        double barW = groupW * 0.8 / Math.max(1, shares.length);
        for (int b = 0; b < labels.length; b++) {
            double gx = left + b * groupW + groupW * 0.1;
            svg.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" font-size=\"11\">"
                    + "%s</text>\n", left + b * groupW + groupW / 2, top + plotH + 16, Svg.esc(labels[b])));
            for (int i = 0; i < shares.length; i++) {
                double h = shares[i][b] / 100.0 * plotH;
                svg.append(String.format(Locale.ROOT,
                        "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\">"
                                + "<title>%.1f%%</title></rect>\n",
                        gx + i * barW, top + plotH - h, Math.max(1, barW - 1), h, Svg.color(i),
                        shares[i][b]));
            }
        }
        svg.append("</g>\n");
    }
}
