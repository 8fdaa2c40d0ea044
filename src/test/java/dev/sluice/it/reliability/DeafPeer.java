package dev.sluice.it.reliability;

import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * A peer that never reads, the one both deaf-peer measurements use ({@link DeafPeerScenario} for
 * {@link PeerStopsReadingTest}, and {@link HostileAttacks}' {@code UNREAD_HEARTBEATS} for {@link HostilePeerTest}
 * and {@code hostile.sh}): it writes the same block of requests to a socket, opened by the caller with a small
 * receive buffer, until a write blocks for good (the server stopped reading), fails (the server closed), or the next
 * block would pass a byte limit; and it tells when the writing has stood still.
 *
 * <p>Threads: {@link #write} runs on a thread the caller starts (so the caller may count that thread's CPU);
 * {@link #awaitStill} on the measuring thread; {@link #writerEnd} from any thread.
 */
final class DeafPeer {
    /** How {@link #awaitStill} ended. */
    enum End {
        /** No block left the writer for a second, and the caller's condition held. */
        STILL,
        /** The next block would pass the byte limit: the server took everything offered. */
        LIMIT,
        /** The writer ended (see {@link #writerEnd}). */
        WRITER_ENDED,
        /** The wait's time ran out. */
        TIMED_OUT
    }

    private static final long STILL_NANOS = TimeUnit.SECONDS.toNanos(1);
    private static final long POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

    private final OutputStream out;
    private final byte[] block;
    private final long limit;
    private final AtomicLong sent;
    private final AtomicReference<String> writerEnd = new AtomicReference<>("none");

    /**
     * Writes {@code block} to {@code socket}, connected, until no more than {@code limit} bytes are sent, counting
     * them in {@code sent} (the caller's count of what it sent, which the limit applies to).
     */
    DeafPeer(Socket socket, byte[] block, long limit, AtomicLong sent) throws IOException {
        this.out = socket.getOutputStream();
        this.block = block;
        this.limit = limit;
        this.sent = sent;
    }

    /** The writer: the block again and again while the next one fits the limit; a failed write ends it. */
    void write() {
        try {
            while (sent.get() <= limit - block.length) {
                out.write(block); // blocks for good once the server stops reading
                sent.addAndGet(block.length);
            }
        } catch (IOException closed) {
            writerEnd.set(closed.toString()); // the server closed, or the caller did
        }
    }

    /** {@code "none"}, or the failure that ended the writer. */
    String writerEnd() {
        return writerEnd.get();
    }

    /**
     * Waits, looking every 20 ms, until no block has left the writer for a second while {@code settled} holds, the
     * next block would pass the limit, {@code writerAlive} turns false, or {@code timeoutNanos} pass
     * ({@link Long#MAX_VALUE}: no time limit).
     */
    End awaitStill(long timeoutNanos, BooleanSupplier writerAlive, BooleanSupplier settled) {
        long start = System.nanoTime();
        long last = -1;
        long lastChange = start;
        while (true) {
            if (sent.get() > limit - block.length) {
                return End.LIMIT;
            }
            if (System.nanoTime() - start >= timeoutNanos) {
                return End.TIMED_OUT;
            }
            if (!writerAlive.getAsBoolean()) {
                return End.WRITER_ENDED;
            }
            long now = sent.get();
            if (now != last) {
                last = now;
                lastChange = System.nanoTime();
            } else if (System.nanoTime() - lastChange > STILL_NANOS && settled.getAsBoolean()) {
                return End.STILL;
            }
            LockSupport.parkNanos(POLL_NANOS);
        }
    }
}
