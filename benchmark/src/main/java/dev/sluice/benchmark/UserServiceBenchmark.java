package dev.sluice.benchmark;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.dubbo.benchmark.bean.Page;
import org.apache.dubbo.benchmark.bean.User;
import org.apache.dubbo.benchmark.service.UserService;
import org.apache.dubbo.benchmark.service.UserServiceServerImpl;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;

/**
 * dubbo-benchmark's client workload (docs/wire-format.md §9.2): one shared client, one shared counter, the four calls
 * exactly as the original issues them. The server runs in another JVM; {@link Runner} starts it and passes the
 * target, host and port as JMH parameters.
 */
@State(Scope.Benchmark)
@BenchmarkMode({Mode.Throughput, Mode.SampleTime})
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Threads(32)
public class UserServiceBenchmark {

    /** The {@link Targets} name. */
    @Param(Targets.BASELINE)
    public String target;

    /** The server's address; never loopback for real Dubbo consumers (docs/wire-format.md §10.1). */
    @Param("10.253.0.1")
    public String host;

    @Param("20880")
    public int port;

    /** Per-call timeout; 1000 ms is Dubbo's default and dubbo-benchmark's. */
    @Param("1000")
    public int timeoutMs;

    private final AtomicInteger counter = new AtomicInteger();
    private BenchTarget.Client client;
    private UserService userService;

    @Setup(Level.Trial)
    public void connect() throws Exception {
        client = Targets.get(target).connect(new BenchTarget.ClientConfig(host, port, timeoutMs));
        userService = client.service();
    }

    @TearDown(Level.Trial)
    public void close() throws Exception {
        if (client != null) {
            client.close();
        }
    }

    @Benchmark
    public boolean existUser() {
        return userService.existUser(String.valueOf(counter.getAndIncrement()));
    }

    @Benchmark
    public boolean createUser() {
        return userService.createUser(new UserServiceServerImpl().getUser(counter.getAndIncrement()));
    }

    @Benchmark
    public User getUser() {
        return userService.getUser(counter.getAndIncrement());
    }

    @Benchmark
    public Page<User> listUser() {
        return userService.listUser(counter.getAndIncrement());
    }
}
