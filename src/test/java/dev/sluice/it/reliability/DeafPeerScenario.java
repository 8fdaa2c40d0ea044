package dev.sluice.it.reliability;

import dev.sluice.codec.dubbo.DubboRequest;
import dev.sluice.codec.dubbo.TestBytes;
import dev.sluice.it.harness.Scenario;
import dev.sluice.rpc.SluiceServer;
import dev.sluice.transport.NativeTransport;
import dev.sluice.transport.TransportOptions;
import io.netty.buffer.PoolArenaMetric;
import io.netty.buffer.PoolChunkListMetric;
import io.netty.buffer.PoolChunkMetric;
import io.netty.buffer.PooledByteBufAllocator;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Child-JVM half of {@link PeerStopsReadingTest}'s heap tests: a {@link SluiceServer} with a small pending-bytes cap,
 * and a raw socket peer (small receive buffer, never reads) that streams requests at it until its writes block.
 * Reports what the server holds once the writer has stopped: heap retained after a full GC and direct memory, each
 * less what was held before the peer connected, and the bytes the peer managed to send. It measures once the calls
 * already read have run (their answers refused for the cap or queued), so the service threads' work in progress is
 * not counted as held.
 *
 * <p>It runs in its own JVM because the test JVM tracks every buffer for leaks (paranoid detection keeps stack traces
 * per buffer, far more heap than the buffer itself); here Netty's default sampling applies, as in production.
 *
 * <p>Args: {@code nativeTransport attack capBytes}, attack {@code heartbeats} (16-byte two-way heartbeats, each
 * answered on the event loop) or {@code blobs} (small calls each answered with {@value #BLOB_CHARS} characters).
 * Prints {@code RESULT name=deaf-peer ok sent=… heapHeld=… directHeld=… writerStopped=…}. Runs on the main
 * thread.
 */
public final class DeafPeerScenario {
    static final String RESULT = "deaf-peer";
    static final int BLOB_CHARS = 256 * 1024;

    private DeafPeerScenario() {
    }

    public static void main(String[] args) {
        Scenario.run(() -> {
            NativeTransport kind = NativeTransport.valueOf(args[0]);
            String attack = args[1];
            long cap = Long.parseLong(args[2]);
            byte[] block = block(attack);
            BlobService.Impl impl = new BlobService.Impl();
            try (SluiceServer server = SluiceServer.builder().port(0).options(TransportOptions.builder()
                    .nativeTransport(kind).pendingBytesCap(cap).build()).register(BlobService.class, impl).start();
                 Socket peer = new Socket()) {
                long heapBefore = heapAfterGc();
                long directBefore = activeDirectBytes();
                long reservedBefore = Fixtures.directMemory();
                peer.setReceiveBufferSize(4096);
                peer.connect(new InetSocketAddress("127.0.0.1", server.port()), 5_000);
                AtomicLong sent = new AtomicLong();
                DeafPeer deaf = new DeafPeer(peer, block, Long.MAX_VALUE, sent);
                Thread writer = new Thread(deaf::write, "deaf-peer-writer");
                writer.setDaemon(true);
                writer.start();
                // The writer has stopped when the server has refused an answer for the cap (so it stops reading), a
                // whole second passes without one more block leaving the writer, and the calls already read have run
                // (their answers refused or queued): what is left is what the server holds for this peer, not the
                // work in progress of its service threads. A loaded machine reads slowly, but it does not refuse.
                boolean stopped = deaf.awaitStill(TimeUnit.SECONDS.toNanos(60), writer::isAlive,
                        () -> server.inFlight() == 0 && server.stats().droppedResponses() > 0) == DeafPeer.End.STILL;
                // Closed by the server instead: the calls it had already read still run on its service threads (their
                // answers go nowhere). Measure once they have, so their work in progress is not counted as held.
                long settle = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (!writer.isAlive() && server.inFlight() > 0 && System.nanoTime() < settle) {
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
                }
                long inFlight = server.inFlight();
                long heapHeld = heapAfterGc() - heapBefore;
                long directHeld = activeDirectBytes() - directBefore;
                long directReserved = Fixtures.directMemory() - reservedBefore;
                Scenario.ok(RESULT, "sent", sent.get(), "heapHeld", heapHeld, "directHeld", directHeld,
                        "directReserved", directReserved,
                        "writerStopped", stopped && writer.isAlive(),
                        // The other way the server may stop the peer: closing it, once more answers wait for the cap
                        // than one connection may hold back (Replies.MAX_WAITING, C18c).
                        "serverClosed", !writer.isAlive() && !"none".equals(deaf.writerEnd()),
                        "writerEnd", deaf.writerEnd(), "ran", impl.ran.get(), "inFlight", inFlight);
            }
        });
    }

    /** About 64 KiB of requests of one attack, written as one block. */
    private static byte[] block(String attack) {
        List<byte[]> parts = new ArrayList<>();
        int bytes = 0;
        long id = 0;
        while (bytes < 64 * 1024) {
            byte[] frame;
            switch (attack) {
                case "heartbeats":
                    frame = TestBytes.frame(DubboRequest.heartbeat(id++));
                    break;
                case "blobs":
                    frame = Wire.request(id++, BlobService.class, "blob", BLOB_CHARS);
                    break;
                default:
                    throw new IllegalArgumentException("unknown attack " + attack);
            }
            parts.add(frame);
            bytes += frame.length;
        }
        return TestBytes.concat(parts.toArray(new byte[0][]));
    }

    /**
     * Direct memory in use in the pooled allocator's chunks (its thread caches included): what live buffers hold,
     * not the free room of the chunks it keeps for reuse (one or more per arena, whoever allocated last).
     */
    static long activeDirectBytes() {
        long used = 0;
        for (PoolArenaMetric arena : PooledByteBufAllocator.DEFAULT.metric().directArenas()) {
            for (PoolChunkListMetric list : arena.chunkLists()) {
                for (PoolChunkMetric chunk : list) {
                    used += chunk.chunkSize() - chunk.freeBytes();
                }
            }
        }
        return used;
    }

    /** Heap in use after full collections: what is still reachable. */
    static long heapAfterGc() {
        long used = Long.MAX_VALUE;
        for (int i = 0; i < 3; i++) {
            System.gc();
            used = Math.min(used, ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed());
        }
        return used;
    }
}
