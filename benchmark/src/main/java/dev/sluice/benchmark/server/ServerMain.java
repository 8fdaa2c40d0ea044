package dev.sluice.benchmark.server;

import dev.sluice.benchmark.BenchTarget;
import dev.sluice.benchmark.Targets;
import java.io.IOException;
import java.io.InputStream;
import java.util.concurrent.CountDownLatch;

/**
 * The server JVM of one target: {@code ServerMain <target> <host> <port>}. Prints {@value #READY} once the server
 * accepts connections, then runs until its standard input reaches end of file (the orchestrator closes it, or dies)
 * or the JVM is signalled.
 */
public final class ServerMain {

    /** The line prefix the orchestrator waits for. */
    public static final String READY = "SLUICE-BENCH-READY";

    private ServerMain() {}

    public static void main(String[] args) throws Exception {
        if (args.length != 3) {
            System.err.println("usage: ServerMain <target> <host> <port>   (targets: " + Targets.names() + ")");
            System.exit(2);
        }
        BenchTarget target = Targets.get(args[0]);
        String host = args[1];
        int port = Integer.parseInt(args[2]);
        String reason = target.unavailableReason();
        if (reason != null) {
            System.err.println("target " + target.name() + " is not available: " + reason);
            System.exit(3);
        }

        long start = System.nanoTime();
        AutoCloseable server = target.startServer(host, port);
        System.out.printf("%s %s %s:%d (started in %d ms, pid %d)%n", READY, target.name(), host, port,
                (System.nanoTime() - start) / 1_000_000, ProcessHandle.current().pid());
        System.out.flush();

        CountDownLatch stop = new CountDownLatch(1);
        Thread stdinWatch = new Thread(() -> {
            try {
                InputStream in = System.in;
                byte[] buf = new byte[256];
                while (in.read(buf) >= 0) {
                    // ignore anything written; EOF means "stop"
                }
            } catch (IOException ignored) {
                // treat as EOF
            }
            stop.countDown();
        }, "stdin-watch");
        stdinWatch.setDaemon(true);
        stdinWatch.start();
        stop.await();

        System.out.println("stopping " + target.name());
        try {
            server.close();
        } finally {
            System.exit(0);
        }
    }
}
