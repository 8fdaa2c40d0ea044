package dev.sluice.it.harness;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/**
 * Child-JVM main for {@link IsolatedJvmTest}: exercises the harness itself without Dubbo. First arg selects the
 * mode: {@code inspect} (report address, interfaces, args), {@code fail} (throw), {@code hang} (block forever),
 * {@code leak} (drop an unreleased pooled buffer).
 */
public final class HarnessProbeScenario {
    private HarnessProbeScenario() {}

    public static void main(String[] args) {
        Scenario.run(() -> {
            switch (args[0]) {
                case "inspect":
                    inspect(args);
                    break;
                case "fail":
                    throw new IllegalStateException("deliberate failure\nsecond line");
                case "hang":
                    Scenario.ok("hanging");
                    new CountDownLatch(1).await(); // never counted down: the parent's timeout must kill us
                    break;
                case "leak":
                    leakOneBuffer();
                    Scenario.ok("leaked");
                    break;
                default:
                    throw new IllegalArgumentException("unknown mode " + args[0]);
            }
        });
    }

    private static void inspect(String[] args) throws Exception {
        List<String> interfaces = new ArrayList<>();
        boolean hasAddress = false;
        List<String> ipv4 = new ArrayList<>();
        for (NetworkInterface nif : Collections.list(NetworkInterface.getNetworkInterfaces())) {
            interfaces.add(nif.getName() + (nif.isUp() ? "" : "(down)"));
            for (InetAddress address : Collections.list(nif.getInetAddresses())) {
                if (address instanceof Inet4Address) {
                    ipv4.add(address.getHostAddress());
                    hasAddress |= address.getHostAddress().equals(Scenario.testAddress());
                }
            }
        }
        Collections.sort(interfaces);
        Collections.sort(ipv4);
        Scenario.ok("inspect",
                "address", Scenario.testAddress(),
                "network", Scenario.network(),
                "hasAddress", hasAddress,
                "interfaces", String.join(",", interfaces),
                "ipv4", String.join(",", ipv4),
                "leakLevel", System.getProperty("io.netty.leakDetection.level"),
                "args", String.join(",", List.of(args).subList(1, args.length)));
    }

    private static void leakOneBuffer() {
        ByteBuf buf = PooledByteBufAllocator.DEFAULT.directBuffer(64);
        buf.writeLong(42);
        // dropped without release(); the leak gate in Scenario.run must report it
    }
}
