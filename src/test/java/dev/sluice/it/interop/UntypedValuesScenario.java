package dev.sluice.it.interop;

import com.alibaba.fastjson2.JSON;
import com.alibaba.fastjson2.JSONArray;
import com.alibaba.fastjson2.JSONObject;
import dev.sluice.codec.dubbo.TestValues;
import dev.sluice.codec.dubbo.UntypedKinds;
import dev.sluice.it.harness.DubboPeers;
import dev.sluice.it.harness.Scenario;
import dev.sluice.rpc.Serialization;
import dev.sluice.rpc.SluiceClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.dubbo.config.ProtocolConfig;
import org.apache.dubbo.config.ServiceConfig;
import org.apache.dubbo.config.bootstrap.DubboBootstrap;

/**
 * Child-JVM scenario of {@link UntypedValuesInteropTest}: {@link SluiceClient}s read the untyped values a real Dubbo
 * 3.3.6 provider sends, in both serializations. One provider ({@code server=netty4}, registry N/A) exports
 * {@link UntypedValuesService} on two ports: one with {@code serialization=fastjson2}, one left at Dubbo's defaults
 * (hessian2); a SluiceClient of the matching serialization calls each over {@link Scenario#testAddress()}.
 *
 * <p>Per serialization ({@code <s>} is {@code fastjson2} or {@code hessian2}):
 * <ul>
 *   <li>{@code <s>.echo-map}, {@code <s>.echo-list}, {@code <s>.echo-object}: the provider echoes untyped arguments
 *       holding nested lists and maps, as it read them (metric {@code provider}: the classes it held). On fastjson2,
 *       Dubbo reads the lists inside a {@code Map<String, Object>} argument as fastjson2's {@code JSONArray} and
 *       writes them back under that name; {@code echo-map} requires that to have happened;</li>
 *   <li>{@code <s>.parsed-json}: the provider returns {@code JSON.parseObject(text)};</li>
 *   <li>{@code <s>.kinds-map} and {@code <s>.kinds-object}: every kind of {@link #kinds()} inside one
 *       {@code Map<String, Object>} result, and each as an {@code Object} result.</li>
 * </ul>
 * Each value must come back equal to what the provider sent, without an error; a top-level {@code JSONObject} /
 * {@code JSONArray} must arrive as a {@code LinkedHashMap} / {@code ArrayList}.
 */
public final class UntypedValuesScenario {
    static final String START = "start";
    static final String STOP = "stop";
    static final List<String> SERIALIZATIONS = List.of("fastjson2", "hessian2");
    static final String ECHO_MAP = "echo-map";
    static final String ECHO_LIST = "echo-list";
    static final String ECHO_OBJECT = "echo-object";
    static final String PARSED_JSON = "parsed-json";
    static final String KINDS_MAP = "kinds-map";
    static final String KINDS_OBJECT = "kinds-object";

    /** Every result this scenario reports. */
    static final List<String> CHECKS = checks();

    private UntypedValuesScenario() {
    }

    private static List<String> checks() {
        List<String> names = new ArrayList<>(List.of(START));
        for (String s : SERIALIZATIONS) {
            for (String check : List.of(ECHO_MAP, ECHO_LIST, ECHO_OBJECT, PARSED_JSON, KINDS_MAP, KINDS_OBJECT)) {
                names.add(s + "." + check);
            }
        }
        names.add(STOP);
        return Collections.unmodifiableList(names);
    }

    /**
     * Each kind of value a provider may hold for an untyped position, by name; built anew per call. The same list as
     * the codec's unit test {@code UntypedValuesTest}.
     */
    static Map<String, Object> kinds() {
        return UntypedKinds.values();
    }

    /** The provider: echoes what it read and remembers it, so the scenario can see what Dubbo made of it. */
    static final class Provider implements UntypedValuesService {
        volatile Object lastRead;

        @Override
        public Map<String, Object> echoMap(Map<String, Object> value) {
            lastRead = value;
            return value;
        }

        @Override
        public List<Object> echoList(List<Object> value) {
            lastRead = value;
            return value;
        }

        @Override
        public Object echo(Object value) {
            lastRead = value;
            return value;
        }

        @Override
        public Map<String, Object> parse(String json) {
            return JSON.parseObject(json);
        }

        @Override
        public Map<String, Object> kinds() {
            return UntypedValuesScenario.kinds();
        }

        @Override
        public Object kind(String name) {
            return UntypedValuesScenario.kinds().get(name);
        }
    }

    public static void main(String[] args) {
        Scenario.run(() -> {
            DubboPeers.quietDefaults();
            String host = Scenario.testAddress();
            long t0 = System.nanoTime();
            List<ProtocolConfig> protocols = DubboPeers.fastjson2AndHessian2();
            ProtocolConfig fastjson2 = protocols.get(0);
            ProtocolConfig hessian2 = protocols.get(1);
            int fastjson2Port = fastjson2.getPort();
            int hessian2Port = hessian2.getPort();
            Provider provider = new Provider();
            ServiceConfig<UntypedValuesService> service = DubboPeers.service(UntypedValuesService.class, provider);
            service.setProtocols(List.of(fastjson2, hessian2));
            DubboBootstrap bootstrap = DubboBootstrap.getInstance()
                    .application(DubboPeers.application("sluice-untyped-provider"))
                    .registry(DubboPeers.noRegistry())
                    .protocols(List.of(fastjson2, hessian2))
                    .service(service)
                    .start();
            SluiceClient fastjson2Client = client(host, fastjson2Port, Serialization.FASTJSON2);
            SluiceClient hessian2Client = client(host, hessian2Port, Serialization.HESSIAN2);
            Scenario.ok(START, "ms", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0), "fastjson2Port",
                    fastjson2Port, "hessian2Port", hessian2Port, "network", Scenario.network(), "host", host);

            checks("fastjson2", fastjson2Client.proxy(UntypedValuesService.class), provider, true);
            checks("hessian2", hessian2Client.proxy(UntypedValuesService.class), provider, false);

            long t1 = System.nanoTime();
            fastjson2Client.close();
            hessian2Client.close();
            bootstrap.stop();
            Scenario.ok(STOP, "ms", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t1));
        });
    }

    private static SluiceClient client(String host, int port, Serialization serialization) {
        return SluiceClient.builder().address(host, port).serialization(serialization)
                .timeout(Duration.ofSeconds(10)).failIfNotConnected(true).build();
    }

    private static void checks(String s, UntypedValuesService service, Provider provider, boolean fastjson2) {
        check(s + "." + ECHO_MAP, () -> {
            Map<String, Object> sent = new HashMap<>();
            sent.put("list", new ArrayList<>(List.of(1, "a", new ArrayList<>(List.of(2)))));
            sent.put("map", new HashMap<>(Map.of("x", 1, "nested", new ArrayList<>(List.of(true)))));
            sent.put("n", 3);
            Map<String, Object> back = service.echoMap(sent);
            return echoed(sent, back, provider, fastjson2);
        });
        check(s + "." + ECHO_LIST, () -> {
            List<Object> sent = new ArrayList<>();
            sent.add(new HashMap<>(Map.of("k", new ArrayList<>(List.of("v")))));
            sent.add(new ArrayList<>(List.of(new HashMap<>(Map.of("a", 1)))));
            sent.add("s");
            List<Object> back = service.echoList(sent);
            // Dubbo's fastjson2 reads a List<Object> argument into JDK classes: reported, not required.
            return echoed(sent, back, provider, false);
        });
        check(s + "." + ECHO_OBJECT, () -> {
            Map<String, Object> sent = new HashMap<>();
            sent.put("rows", new ArrayList<>(List.of(new HashMap<>(Map.of("id", 1)), new HashMap<>(Map.of("id", 2)))));
            sent.put("meta", new HashMap<>(Map.of("tags", new ArrayList<>(List.of("t")))));
            Object back = service.echo(sent);
            // The provider read it as Object: what it holds is what fastjson2's or hessian-lite's untyped read gives.
            return echoed(sent, back, provider, false);
        });
        check(s + "." + PARSED_JSON, () -> {
            Map<String, Object> back = service.parse(UntypedKinds.JSON_TEXT);
            require(back instanceof LinkedHashMap, "a JSONObject arrived as " + className(back));
            same(JSON.parseObject(UntypedKinds.JSON_TEXT), back, "parsed JSON");
            return new Object[] {"read", classes(back)};
        });
        check(s + "." + KINDS_MAP, () -> {
            Map<String, Object> back = service.kinds();
            Map<String, Object> expected = kinds();
            require(back.keySet().equals(expected.keySet()), "kinds " + back.keySet());
            for (String kind : expected.keySet()) {
                same(expected.get(kind), back.get(kind), kind);
            }
            return new Object[] {"kinds", expected.size()};
        });
        check(s + "." + KINDS_OBJECT, () -> {
            Map<String, Object> expected = kinds();
            List<String> failed = new ArrayList<>();
            for (String kind : expected.keySet()) {
                try {
                    Object back = service.kind(kind);
                    same(expected.get(kind), back, kind);
                    if (expected.get(kind) instanceof JSONObject) {
                        require(back.getClass() == LinkedHashMap.class, "a JSONObject arrived as " + className(back));
                    } else if (expected.get(kind) instanceof JSONArray) {
                        require(back.getClass() == ArrayList.class, "a JSONArray arrived as " + className(back));
                    }
                } catch (RuntimeException | AssertionError e) {
                    failed.add(kind + ": " + e);
                }
            }
            require(failed.isEmpty(), failed.size() + " of " + expected.size() + " kinds failed: " + failed);
            return new Object[] {"kinds", expected.size()};
        });
    }

    /**
     * The echo came back equal; the provider's copy is reported, and on fastjson2 must hold one of fastjson2's
     * containers (else this check would not test what it is named for).
     */
    private static Object[] echoed(Object sent, Object back, Provider provider, boolean providerMustHoldFastjson2) {
        same(sent, back, "echo");
        String providerRead = classes(provider.lastRead);
        if (providerMustHoldFastjson2) {
            require(providerRead.contains("JSONArray") || providerRead.contains("JSONObject"),
                    "the provider read no JSONObject or JSONArray, so nothing was tested: " + providerRead);
        }
        return new Object[] {"provider", providerRead, "read", classes(back)};
    }

    // ---- checks and comparison ----

    @FunctionalInterface
    private interface Check {
        Object[] run() throws Exception;
    }

    private static void check(String name, Check body) {
        long start = System.nanoTime();
        try {
            Object[] metrics = body.run();
            Object[] line = new Object[metrics.length + 2];
            line[0] = "ms";
            line[1] = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            System.arraycopy(metrics, 0, line, 2, metrics.length);
            Scenario.ok(name, line);
        } catch (Throwable t) {
            System.err.println("check " + name + " failed:");
            t.printStackTrace();
            Scenario.fail(name, t.toString() + (t.getCause() == null ? "" : " / cause: " + t.getCause()));
        }
    }

    private static void require(boolean condition, String message) {
        if (!condition) {
            throw new AssertionError(message);
        }
    }

    private static void same(Object expected, Object actual, String what) {
        Object e = TestValues.normalize(expected);
        Object a = TestValues.normalize(actual);
        require(java.util.Objects.equals(e, a), what + ": expected " + e + " but read " + a + " (" + classes(actual)
                + ")");
    }

    /** The simple names of the container classes in a value, outermost first, without repeats. */
    private static String classes(Object v) {
        Set<String> names = new LinkedHashSet<>();
        collect(v, names, Collections.newSetFromMap(new IdentityHashMap<>()));
        return String.join(",", names);
    }

    private static void collect(Object v, Set<String> names, Set<Object> seen) {
        if (v == null || !seen.add(v)) {
            return;
        }
        if (v instanceof Map) {
            names.add(className(v));
            ((Map<?, ?>) v).values().forEach(x -> collect(x, names, seen));
        } else if (v instanceof Collection) {
            names.add(className(v));
            ((Collection<?>) v).forEach(x -> collect(x, names, seen));
        } else if (v instanceof Object[]) {
            names.add(className(v));
            Arrays.stream((Object[]) v).forEach(x -> collect(x, names, seen));
        }
    }

    private static String className(Object v) {
        if (v == null) {
            return "null";
        }
        String n = v.getClass().getName();
        return n.substring(n.lastIndexOf('.') + 1);
    }
}
