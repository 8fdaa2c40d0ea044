package dev.sluice.benchmark;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;

/**
 * JMH's machine-wide lock ({@code $java.io.tmpdir/jmh.lock}), held for the whole comparison rather than per JMH run,
 * so no other JMH benchmark starts on this machine between our runs (or while a server JVM warms up). Waits for a
 * running benchmark to finish instead of failing like JMH does. {@link Runner#main} tells JMH to skip its own lock.
 */
final class JmhLock implements AutoCloseable {

    private final FileChannel channel;
    private final FileLock lock;

    private JmhLock(FileChannel channel, FileLock lock) {
        this.channel = channel;
        this.lock = lock;
    }

    static JmhLock acquire(Duration maxWait, PrintStream console) throws IOException, InterruptedException {
        Path file = Path.of(System.getProperty("java.io.tmpdir"), "jmh.lock");
        FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        long deadline = System.nanoTime() + maxWait.toNanos();
        boolean told = false;
        while (true) {
            FileLock lock = channel.tryLock();
            if (lock != null) {
                return new JmhLock(channel, lock);
            }
            if (System.nanoTime() > deadline) {
                channel.close();
                throw new IOException("another JMH benchmark held " + file + " for more than " + maxWait.toMinutes()
                        + " min");
            }
            if (!told) {
                console.println("waiting for another JMH benchmark on this machine to finish (" + file + ") ...");
                told = true;
            }
            Thread.sleep(500);
        }
    }

    @Override
    public void close() throws IOException {
        lock.release();
        channel.close();
    }
}
