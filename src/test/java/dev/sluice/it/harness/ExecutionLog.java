package dev.sluice.it.harness;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A server's record of the calls it executed: one line per execution, the call id, appended to a file with one
 * {@code write} per line and no buffering in the JVM. So the record survives what the scenario does to the
 * provider: a SIGKILL loses nothing already written (it sits in the kernel's page cache), and a provider frozen
 * with SIGSTOP writes the calls it runs after the thaw. The consumer side reads the files after the run
 * ({@link #read}).
 *
 * <p>Thread-safe: {@link #record} is called by the provider's service threads concurrently.
 */
public final class ExecutionLog implements AutoCloseable {
    private final FileChannel channel;
    private final AtomicLong count = new AtomicLong();

    private ExecutionLog(FileChannel channel) {
        this.channel = channel;
    }

    public static ExecutionLog open(Path file) {
        try {
            return new ExecutionLog(FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                    StandardOpenOption.APPEND));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open the execution log " + file, e);
        }
    }

    /** Appends {@code callId}; returns once the line is in the kernel's hands. */
    public void record(long callId) {
        ByteBuffer line = ByteBuffer.wrap((callId + "\n").getBytes(StandardCharsets.US_ASCII));
        try {
            synchronized (channel) { // one whole line per write, never interleaved with another thread's
                while (line.hasRemaining()) {
                    channel.write(line);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot append to the execution log", e);
        }
        count.incrementAndGet();
    }

    public long count() {
        return count.get();
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }

    /**
     * The call ids in {@code file}, one per execution, in the order they were recorded. A last line without its
     * newline (a write cut short, which a SIGKILL cannot do to a local file, but a full disk could) is ignored.
     */
    public static long[] read(Path file) {
        try {
            if (!Files.exists(file)) {
                return new long[0];
            }
            String text = Files.readString(file, StandardCharsets.US_ASCII);
            String[] lines = text.isEmpty() ? new String[0] : text.split("\n", -1);
            // split leaves "" after a final newline, or the unfinished last line: drop either
            int complete = Math.max(0, lines.length - 1);
            long[] ids = new long[complete];
            for (int i = 0; i < complete; i++) {
                ids[i] = Long.parseLong(lines[i]);
            }
            return ids;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the execution log " + file, e);
        }
    }
}
