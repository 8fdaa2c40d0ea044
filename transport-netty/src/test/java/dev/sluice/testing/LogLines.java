package dev.sluice.testing;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Counts, and keeps, the lines containing a marker that the test's logging backend (slf4j-simple, which writes to
 * whatever {@code System.err} is at each line) prints while open; the lines still reach the real stderr. Any thread
 * may log; one capture open at a time.
 */
public final class LogLines implements AutoCloseable {
    private final PrintStream original = System.err;
    private final String[] markers;
    private final List<String> matched = new ArrayList<>();

    private LogLines(String... markers) {
        this.markers = markers;
    }

    /** Counts the lines that contain any of {@code markers}. */
    public static LogLines capture(String... markers) {
        LogLines lines = new LogLines(markers);
        System.setErr(new PrintStream(new LineCounter(lines), true, StandardCharsets.UTF_8));
        return lines;
    }

    public int count() {
        synchronized (matched) {
            return matched.size();
        }
    }

    /** The lines counted so far, in order. */
    public List<String> lines() {
        synchronized (matched) {
            return List.copyOf(matched);
        }
    }

    @Override
    public void close() {
        System.setErr(original);
    }

    /** Splits what is written into lines, keeps those with a marker, and passes every byte on. */
    private static final class LineCounter extends OutputStream {
        private final LogLines lines;
        private final ByteArrayOutputStream line = new ByteArrayOutputStream();

        LineCounter(LogLines lines) {
            this.lines = lines;
        }

        @Override
        public synchronized void write(int b) {
            lines.original.write(b);
            take(b);
        }

        @Override
        public synchronized void write(byte[] b, int off, int len) {
            lines.original.write(b, off, len);
            for (int i = off; i < off + len; i++) {
                take(b[i]);
            }
        }

        private void take(int b) {
            if (b != '\n') {
                line.write(b);
                return;
            }
            String text = line.toString(StandardCharsets.UTF_8);
            line.reset();
            for (String marker : lines.markers) {
                if (text.contains(marker)) {
                    synchronized (lines.matched) {
                        lines.matched.add(text);
                    }
                    return;
                }
            }
        }

        @Override
        public synchronized void flush() {
            lines.original.flush();
        }
    }
}
