package dev.sluice.it.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import org.apache.zookeeper.server.ServerCnxnFactory;
import org.apache.zookeeper.server.ZooKeeperServer;

/**
 * A real, standalone ZooKeeper 3.7.2 server inside this JVM: the registry of the cluster scenario. It listens on
 * {@code host} and an ephemeral port, keeps its data in a directory of its own, and deletes it on {@link #close()}.
 * Nothing outside the scenario's network namespace can reach it.
 *
 * <p>Started and closed by the scenario's main thread; ZooKeeper runs its own threads.
 */
final class EmbeddedZooKeeper implements AutoCloseable {
    private static final int TICK_MS = 2000;
    private static final int MAX_CLIENT_CONNECTIONS = 100;

    private final Path dataDir;
    private final ZooKeeperServer server;
    private final ServerCnxnFactory factory;
    private final String host;

    private EmbeddedZooKeeper(Path dataDir, ZooKeeperServer server, ServerCnxnFactory factory, String host) {
        this.dataDir = dataDir;
        this.server = server;
        this.factory = factory;
        this.host = host;
    }

    static EmbeddedZooKeeper start(String host, Path parent) throws IOException, InterruptedException {
        // Test settings, set before ZooKeeper reads them: no 64 MiB preallocated transaction log, no fsync per write.
        System.setProperty("zookeeper.preAllocSize", "1024");
        System.setProperty("zookeeper.forceSync", "no");
        System.setProperty("zookeeper.admin.enableServer", "false");
        Path dataDir = Files.createTempDirectory(parent, "zookeeper-");
        ZooKeeperServer server = new ZooKeeperServer(dataDir.resolve("snap").toFile(),
                dataDir.resolve("log").toFile(), TICK_MS);
        ServerCnxnFactory factory = ServerCnxnFactory.createFactory(new InetSocketAddress(host, 0),
                MAX_CLIENT_CONNECTIONS);
        factory.startup(server);
        return new EmbeddedZooKeeper(dataDir, server, factory, host);
    }

    /** {@code host:port}, as a Dubbo registry address takes it. */
    String hostPort() {
        return host + ":" + factory.getLocalPort();
    }

    @Override
    public void close() throws IOException {
        factory.shutdown();
        server.shutdown();
        try (Stream<Path> files = Files.walk(dataDir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.delete(p);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        }
    }
}
