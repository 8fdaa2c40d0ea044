package dev.sluice.benchmark.transport;

import dev.sluice.transport.BatchWrite;
import dev.sluice.transport.Connection;
import dev.sluice.transport.TransportHandler;
import dev.sluice.transport.TransportOptions;
import dev.sluice.transport.WriteListener;
import dev.sluice.transport.codec.LengthFieldFrames;
import dev.sluice.transport.netty.NettyClientTransport;
import dev.sluice.transport.netty.NettyConnection;
import dev.sluice.transport.netty.NettyServerTransport;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.Channel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * The write path alone: producer threads share ONE connection to a loopback echo server and each call blocks
 * until its echo returns, as an RPC caller would. Compares three ways of getting frames onto the socket:
 * <ul>
 *   <li>{@code COMPOSITE}: Sluice's WriteQueue, a drained batch written as one composite write + one flush;</li>
 *   <li>{@code GATHER}: the same queue, a batch written as N writes + one flush (grpc-java's shape);</li>
 *   <li>{@code WRITE_AND_FLUSH}: {@code channel.writeAndFlush} per frame from the caller thread (Netty queues one
 *       task per write on the event loop).</li>
 * </ul>
 * Frames are 273 bytes, the size of Dubbo's existUser request. Run {@link #main} for 1, 4 and 32 threads.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 3)
@Fork(value = 1, jvmArgsAppend = {"-Xmx1g", "-Xms1g", "-XX:MaxDirectMemorySize=1g", "-XX:+UseG1GC"})
public class WriteQueueBenchmark {
    private static final int FRAME = 273;

    @Param({"COMPOSITE", "GATHER", "WRITE_AND_FLUSH"})
    public String mode;

    private NettyServerTransport server;
    private NettyClientTransport client;
    private Connection connection;
    private Channel channel;
    private final AtomicLong ids = new AtomicLong();
    private final ConcurrentHashMap<Long, CompletableFuture<Void>> pending = new ConcurrentHashMap<>();

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        LengthFieldFrames frames = new LengthFieldFrames(4, 0, 1 << 20);
        BatchWrite batch = "GATHER".equals(mode) ? BatchWrite.GATHER : BatchWrite.COMPOSITE;
        TransportOptions options = TransportOptions.builder().batchWrite(batch).ioThreads(1).build();
        server = NettyServerTransport.builder().port(0).options(options).codec(frames)
                .handler((c, m) -> c.send(m, WriteListener.NONE)) // echo the frame slice as is
                .bind();
        TransportHandler onEcho = (c, m) -> {
            ByteBuf b = (ByteBuf) m;
            try {
                CompletableFuture<Void> f = pending.remove(b.getLong(b.readerIndex() + 4));
                if (f != null) {
                    f.complete(null);
                }
            } finally {
                b.release();
            }
        };
        client = NettyClientTransport.builder().remote("127.0.0.1", server.port()).options(options).codec(frames)
                .handler(onEcho).build();
        connection = client.connect().get(10, TimeUnit.SECONDS);
        channel = ((NettyConnection) connection).channel();
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        client.close();
        server.close();
    }

    @Benchmark
    public void roundTrip() throws Exception {
        long id = ids.incrementAndGet();
        ByteBuf frame = PooledByteBufAllocator.DEFAULT.ioBuffer(FRAME);
        frame.writeInt(FRAME - 4);
        frame.writeLong(id);
        frame.writeZero(FRAME - 12);
        CompletableFuture<Void> echo = new CompletableFuture<>();
        pending.put(id, echo);
        if ("WRITE_AND_FLUSH".equals(mode)) {
            channel.writeAndFlush(frame, channel.voidPromise());
        } else {
            connection.send(frame, WriteListener.NONE);
        }
        echo.get(5, TimeUnit.SECONDS);
    }

    /** Runs the comparison at 1, 4 and 32 threads and prints ops/ms per mode with ratios to COMPOSITE. */
    public static void main(String[] args) throws Exception {
        int[] threads = {1, 4, 32};
        boolean quick = args.length > 0 && "--quick".equals(args[0]);
        List<String> lines = new ArrayList<>();
        lines.add(String.format("%-8s %-16s %12s %12s", "threads", "mode", "ops/ms", "vs COMPOSITE"));
        for (int t : threads) {
            ChainedOptionsBuilder ob = new OptionsBuilder().include(WriteQueueBenchmark.class.getName() + ".roundTrip")
                    .threads(t);
            if (quick) {
                ob.warmupIterations(1).warmupTime(TimeValue.seconds(1)).measurementIterations(1)
                        .measurementTime(TimeValue.seconds(1));
            }
            java.util.Map<String, Double> scores = new java.util.LinkedHashMap<>();
            for (RunResult r : new Runner(ob.build()).run()) {
                scores.put(r.getParams().getParam("mode"), r.getPrimaryResult().getScore());
            }
            double composite = scores.getOrDefault("COMPOSITE", Double.NaN);
            scores.forEach((m, score) -> lines.add(String.format("%-8d %-16s %12.1f %11.2fx", t, m, score,
                    score / composite)));
        }
        System.out.println();
        lines.forEach(System.out::println);
    }
}
