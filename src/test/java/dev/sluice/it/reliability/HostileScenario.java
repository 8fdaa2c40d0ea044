package dev.sluice.it.reliability;

import dev.sluice.it.harness.DubboPeers;
import dev.sluice.it.harness.Scenario;
import dev.sluice.it.reliability.HostileAttacks.Attack;
import dev.sluice.it.reliability.HostileAttacks.Result;
import dev.sluice.it.reliability.HostileAttacks.Target;
import dev.sluice.rpc.SluiceServer;
import dev.sluice.transport.NativeTransport;
import dev.sluice.transport.TransportOptions;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.dubbo.config.ProtocolConfig;
import org.apache.dubbo.config.bootstrap.DubboBootstrap;
import org.apache.dubbo.rpc.model.FrameworkModel;

/**
 * Child-JVM runs of {@link HostileAttacks} (for {@link HostilePeerTest} and {@code hostile.sh}), one server in this
 * JVM at a time, each attack reported as {@code RESULT name=<target>.<kind>.<ATTACK>.cost} with its costs, then as
 * {@code <target>.<kind>.<ATTACK>}, ok or FAIL with the bounds it exceeded. Argument 0:
 * <ul>
 *   <li>{@code adapter <NIO|EPOLL>...}: a Dubbo 3.3.6 provider with {@code server=sluice} per kind; each attack must
 *       stay within {@link HostileBounds}, else FAIL. By default every attack but (c): there Dubbo's own codec
 *       decodes bodies (on the I/O thread, in Dubbo 3.3's default isolation mode), after the adapter's body check
 *       (docs/reliability.md H36) has walked them for the codec's structural limits; the type names of (c) are
 *       judged by Dubbo's own serialize-security check, not by Sluice's allowlist;</li>
 *   <li>{@code sluice <NIO|EPOLL>...}: a standalone {@link SluiceServer} per kind, held to {@link HostileBounds};</li>
 *   <li>{@code dubbo}: a plain Dubbo 3.3.6 provider ({@code server=netty4}), measured and reported only; it decodes
 *       request bodies on its I/O thread, as Dubbo 3.3 does in its default {@code executor-management-mode}
 *       ({@code isolation});</li>
 *   <li>{@code dubbo-pool}: the same with {@code executor-management-mode=default}, where Dubbo decodes bodies on its
 *       provider pool ({@code decode.in.io.thread=false}, its default there).</li>
 * </ul>
 * Every server has one I/O thread, a 1 MiB pending-bytes cap and a 1 s frame timeout where it has those settings,
 * hessian2 and fastjson2 accepted, and exports {@link HostileService}. System property {@code hostile.attacks} (a
 * comma-separated list of {@link Attack} names) picks other attacks.
 */
public final class HostileScenario {
    private static final String PATH = HostileService.class.getName();
    /** The attacks on what the {@code sluice} Transporter owns inside Dubbo: the transport and the body check. */
    static final List<Attack> ADAPTER_ATTACKS = List.of(Attack.BIG_DECIMAL_DIGITS, Attack.LONG_DIGITS,
            Attack.CLASS_DEFINITION_RUN, Attack.EMPTY_CONTAINERS, Attack.UNREAD_HEARTBEATS, Attack.TRICKLED_BODY);

    private HostileScenario() {
    }

    public static void main(String[] args) {
        Scenario.run(() -> {
            DubboPeers.quietDefaults();
            HostileCost.countLogs();
            List<Attack> attacks = System.getProperty("hostile.attacks") != null
                    ? java.util.Arrays.stream(System.getProperty("hostile.attacks").split(","))
                            .map(Attack::valueOf).toList()
                    : args[0].equals("adapter") ? ADAPTER_ATTACKS : List.of(Attack.values());
            switch (args[0]) {
                case "adapter":
                case "dubbo":
                case "dubbo-pool":
                    boolean dubbo = args[0].startsWith("dubbo");
                    String[] kinds = dubbo ? new String[] {"netty4"}
                            : java.util.Arrays.copyOfRange(args, 1, args.length);
                    for (String kind : kinds) {
                        FrameworkModel model = new FrameworkModel();
                        int port = DubboPeers.freePort();
                        DubboBootstrap boot = provider(model, port, dubbo ? null : kind,
                                args[0].equals("dubbo-pool"));
                        try {
                            String prefix = dubbo ? "NettyServerWorker" : "sluice-server";
                            long frameTimeout = dubbo ? 0 : HostileBounds.FRAME_TIMEOUT_MILLIS;
                            attackAll(args[0] + "." + kind, new Target(Scenario.testAddress(), port, prefix,
                                    frameTimeout), attacks, args[0].equals("adapter"));
                        } finally {
                            boot.stop();
                            model.destroy();
                        }
                    }
                    break;
                case "sluice":
                    for (int i = 1; i < args.length; i++) {
                        NativeTransport kind = NativeTransport.valueOf(args[i]);
                        try (SluiceServer server = SluiceServer.builder().port(0)
                                .options(TransportOptions.builder().nativeTransport(kind).ioThreads(1)
                                        .pendingBytesCap(HostileBounds.PENDING_CAP).build())
                                .frameTimeout(Duration.ofMillis(HostileBounds.FRAME_TIMEOUT_MILLIS))
                                .register(HostileService.class, new HostileService.Impl()).start()) {
                            attackAll("sluice." + kind, new Target(Scenario.testAddress(), server.port(),
                                    "sluice-server", HostileBounds.FRAME_TIMEOUT_MILLIS), attacks, true);
                        }
                    }
                    break;
                default:
                    throw new IllegalArgumentException("unknown target " + args[0]);
            }
        });
    }

    /** Each attack in turn; held to {@link HostileBounds} when {@code bounded}, else only reported. */
    private static void attackAll(String name, Target target, List<Attack> attacks, boolean bounded)
            throws Exception {
        warmUp(target, PATH);
        for (Attack attack : attacks) {
            Result r = HostileAttacks.run(attack, target, PATH);
            Scenario.ok(name + "." + attack + ".cost", r.keyValues());
            List<String> violations = bounded ? HostileBounds.violations(r) : List.of();
            if (violations.isEmpty()) {
                Scenario.ok(name + "." + attack);
            } else {
                Scenario.fail(name + "." + attack, String.join("; ", violations));
            }
        }
    }

    /**
     * A Dubbo 3.3.6 provider of {@link HostileService} on {@code port}: netty4 when {@code kind} is null; bodies
     * decoded on the provider pool when {@code decodeOnPool}.
     */
    private static DubboBootstrap provider(FrameworkModel model, int port, String kind, boolean decodeOnPool) {
        ProtocolConfig protocol = DubboPeers.dubboProtocol(port);
        protocol.setSerialization("hessian2");
        protocol.setIothreads(1);
        Map<String, String> params = new HashMap<>();
        params.put("prefer.serialization", "hessian2,fastjson2");
        if (kind != null) {
            protocol.setServer("sluice");
            params.put("sluice.native", kind.toLowerCase(Locale.ROOT));
            params.put("sluice.pending-bytes", Long.toString(HostileBounds.PENDING_CAP));
            params.put("sluice.frame-timeout", Long.toString(HostileBounds.FRAME_TIMEOUT_MILLIS));
        }
        protocol.setParameters(params);
        org.apache.dubbo.config.ApplicationConfig application = DubboPeers.application("hostile-provider");
        if (decodeOnPool) {
            application.setExecutorManagementMode("default");
        }
        return DubboBootstrap.newInstance(model)
                .application(application)
                .registry(DubboPeers.noRegistry())
                .protocol(protocol)
                .service(DubboPeers.service(HostileService.class, new HostileService.Impl()))
                .start();
    }

    /** Calls {@code $echo} a few hundred times on one connection, so the measured attacks meet warm code. */
    static void warmUp(Target target, String path) throws IOException {
        try (Socket s = HostileAttacks.connect(target, 0)) {
            s.setSoTimeout(10_000);
            OutputStream out = s.getOutputStream();
            InputStream in = s.getInputStream();
            for (int i = 0; i < 300; i++) {
                out.write(HostileAttacks.echo(i, path, Wire.hessian2("warm " + i)));
                Wire.Frame f = Wire.read(in);
                if (f.status() != 20) {
                    throw new AssertionError("warm-up $echo answered status " + f.status() + ": " + f.text());
                }
            }
        }
    }
}
