package dev.sluice.benchmark;

import dev.sluice.benchmark.async.AsyncUserService;
import org.apache.dubbo.benchmark.service.UserService;

/**
 * One system under test: a server side (run in its own JVM by {@link dev.sluice.benchmark.server.ServerMain}) and a
 * client side (run inside the JMH fork by {@link UserServiceBenchmark}). This is the extension point: implement it and
 * register it in {@link Targets}.
 *
 * <p>Both sides must serve / call dubbo-benchmark's {@link UserService} with the data of {@code UserServiceServerImpl}
 * (a target that cannot, like {@code raw}, may return canned results, but must still move the real bytes).
 */
public interface BenchTarget {

    /** Name used on the command line, in results and in the chart, e.g. {@code dubbo-netty4}. */
    String name();

    /** One line for {@code --list} and the report. */
    String description();

    /**
     * Why this target cannot run with the classes on this classpath, or {@code null} if it can. Checked by the
     * orchestrator before any JVM is started, so it must be cheap and must not start anything.
     */
    default String unavailableReason() {
        return null;
    }

    /**
     * Extra flags for this target's server and client JVMs, after the common ones (e.g. a flight recording, to
     * measure its cost); none by default.
     */
    default java.util.List<String> jvmArgs() {
        return java.util.List.of();
    }

    /**
     * Runs in the server JVM. Serves {@code UserServiceServerImpl} on {@code host:port} and returns only once the
     * server accepts connections. Closing the handle stops the server. A target that {@link #supportsAsync()} also
     * serves {@link dev.sluice.benchmark.async.AsyncUserServiceImpl} there, so one server JVM answers both the
     * synchronous and the asynchronous benchmark.
     */
    AutoCloseable startServer(String host, int port) throws Exception;

    /**
     * Runs in the JMH client JVM, once per trial. The returned client is shared by all benchmark threads, like the
     * single Spring-managed reference of dubbo-benchmark's client.
     */
    Client connect(ClientConfig config) throws Exception;

    /** Whether {@link #connectAsync} works: the asynchronous workload ({@code AsyncUserServiceBenchmark}). */
    default boolean supportsAsync() {
        return false;
    }

    /**
     * Runs in the JMH client JVM, once per trial of the asynchronous workload: a client whose
     * {@link AsyncClient#service()} returns at once with a future, shared by all benchmark threads.
     */
    default AsyncClient connectAsync(ClientConfig config) throws Exception {
        throw new UnsupportedOperationException(name() + " has no asynchronous client");
    }

    /**
     * What every target's client must honour.
     *
     * @param timeoutMillis per-call timeout (dubbo-benchmark uses Dubbo's default, 1000 ms)
     */
    record ClientConfig(String host, int port, int timeoutMillis) {}

    /** A connected client. {@link #service()} must be thread-safe. */
    interface Client extends AutoCloseable {
        UserService service();

        @Override
        void close() throws Exception;
    }

    /** A connected asynchronous client. {@link #service()} must be thread-safe and must not block. */
    interface AsyncClient extends AutoCloseable {
        AsyncUserService service();

        @Override
        void close() throws Exception;
    }
}
