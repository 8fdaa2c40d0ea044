package dev.sluice.examples.standalone;

import dev.sluice.rpc.SluiceServer;
import java.util.concurrent.CountDownLatch;

/**
 * Starts a {@link SluiceServer} serving {@link Greeter} and runs until the process is stopped (Ctrl-C or SIGTERM),
 * then closes the server gracefully: clients are told it is going away, calls in flight finish.
 *
 * <pre>
 * java -cp examples/standalone/target/greeter.jar \
 *     dev.sluice.examples.standalone.SluiceServerMain [port, default 20880]
 * </pre>
 *
 * <p>Threads: the main thread starts the server and then waits; the shutdown hook closes it.
 */
public final class SluiceServerMain {
    private SluiceServerMain() {}

    public static void main(String[] args) throws InterruptedException {
        int port = args.length > 0 ? Integer.parseInt(args[0]) : 20880;

        // tag::server[]
        SluiceServer server = SluiceServer.builder()
                .port(port)
                .register(Greeter.class, new GreeterImpl())
                .start();
        // end::server[]
        System.out.println("SluiceServer listening on port " + server.port() + " (Ctrl-C to stop)");

        CountDownLatch closed = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            server.close(); // graceful: waits for the calls in flight
            System.out.println("SluiceServer closed");
            closed.countDown();
        }, "sluice-example-shutdown"));
        closed.await();
    }
}
