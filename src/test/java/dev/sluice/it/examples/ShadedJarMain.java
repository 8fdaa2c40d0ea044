package dev.sluice.it.examples;

import dev.sluice.it.harness.DubboPeers;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.dubbo.config.ProtocolConfig;
import org.apache.dubbo.config.ReferenceConfig;
import org.apache.dubbo.config.ServiceConfig;
import org.apache.dubbo.config.bootstrap.DubboBootstrap;

/**
 * A plain Dubbo application (no Spring) in its own JVM, on the class path a user of the published {@code sluice-dubbo}
 * jar has: that jar, Dubbo 3.3 and its dependencies, and the application's Netty 4.1; neither Netty 4.2 nor
 * sluice-transport-netty nor sluice-codec-dubbo. Started by {@link ExamplesScenario} ({@code shaded-jar}), which
 * reads what it prints: one line {@code SHADED key=value} per fact, then {@code SHADED done} after a clean stop.
 *
 * <p>It exports {@link Echo} with {@code server=sluice} (the native transport from {@code -Dsluice.native}) and calls
 * it twice in the same JVM: through Sluice's client and through Dubbo's own netty4 client, which runs on the
 * application's Netty 4.1 beside the relocated Netty 4.2 inside the sluice-dubbo jar. The provider runs its calls on
 * {@code threadpool=sluice}, the jar's {@code ThreadPool} extension ({@code sluicePool}: the calls ran on its workers
 * and its monitor thread runs).
 *
 * <p>Arguments: {@code <host> <port>}. Runs on its main thread; Dubbo's and Sluice's threads do the I/O.
 */
public final class ShadedJarMain {
    private ShadedJarMain() {}

    /** The exported service. */
    public interface Echo {
        String echo(String text);
    }

    public static void main(String[] args) throws Exception {
        String host = args[0];
        int port = Integer.parseInt(args[1]);
        DubboPeers.quietDefaults();
        print("nettyCommon", io.netty.util.Version.identify().get("netty-common").artifactVersion());

        ProtocolConfig protocol = DubboPeers.dubboProtocol(port);
        protocol.setServer("sluice");
        protocol.setThreadpool("sluice");
        protocol.setParameters(Map.of("threadname", "shaded-pool"));
        AtomicReference<String> servedOn = new AtomicReference<>();
        // One export per client, told apart by group: Dubbo keeps one reference per service key.
        ServiceConfig<Echo> forSluice = DubboPeers.service(Echo.class, text -> {
            servedOn.set(Thread.currentThread().getName());
            return "sluice:" + text;
        });
        forSluice.setGroup("sluice");
        ServiceConfig<Echo> forNetty4 = DubboPeers.service(Echo.class, text -> "netty4:" + text);
        forNetty4.setGroup("netty4");
        ReferenceConfig<Echo> overSluice = DubboPeers.reference(Echo.class, host, port, 10_000);
        overSluice.setGroup("sluice");
        overSluice.setClient("sluice");
        ReferenceConfig<Echo> overNetty4 = DubboPeers.reference(Echo.class, host, port, 10_000);
        overNetty4.setGroup("netty4");
        overNetty4.setClient("netty4");

        DubboBootstrap bootstrap = DubboBootstrap.getInstance()
                .application(DubboPeers.application("shaded-jar"))
                .registry(DubboPeers.noRegistry())
                .protocol(protocol)
                .service(forSluice)
                .service(forNetty4)
                .reference(overSluice)
                .reference(overNetty4)
                .start();
        try {
            print("sluiceClient", overSluice.get().echo("a"));
            print("netty4Client", overNetty4.get().echo("b"));
            // Dubbo's server names its pool <threadname>-<address>; the workers <that>-thread-<n>.
            print("sluicePool", servedOn.get().startsWith("shaded-pool-") && servedOn.get().contains("-thread-")
                    && Thread.getAllStackTraces().keySet().stream().anyMatch(t -> t.getName().startsWith("shaded-pool-")
                    && t.getName().endsWith("-monitor")));
            List<String> maps = Files.readAllLines(Paths.get("/proc/self/maps"));
            print("shadedEpollLoaded", maps.stream().anyMatch(l -> l.contains(ExamplesScenario.SHADED_EPOLL_LIBRARY)));
        } finally {
            bootstrap.destroy();
        }
        System.out.println("SHADED done");
    }

    private static void print(String key, Object value) {
        System.out.println("SHADED " + key + "=" + value);
    }
}
