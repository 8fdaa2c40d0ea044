package dev.sluice.benchmark.codec;

import dev.sluice.rpc.Serialization;
import io.netty.buffer.ByteBuf;
import java.util.concurrent.TimeUnit;
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
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Encode and decode of each {@code UserService} call's request and response frame, one thread, Sluice's codec
 * ({@link SluicePath}) against Dubbo 3.3.6's own ({@link DubboPath}), fastjson2 and hessian2. Encodes write a new
 * pooled buffer (released in the same operation); decodes read one whole frame, written by the same path in setup,
 * to the values a caller or a service gets (the body included). {@code CodecPathsTest} checks that both paths write
 * frames the other reads back to equal values.
 *
 * <pre>{@code
 * java -jar benchmark/target/sluice-benchmarks.jar 'codec.CodecBenchmark' -prof gc            # everything, ~12 min
 * java -jar benchmark/target/sluice-benchmarks.jar 'codec.CodecBenchmark' -p method=listUser -prof gc
 * }</pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Threads(1)
@Fork(value = 1, jvmArgsAppend = {"-Xms512m", "-Xmx512m", "-XX:+UseParallelGC"})
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 3, time = 1)
public class CodecBenchmark {
    /** {@code sluice} or {@code dubbo}; {@code sluice-generic} on request ({@code -p impl=sluice-generic}). */
    @Param({"sluice", "dubbo"})
    public String impl;

    @Param({"fastjson2", "hessian2"})
    public String serialization;

    @Param({"existUser", "createUser", "getUser", "listUser"})
    public String method;

    private CodecPath path;
    private ByteBuf requestFrame;
    private ByteBuf responseFrame;

    @Setup(Level.Trial)
    public void setUp() {
        path = open(impl, serialization, CodecCall.of(method));
        requestFrame = path.encodeRequest();
        responseFrame = path.encodeResponse();
    }

    /**
     * The path named {@code impl} ({@code sluice}, {@code sluice-generic}: the same call made through {@code $invoke}
     * as a gateway makes it, or {@code dubbo}) for one serialization and call.
     */
    public static CodecPath open(String impl, String serialization, CodecCall call) {
        switch (impl) {
            case "sluice":
                return new SluicePath(Serialization.valueOf(serialization.toUpperCase(java.util.Locale.ROOT)), call);
            case "sluice-generic":
                return new SluicePath(Serialization.valueOf(serialization.toUpperCase(java.util.Locale.ROOT)), call,
                        true);
            case "dubbo":
                return new DubboPath(serialization, call);
            default:
                throw new IllegalArgumentException("impl is sluice, sluice-generic or dubbo, not " + impl);
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        requestFrame.release();
        responseFrame.release();
        path.close();
    }

    @Benchmark
    public int encodeRequest() {
        ByteBuf frame = path.encodeRequest();
        int n = frame.readableBytes();
        frame.release();
        return n;
    }

    @Benchmark
    public Object[] decodeRequest() {
        requestFrame.readerIndex(0);
        return path.decodeRequest(requestFrame);
    }

    @Benchmark
    public int encodeResponse() {
        ByteBuf frame = path.encodeResponse();
        int n = frame.readableBytes();
        frame.release();
        return n;
    }

    @Benchmark
    public Object decodeResponse() {
        responseFrame.readerIndex(0);
        return path.decodeResponse(responseFrame);
    }
}
