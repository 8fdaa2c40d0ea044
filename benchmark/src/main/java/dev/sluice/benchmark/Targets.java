package dev.sluice.benchmark;

import dev.sluice.benchmark.targets.DubboTarget;
import dev.sluice.benchmark.targets.GrpcJavaTarget;
import dev.sluice.benchmark.targets.RawTarget;
import dev.sluice.benchmark.targets.SluiceTarget;
import dev.sluice.rpc.Serialization;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

/**
 * The registry of benchmark targets, in report order, each in a group: {@value #FASTJSON2} (the default run),
 * {@value #LEVERS}, {@value #PEERS}, {@value #HESSIAN2} or {@value #OVERHEAD}. Each group has a baseline every target
 * of the group is compared with: real Dubbo on netty4 in the same serialization (for the peers, which have
 * serializations of their own, the default run's). To add a target, implement {@link BenchTarget} and add one
 * {@code register} line here.
 */
public final class Targets {

    /** The baseline: real Dubbo 3.3.6 on its own netty4 transport, configured like dubbo-benchmark. */
    public static final String BASELINE = "dubbo-netty4";
    /** The baseline of the hessian2 targets: the same, in Dubbo's default serialization. */
    public static final String HESSIAN2_BASELINE = "dubbo-netty4-hessian2";

    /** The group the default run measures: dubbo-benchmark's fastjson2 variant, plus the transport bound. */
    public static final String FASTJSON2 = "fastjson2";
    /** dubbo-benchmark's hessian-lite variant. */
    public static final String HESSIAN2 = "hessian2";
    /**
     * What a Java team would pick instead: Dubbo's own recommended protocol, triple, and grpc-java. As a
     * {@code --targets} name it also selects {@value #BASELINE} and {@code sluice}, the two they are compared with;
     * the default run leaves the peers out (six targets take more than its 15 minutes).
     */
    public static final String PEERS = "peers";
    /**
     * The cost of observing: {@code sluice} with its JFR events recorded, and with a MeterRegistry bound. Run it
     * with the plain target: {@code --targets sluice,overhead}.
     */
    public static final String OVERHEAD = "overhead";
    /**
     * Dubbo with one of Sluice's levers past the Transporter (issue 33), each compared with {@value #BASELINE} and
     * {@code dubbo-sluice} in the same run ({@code --targets dubbo-netty4,dubbo-sluice,levers}): Sluice's hot-worker
     * {@code ThreadPool} on either Transporter, {@code dispatcher=direct} as the bound of removing the provider's
     * hand-off, and {@code dubbo-sluice+fastclient}, the {@code dubbo-sluice} provider called by a consumer with the
     * consumer lever ({@code sluice.consumer=fast}).
     */
    public static final String LEVERS = "levers";
    /** {@code --targets all}. */
    public static final String ALL = "all";

    private record Entry(String group, Supplier<BenchTarget> factory) {}

    private static final Map<String, Entry> TARGETS = new LinkedHashMap<>();

    static {
        register(FASTJSON2, BASELINE, () -> new DubboTarget(BASELINE, "netty4", "fastjson2",
                "Dubbo 3.3.6, dubbo protocol, fastjson2, server=netty4 client=netty4, filter=-default"));
        register(FASTJSON2, "dubbo-sluice", () -> new DubboTarget("dubbo-sluice", "sluice", "fastjson2",
                "the same Dubbo 3.3.6 app with server=sluice client=sluice (Sluice's Dubbo Transporter)"));
        register(FASTJSON2, "sluice", () -> new SluiceTarget("sluice", Serialization.FASTJSON2));
        register(FASTJSON2, "raw", RawTarget::new);
        register(LEVERS, "dubbo-sluice+pool", () -> new DubboTarget("dubbo-sluice+pool", "sluice", "fastjson2",
                "sluice", null, "dubbo-sluice with threadpool=sluice (Sluice's hot-worker pool runs the provider's"
                        + " service methods)"));
        register(LEVERS, "dubbo-netty4+pool", () -> new DubboTarget("dubbo-netty4+pool", "netty4", "fastjson2",
                "sluice", null, "dubbo-netty4 with threadpool=sluice: what the pool gives without Sluice's"
                        + " Transporter"));
        register(LEVERS, "dubbo-sluice+direct", () -> new DubboTarget("dubbo-sluice+direct", "sluice", "fastjson2",
                null, "direct", "dubbo-sluice with dispatcher=direct: service methods on the I/O thread. A"
                        + " measurement lever (the bound of removing the provider's hand-off), not a recommendation:"
                        + " a method that blocks stalls every connection of its event loop"));
        register(LEVERS, "dubbo-sluice+fastclient", () -> new DubboTarget("dubbo-sluice+fastclient", "sluice",
                "fastjson2", "the dubbo-sluice provider (server=sluice) called by a consumer with the consumer lever,"
                        + " sluice.consumer=fast (Sluice's client path under Dubbo's invoker chain)",
                java.util.Map.of("sluice.consumer", "fast")));
        register(PEERS, "dubbo-triple", () -> DubboTarget.triple("dubbo-triple",
                "Dubbo 3.3.6, triple protocol (tri, HTTP/2), hessian2 inside triple's protobuf wrapper (triple's"
                        + " default for a Java interface: no serialization named, Dubbo's default; the wrapper says"
                        + " hessian4), filter=-default:"
                        + " pays HTTP/2 (a stream per call, HPACK headers, trailers, flow control) and the wrapper (the"
                        + " hessian2 bytes copied into it, type names as strings) on top of hessian2; provider calls on"
                        + " Dubbo's fixed pool of 200 threads, the sync consumer decodes on the calling thread"));
        register(PEERS, "grpc-java", GrpcJavaTarget::new);
        register(OVERHEAD, "sluice+jfr", () -> new SluiceTarget("sluice+jfr", Serialization.FASTJSON2,
                SluiceTarget.Observed.JFR));
        register(OVERHEAD, "sluice+metrics", () -> new SluiceTarget("sluice+metrics", Serialization.FASTJSON2,
                SluiceTarget.Observed.METRICS));
        register(HESSIAN2, HESSIAN2_BASELINE, () -> new DubboTarget(HESSIAN2_BASELINE, "netty4", "hessian2",
                "Dubbo 3.3.6, dubbo protocol, hessian2 (Dubbo's default), server=netty4 client=netty4,"
                        + " filter=-default"));
        register(HESSIAN2, "dubbo-sluice-hessian2", () -> new DubboTarget("dubbo-sluice-hessian2", "sluice",
                "hessian2", "the same Dubbo 3.3.6 hessian2 app with server=sluice client=sluice"));
        register(HESSIAN2, "sluice-hessian2", () -> new SluiceTarget("sluice-hessian2", Serialization.HESSIAN2));
    }

    private Targets() {}

    private static void register(String group, String name, Supplier<BenchTarget> factory) {
        if (TARGETS.putIfAbsent(name, new Entry(group, factory)) != null) {
            throw new IllegalStateException("duplicate target " + name);
        }
    }

    /** All registered names, in report order (each group's baseline first in its group). */
    public static List<String> names() {
        return Collections.unmodifiableList(new ArrayList<>(TARGETS.keySet()));
    }

    /**
     * The names of one group, or for {@value #ALL} of every group but {@value #OVERHEAD} (what observing costs is
     * measured on purpose, not in every smoke); {@value #PEERS} with {@value #BASELINE} and {@code sluice}, which
     * they are compared with.
     */
    public static List<String> group(String group) {
        List<String> out = new ArrayList<>();
        TARGETS.forEach((name, e) -> {
            if (ALL.equals(group) && !OVERHEAD.equals(e.group()) || e.group().equals(group)
                    || PEERS.equals(group) && (BASELINE.equals(name) || "sluice".equals(name))) {
                out.add(name);
            }
        });
        return out;
    }

    /** The targets a run without {@code --targets} measures: the {@value #FASTJSON2} group. */
    public static List<String> defaultNames() {
        return group(FASTJSON2);
    }

    /** The group of a target name ({@value #FASTJSON2} for a name that is not registered). */
    public static String groupOf(String name) {
        Entry e = TARGETS.get(name);
        return e == null ? FASTJSON2 : e.group();
    }

    /** The target a row of {@code name} is compared with: Dubbo on netty4 in the same serialization. */
    public static String baselineOf(String name) {
        return HESSIAN2.equals(groupOf(name)) ? HESSIAN2_BASELINE : BASELINE;
    }

    /**
     * Expands a {@code --targets} list: target names stay, the group names {@value #FASTJSON2}, {@value #LEVERS},
     * {@value #PEERS}, {@value #HESSIAN2}, {@value #OVERHEAD} and {@value #ALL} become their targets. Order: registry
     * order; duplicates are dropped.
     *
     * @throws IllegalArgumentException for a name that is neither a target nor a group
     */
    public static List<String> expand(List<String> names) {
        Set<String> wanted = new LinkedHashSet<>();
        for (String n : names) {
            if (FASTJSON2.equals(n) || LEVERS.equals(n) || PEERS.equals(n) || HESSIAN2.equals(n)
                    || OVERHEAD.equals(n) || ALL.equals(n)) {
                wanted.addAll(group(n));
            } else if (TARGETS.containsKey(n)) {
                wanted.add(n);
            } else {
                throw new IllegalArgumentException("unknown target '" + n + "'; known: " + String.join(", ", names())
                        + " (groups: " + FASTJSON2 + ", " + LEVERS + ", " + PEERS + ", " + HESSIAN2 + ", " + OVERHEAD
                        + ", " + ALL
                        + ")");
            }
        }
        List<String> out = new ArrayList<>(names());
        out.retainAll(wanted);
        return out;
    }

    /** A new instance of the named target. */
    public static BenchTarget get(String name) {
        Entry e = TARGETS.get(name);
        if (e == null) {
            throw new IllegalArgumentException("unknown target '" + name + "'; known: " + String.join(", ", names()));
        }
        return e.factory().get();
    }
}
