package dev.sluice.benchmark;

import dev.sluice.benchmark.targets.DubboTarget;
import dev.sluice.benchmark.targets.RawTarget;
import dev.sluice.benchmark.targets.SluiceTarget;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The registry of benchmark targets, in report order. The first one is the baseline every other target is compared
 * with. To add a target, implement {@link BenchTarget} and add one {@code register} line here.
 */
public final class Targets {

    /** The baseline: real Dubbo 3.3.6 on its own netty4 transport, configured like dubbo-benchmark. */
    public static final String BASELINE = "dubbo-netty4";

    private static final Map<String, Supplier<BenchTarget>> TARGETS = new LinkedHashMap<>();

    static {
        register(BASELINE, () -> new DubboTarget(BASELINE, "netty4",
                "Dubbo 3.3.6, dubbo protocol, fastjson2, server=netty4 client=netty4, filter=-default"));
        register("dubbo-sluice", () -> new DubboTarget("dubbo-sluice", "sluice",
                "the same Dubbo 3.3.6 app with server=sluice client=sluice (Sluice's Dubbo Transporter)"));
        register("sluice", SluiceTarget::new);
        register("raw", RawTarget::new);
    }

    private Targets() {}

    private static void register(String name, Supplier<BenchTarget> factory) {
        if (TARGETS.putIfAbsent(name, factory) != null) {
            throw new IllegalStateException("duplicate target " + name);
        }
    }

    /** All registered names, baseline first. */
    public static List<String> names() {
        return Collections.unmodifiableList(new ArrayList<>(TARGETS.keySet()));
    }

    /** A new instance of the named target. */
    public static BenchTarget get(String name) {
        Supplier<BenchTarget> factory = TARGETS.get(name);
        if (factory == null) {
            throw new IllegalArgumentException("unknown target '" + name + "'; known: " + String.join(", ", names()));
        }
        return factory.get();
    }
}
