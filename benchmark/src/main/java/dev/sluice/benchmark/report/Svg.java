package dev.sluice.benchmark.report;

import java.util.List;
import java.util.Locale;

/** What the benchmark's SVG charts share: the palette, the page head, the target legend and escaping. */
final class Svg {
    /** One colour per target, by its position in the chart's list of targets: distinct for up to sixteen. */
    static final String[] COLORS = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948",
        "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac", "#499894", "#8cd17d", "#86bcb6", "#d37295", "#fabfd2",
        "#b6992d"};

    private Svg() {
    }

    static String color(int i) {
        return COLORS[i % COLORS.length];
    }

    /** Opens the document: the {@code <svg>} element, a white background and {@code title} in bold at x. */
    static void open(StringBuilder svg, int width, int height, int x, String title) {
        svg.append(String.format(Locale.ROOT,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
                        + "font-family=\"Helvetica, Arial, sans-serif\" font-size=\"12\">\n",
                width, height, width, height));
        svg.append(String.format(Locale.ROOT, "<rect width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n", width, height));
        svg.append(String.format(Locale.ROOT,
                "<text x=\"%d\" y=\"22\" font-size=\"16\" font-weight=\"bold\">%s</text>\n",
                x, esc(title)));
    }

    /** One swatch and name per target, left to right from x, the swatches' top at y; {@link #legendWidth} wide. */
    static void legend(StringBuilder svg, List<String> targets, int x, int y) {
        int lx = x;
        for (int i = 0; i < targets.size(); i++) {
            svg.append(String.format(Locale.ROOT,
                    "<rect x=\"%d\" y=\"%d\" width=\"14\" height=\"14\" fill=\"%s\"/>"
                            + "<text x=\"%d\" y=\"%d\">%s</text>\n",
                    lx, y, color(i), lx + 18, y + 12, esc(targets.get(i))));
            lx += entryWidth(targets.get(i));
        }
    }

    /** The width {@link #legend} takes for {@code targets}: a chart at least this wide (plus margins) shows it all. */
    static int legendWidth(List<String> targets) {
        int w = 0;
        for (String t : targets) {
            w += entryWidth(t);
        }
        return w;
    }

    /** A swatch, its gap, the name (up to 8 px a character at 12 px) and the space before the next. */
    private static int entryWidth(String target) {
        return 30 + 8 * target.length();
    }

    static String esc(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
