package dev.sluice.it.harness;

import dev.sluice.rpc.SluiceServer;
import dev.sluice.transport.NativeTransport;
import dev.sluice.transport.SluiceException;
import dev.sluice.transport.TransportOptions;
import io.netty.util.internal.PlatformDependent;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A {@link SluiceServer} serving {@link CountedService} in a child JVM, recording the id of every call it runs in an
 * {@link ExecutionLog}, for tests that stop ({@code SIGSTOP}), continue and kill a real server process.
 *
 * <p>Child side, {@link #main}: args {@code nativeTransport port executionLog readyFile stopFile}. Binds the port
 * (retrying for 10 s while a killed predecessor's port is still taken), creates the ready file, and serves until the
 * stop file appears; then closes the server gracefully, prints {@code RESULT name=server-stop} with its execution
 * count and direct memory, and exits through the harness's leak gate. Runs on the JVM's main thread; the service
 * runs on the server's pool.
 *
 * <p>Parent side, {@link #start}: one child, seen through a {@link Handle}; used by one controlling thread.
 */
public final class CountingServer {
    private CountingServer() {
    }

    public static void main(String[] args) {
        Scenario.run(() -> {
            NativeTransport kind = NativeTransport.valueOf(args[0]);
            int port = Integer.parseInt(args[1]);
            Path readyFile = Paths.get(args[3]);
            Path stopFile = Paths.get(args[4]);
            try (ExecutionLog log = ExecutionLog.open(Paths.get(args[2]))) {
                SluiceServer server = bind(kind, port, log);
                Files.writeString(readyFile, "ready\n", StandardCharsets.US_ASCII);
                while (!Files.exists(stopFile)) {
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
                }
                server.close();
                Scenario.ok("server-stop", "executions", log.count(), "directBytes",
                        PlatformDependent.usedDirectMemory());
            }
        });
    }

    private static SluiceServer bind(NativeTransport kind, int port, ExecutionLog log) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            try {
                return SluiceServer.builder().port(port)
                        .options(TransportOptions.builder().nativeTransport(kind).build())
                        .register(CountedService.class, new CountedService.Impl(log::record)).start();
            } catch (SluiceException e) { // the port of a killed predecessor is not free yet
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
            }
        }
    }

    /**
     * Starts a child serving on {@code port} (on {@code kind}); its files ({@code <name>.executions}, {@code .ready},
     * {@code .stop}) live in {@code directory}. Returns at once; {@link Handle#awaitReady} waits for the bind.
     */
    public static Handle start(String name, NativeTransport kind, int port, Path directory, Duration timeout) {
        Path log = directory.resolve(name + ".executions");
        Path ready = directory.resolve(name + ".ready");
        Path stop = directory.resolve(name + ".stop");
        try { // files of an earlier run in the same directory would pass for this child's
            for (Path stale : new Path[] {log, ready, stop}) {
                Files.deleteIfExists(stale);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        IsolatedJvm jvm = IsolatedJvm.of(CountingServer.class).name(name).network(IsolatedJvm.Network.HOST)
                .jvmFlags("-Xmx256m").timeout(timeout).failOnLeak(false)
                .args(kind.name(), Integer.toString(port), log.toString(), ready.toString(), stop.toString());
        return new Handle(ChildProcess.start(jvm, name, stop), log, ready);
    }

    /** A started child: its process and its files. */
    public static final class Handle {
        private final ChildProcess process;
        private final Path executionLog;
        private final Path readyFile;

        private Handle(ChildProcess process, Path executionLog, Path readyFile) {
            this.process = process;
            this.executionLog = executionLog;
            this.readyFile = readyFile;
        }

        public ChildProcess process() {
            return process;
        }

        /** The ids of the calls the child ran, one per execution (read it once the child stopped or was killed). */
        public long[] executions() {
            return ExecutionLog.read(executionLog);
        }

        /** Waits until the child serves; fails if it exits first or takes longer than {@code limit}. */
        public Handle awaitReady(Duration limit) {
            long deadline = System.nanoTime() + limit.toNanos();
            while (!Files.exists(readyFile)) {
                if (process.exited()) {
                    throw new IllegalStateException(process.name() + " exited before serving: "
                            + process.resultIfExited());
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException(process.name() + " not serving after " + limit.toMillis()
                            + " ms");
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
            }
            return this;
        }
    }
}
