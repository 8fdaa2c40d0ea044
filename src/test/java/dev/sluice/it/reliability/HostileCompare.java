package dev.sluice.it.reliability;

import dev.sluice.it.harness.ChildResult;
import dev.sluice.it.harness.IsolatedJvm;
import dev.sluice.it.reliability.HostileAttacks.Attack;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What each attack of {@link HostileAttacks} costs per byte sent, Sluice against Dubbo 3.3.6, as a Markdown table on
 * stdout; run by {@code hostile.sh} (not part of the test suite). Each server runs in a child JVM of its own (a fresh
 * JIT and heap, in a private network namespace where the machine can make one) through {@link HostileScenario}: a
 * standalone {@code SluiceServer}, Dubbo 3.3.6 with {@code server=sluice}, and Dubbo 3.3.6 with its own
 * {@code netty4} server (decoding bodies on its I/O thread, its default, and on its provider pool), all on epoll where
 * the machine has it (Dubbo's netty4 server picks epoll itself on Linux
 * unless told otherwise), each with one I/O thread. The children report every attack, within bounds or not.
 *
 * <p>System property {@code hostile.attacks}: the attacks to run (comma-separated {@link Attack} names; default all).
 * Arguments: none, or the targets to run ({@code sluice}, {@code adapter}, {@code dubbo},
 * {@code dubbo-pool}).
 */
public final class HostileCompare {
    private HostileCompare() {
    }

    public static void main(String[] args) throws Exception {
        List<String> targets = args.length == 0 ? List.of("sluice", "adapter", "dubbo", "dubbo-pool") : List.of(args);
        String attacks = System.getProperty("hostile.attacks",
                String.join(",", java.util.Arrays.stream(Attack.values()).map(Enum::name).toList()));
        List<ChildResult> results = new ArrayList<>();
        for (String target : targets) {
            List<String> childArgs = new ArrayList<>(List.of(target));
            if (!target.startsWith("dubbo")) {
                childArgs.add("EPOLL");
            }
            ChildResult r = IsolatedJvm.of(HostileScenario.class).name("hostile-" + target)
                    .jvmFlags("-Xmx1g", "-XX:MaxDirectMemorySize=512m", "-Dio.netty.leakDetection.level=simple")
                    .systemProperty("hostile.attacks", attacks).failOnLeak(false)
                    .args(childArgs.toArray(new String[0])).timeout(Duration.ofMinutes(10)).run();
            System.err.println(r);
            results.add(r);
        }
        System.out.println("| attack | server | bytes sent | loop CPU ns/B | provider CPU ns/B | heap held B/B"
                + " | log lines | slowest other call ms | outcome |");
        System.out.println("|---|---|---:|---:|---:|---:|---:|---:|---|");
        for (Attack attack : Attack.values()) {
            for (int i = 0; i < targets.size(); i++) {
                String prefix = targets.get(i) + "." + (targets.get(i).startsWith("dubbo") ? "netty4" : "EPOLL") + ".";
                ChildResult.Line line = results.get(i).result(prefix + attack + ".cost").orElse(null);
                if (line == null) {
                    System.out.println("| " + attack + " | " + label(targets.get(i)) + " | (no result) |||||||");
                    continue;
                }
                Map<String, String> m = line.metrics();
                long sent = Long.parseLong(m.getOrDefault("bytesSent", "0"));
                double heapPerByte = sent == 0 ? 0 : Long.parseLong(m.get("heapHeldKiB")) * 1024.0 / sent;
                System.out.println("| " + attack + " | " + label(targets.get(i)) + " | " + sent + " | "
                        + m.get("loopNsPerByte") + " | " + m.get("serverNsPerByte") + " | "
                        + String.format(Locale.ROOT, "%.2f", Math.max(0, heapPerByte)) + " | " + m.get("logLines")
                        + " | " + m.get("probeMaxMs") + " | " + m.get("outcome") + " |");
            }
        }
    }

    private static String label(String target) {
        switch (target) {
            case "sluice":
                return "SluiceServer";
            case "adapter":
                return "Dubbo 3.3.6, server=sluice";
            case "dubbo-pool":
                return "Dubbo 3.3.6, netty4, decode on pool";
            default:
                return "Dubbo 3.3.6, netty4";
        }
    }
}
