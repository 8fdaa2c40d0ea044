package dev.sluice.it.generic;

import dev.sluice.it.generic.GenericTarget.Circle;
import dev.sluice.it.generic.GenericTarget.Line;
import dev.sluice.it.generic.GenericTarget.Order;
import dev.sluice.it.generic.GenericTarget.OutOfStock;
import dev.sluice.it.generic.GenericTarget.Shape;
import dev.sluice.it.harness.DubboPeers;
import dev.sluice.it.harness.Scenario;
import dev.sluice.rpc.Serialization;
import dev.sluice.rpc.SluiceClient;
import dev.sluice.rpc.SluiceServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.dubbo.config.ProtocolConfig;
import org.apache.dubbo.config.ReferenceConfig;
import org.apache.dubbo.config.ServiceConfig;
import org.apache.dubbo.config.bootstrap.DubboBootstrap;
import org.apache.dubbo.rpc.service.GenericService;

/**
 * Child-JVM scenario of {@link GenericInteropTest} (issue 34): generic calls both ways between Sluice and real Dubbo
 * 3.3.6, in hessian2 and fastjson2, inside the harness's private network namespace.
 * <ul>
 *   <li>{@code dubbo-consumer.<s>.<case>}: a Dubbo 3.3.6 consumer with {@code generic=true}
 *       ({@code GenericService.$invoke}, {@code serialization=<s>}) calls a {@code SluiceServer};</li>
 *   <li>{@code sluice-client.<s>.<case>}: {@code SluiceClient.generic(...)} calls a Dubbo 3.3.6 provider exporting
 *       the same {@link GenericTarget} on a port of serialization {@code <s>}.</li>
 * </ul>
 * Cases ({@link #CASES}): primitives, a string, a POJO with a nested list, {@code List<POJO>}, a map, null, a declared
 * exception (Dubbo's {@code GenericException} with the original class and message), an unknown method, a subtype
 * named in {@code "class"} (allowed explicitly on both providers), a class the allowlist refuses (a clear error,
 * and {@link GenericGadget} never initialized in this JVM), version and group, and the asynchronous variant.
 */
public final class GenericInteropScenario {
    static final String START = "start";
    static final String STOP = "stop";
    static final String GADGET_NEVER_LOADED = "gadget-never-loaded";
    static final List<String> SERIALIZATIONS = List.of("hessian2", "fastjson2");
    static final List<String> SIDES = List.of("dubbo-consumer", "sluice-client");
    static final List<String> CASES = List.of("primitives", "string", "pojo-nested-list", "list-of-pojo", "map",
            "null", "declared-exception", "unknown-method", "subtype-in-class", "refused-class", "version-group",
            "async");
    static final String GADGET = "dev.sluice.it.generic.GenericGadget";
    private static final String SERVICE = GenericTarget.class.getName();
    private static final String STRING = "java.lang.String";

    /** Every result this scenario reports. */
    static final List<String> CHECKS = checks();

    private GenericInteropScenario() {
    }

    private static List<String> checks() {
        List<String> names = new ArrayList<>(List.of(START));
        for (String side : SIDES) {
            for (String s : SERIALIZATIONS) {
                for (String c : CASES) {
                    names.add(side + "." + s + "." + c);
                }
            }
        }
        names.add(GADGET_NEVER_LOADED);
        names.add(STOP);
        return Collections.unmodifiableList(names);
    }

    /** The implementation both providers export; {@code prefix} tells the version-2.0 one apart. */
    static class Impl implements GenericTarget {
        private final String prefix;

        Impl(String prefix) {
            this.prefix = prefix;
        }

        @Override
        public long add(int a, long b) {
            return a + b;
        }

        @Override
        public String greet(String name) {
            return prefix + "hello " + name;
        }

        @Override
        public Order total(Order order) {
            Order out = new Order();
            out.setId(order.getId() + 1);
            out.setCustomer(order.getCustomer().toUpperCase());
            for (Line l : order.getLines()) {
                Line c = new Line();
                c.setSku(l.getSku());
                c.setQuantity(l.getQuantity() * 2);
                out.getLines().add(c);
            }
            return out;
        }

        @Override
        public List<Line> split(List<Line> lines) {
            List<Line> out = new ArrayList<>();
            for (Line l : lines) {
                for (int i = 0; i < l.getQuantity(); i++) {
                    Line one = new Line();
                    one.setSku(l.getSku());
                    one.setQuantity(1);
                    out.add(one);
                }
            }
            return out;
        }

        @Override
        public Map<String, Integer> counts(Map<String, Integer> counts) {
            Map<String, Integer> out = new HashMap<>();
            counts.forEach((k, v) -> out.put(k.toUpperCase(), v + 1));
            return out;
        }

        @Override
        public String nothing(String value) {
            return value;
        }

        @Override
        public String kind(Shape shape) {
            return shape.getClass().getName() + ":" + shape.getName();
        }

        @Override
        public void reserve(String sku) throws OutOfStock {
            throw new OutOfStock("no " + sku);
        }
    }

    /** One generic caller, whichever side makes the call. */
    @FunctionalInterface
    interface Caller {
        Object call(String method, String[] types, Object[] args) throws Exception;
    }

    /** A generic caller's asynchronous variant. */
    @FunctionalInterface
    interface AsyncCaller {
        CompletableFuture<Object> call(String method, String[] types, Object[] args);
    }

    public static void main(String[] args) {
        Scenario.run(() -> {
            DubboPeers.quietDefaults();
            // The subtype named in "class": Dubbo's STRICT check accepts it only when allowed, as Sluice's does.
            System.setProperty("dubbo.security.serialize.allowedClassList", Circle.class.getName());
            String host = Scenario.testAddress();
            long t0 = System.nanoTime();

            SluiceServer server = SluiceServer.builder().port(0)
                    .register(GenericTarget.class, new Impl(""))
                    .register(GenericTarget.class, new Impl("v2/g "), "2.0", "g")
                    .allowClasses(Circle.class.getName())
                    .start();

            int fastjson2Port = DubboPeers.freePort();
            int hessian2Port = DubboPeers.freePort();
            while (hessian2Port == fastjson2Port) {
                hessian2Port = DubboPeers.freePort();
            }
            ProtocolConfig fastjson2 = DubboPeers.dubboProtocol(fastjson2Port);
            fastjson2.setId("dubbo-fastjson2");
            ProtocolConfig hessian2 = new ProtocolConfig("dubbo", hessian2Port);
            hessian2.setServer("netty4");
            hessian2.setSerialization("hessian2");
            hessian2.setId("dubbo-hessian2");
            ServiceConfig<GenericTarget> plain = DubboPeers.service(GenericTarget.class, new Impl(""));
            plain.setProtocols(List.of(fastjson2, hessian2));
            ServiceConfig<GenericTarget> v2 = DubboPeers.service(GenericTarget.class, new Impl("v2/g "));
            v2.setVersion("2.0");
            v2.setGroup("g");
            v2.setProtocols(List.of(fastjson2, hessian2));

            Map<String, ReferenceConfig<GenericService>> plainRefs = new HashMap<>();
            Map<String, ReferenceConfig<GenericService>> v2Refs = new HashMap<>();
            List<ReferenceConfig<?>> refs = new ArrayList<>();
            for (String s : SERIALIZATIONS) {
                plainRefs.put(s, genericReference(host, server.port(), s, null, null));
                v2Refs.put(s, genericReference(host, server.port(), s, "2.0", "g"));
                refs.add(plainRefs.get(s));
                refs.add(v2Refs.get(s));
            }
            DubboBootstrap bootstrap = DubboBootstrap.getInstance()
                    .application(DubboPeers.application("sluice-generic-interop"))
                    .registry(DubboPeers.noRegistry())
                    .protocols(List.of(fastjson2, hessian2))
                    .service(plain)
                    .service(v2)
                    .references(new ArrayList<>(refs))
                    .start();
            Scenario.ok(START, "ms", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0), "sluicePort",
                    server.port(), "fastjson2Port", fastjson2Port, "hessian2Port", hessian2Port, "network",
                    Scenario.network(), "host", host);

            for (String s : SERIALIZATIONS) {
                GenericService g = plainRefs.get(s).get();
                GenericService gv2 = v2Refs.get(s).get();
                cases("dubbo-consumer." + s, g::$invoke, gv2::$invoke, g::$invokeAsync);
            }
            List<SluiceClient> clients = new ArrayList<>();
            for (String s : SERIALIZATIONS) {
                boolean fj = "fastjson2".equals(s);
                SluiceClient client = SluiceClient.builder().address(host, fj ? fastjson2Port : hessian2Port)
                        .serialization(fj ? Serialization.FASTJSON2 : Serialization.HESSIAN2)
                        .timeout(Duration.ofSeconds(10)).failIfNotConnected(true).build();
                clients.add(client);
                dev.sluice.rpc.GenericService g = client.generic(SERVICE).service();
                dev.sluice.rpc.GenericService gv2 = client.generic(SERVICE).version("2.0").group("g").service();
                cases("sluice-client." + s, g::invoke, gv2::invoke, g::invokeAsync);
            }
            Scenario.check(GADGET_NEVER_LOADED, System.getProperty(GenericGadget.TRACE) == null,
                    "a provider initialized " + GADGET);

            long t1 = System.nanoTime();
            for (SluiceClient c : clients) {
                c.close();
            }
            bootstrap.stop();
            server.close();
            Scenario.ok(STOP, "ms", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t1));
        });
    }

    private static ReferenceConfig<GenericService> genericReference(String host, int port, String serialization,
                                                                    String version, String group) {
        ReferenceConfig<GenericService> ref = new ReferenceConfig<>();
        ref.setInterface(SERVICE);
        ref.setGeneric("true");
        ref.setUrl("dubbo://" + host + ":" + port + "?serialization=" + serialization);
        ref.setClient("netty4");
        ref.setCheck(false);
        ref.setScope("remote");
        ref.setTimeout(10_000);
        ref.setRetries(0);
        ref.setVersion(version);
        ref.setGroup(group);
        ref.setId("generic-" + serialization + (version == null ? "" : "-" + version));
        return ref;
    }

    private static Map<String, Object> line(String sku, int quantity) {
        Map<String, Object> m = new HashMap<>();
        m.put("sku", sku);
        m.put("quantity", quantity);
        return m;
    }

    private static void cases(String prefix, Caller g, Caller v2, AsyncCaller async) {
        check(prefix + ".primitives", () -> {
            Object r = g.call("add", new String[] {"int", "long"}, new Object[] {2, 3L});
            require(r instanceof Number && ((Number) r).longValue() == 5, "add(2, 3) = " + r);
            return r;
        });
        check(prefix + ".string", () -> {
            Object r = g.call("greet", new String[] {STRING}, new Object[] {"ann"});
            require("hello ann".equals(r), "greet = " + r);
            return r;
        });
        check(prefix + ".pojo-nested-list", () -> {
            Map<String, Object> order = new HashMap<>();
            order.put("class", Order.class.getName());
            order.put("id", 41);
            order.put("customer", "ann");
            order.put("lines", new ArrayList<>(List.of(line("a", 1), line("b", 2))));
            Map<?, ?> r = (Map<?, ?>) g.call("total", new String[] {Order.class.getName()}, new Object[] {order});
            require(Order.class.getName().equals(r.get("class")), "class " + r.get("class"));
            require(((Number) r.get("id")).longValue() == 42 && "ANN".equals(r.get("customer")), "order " + r);
            List<?> lines = (List<?>) r.get("lines");
            Map<?, ?> second = (Map<?, ?>) lines.get(1);
            require(lines.size() == 2 && Line.class.getName().equals(second.get("class"))
                    && "b".equals(second.get("sku")) && ((Number) second.get("quantity")).intValue() == 4,
                    "lines " + lines);
            return r;
        });
        check(prefix + ".list-of-pojo", () -> {
            List<?> r = (List<?>) g.call("split", new String[] {"java.util.List"},
                    new Object[] {new ArrayList<>(List.of(line("c", 3), line("d", 1)))});
            require(r.size() == 4 && "d".equals(((Map<?, ?>) r.get(3)).get("sku"))
                    && Line.class.getName().equals(((Map<?, ?>) r.get(0)).get("class")), "split " + r);
            return r;
        });
        check(prefix + ".map", () -> {
            Map<?, ?> r = (Map<?, ?>) g.call("counts", new String[] {"java.util.Map"},
                    new Object[] {new HashMap<>(Map.of("x", 1, "y", 2))});
            require(r.size() == 2 && ((Number) r.get("X")).intValue() == 2 && ((Number) r.get("Y")).intValue() == 3,
                    "counts " + r);
            return r;
        });
        check(prefix + ".null", () -> {
            Object r = g.call("nothing", new String[] {STRING}, new Object[] {null});
            require(r == null, "nothing(null) = " + r);
            return "null";
        });
        check(prefix + ".declared-exception", () -> {
            Throwable t = thrown(() -> g.call("reserve", new String[] {STRING}, new Object[] {"sku-9"}));
            String[] ge = genericException(t);
            require(ge != null, "not a GenericException: " + t);
            require(OutOfStock.class.getName().equals(ge[0]) && "no sku-9".equals(ge[1]),
                    "exceptionClass " + ge[0] + ", exceptionMessage " + ge[1]);
            require(t.getMessage() != null && t.getMessage().startsWith(OutOfStock.class.getName() + ": no sku-9"),
                    "message " + t.getMessage());
            return t.getClass().getName();
        });
        check(prefix + ".unknown-method", () -> {
            Throwable t = thrown(() -> g.call("nope", new String[] {STRING}, new Object[] {"x"}));
            require(text(t).contains("No such method nope"), "error " + text(t));
            return t.getClass().getName();
        });
        check(prefix + ".subtype-in-class", () -> {
            Map<String, Object> circle = new HashMap<>(Map.of("class", Circle.class.getName(), "name", "c1",
                    "radius", 2.5));
            Object r = g.call("kind", new String[] {Shape.class.getName()}, new Object[] {circle});
            require((Circle.class.getName() + ":c1").equals(r), "kind = " + r);
            return r;
        });
        check(prefix + ".refused-class", () -> {
            Map<String, Object> gadget = new HashMap<>(Map.of("class", GADGET, "name", "g", "command", "touch x"));
            Throwable t = thrown(() -> g.call("kind", new String[] {Shape.class.getName()}, new Object[] {gadget}));
            String text = text(t);
            require(text.contains(GADGET) && (text.contains("Refused to deserialize type")
                    || text.contains("not in allow list")), "error " + text);
            require(System.getProperty(GenericGadget.TRACE) == null, "the provider initialized " + GADGET);
            return t.getClass().getName();
        });
        check(prefix + ".version-group", () -> {
            Object r = v2.call("greet", new String[] {STRING}, new Object[] {"bo"});
            require("v2/g hello bo".equals(r), "greet 2.0/g = " + r);
            return r;
        });
        check(prefix + ".async", () -> {
            Object r = async.call("greet", new String[] {STRING}, new Object[] {"async"}).get(10, TimeUnit.SECONDS);
            require("hello async".equals(r), "async greet = " + r);
            return r;
        });
    }

    /** {exceptionClass, exceptionMessage} of Dubbo's or Sluice's GenericException, or null. */
    private static String[] genericException(Throwable t) {
        if (t instanceof org.apache.dubbo.rpc.service.GenericException) {
            org.apache.dubbo.rpc.service.GenericException g = (org.apache.dubbo.rpc.service.GenericException) t;
            return new String[] {g.getExceptionClass(), g.getExceptionMessage()};
        }
        if (t instanceof dev.sluice.codec.dubbo.GenericException) {
            dev.sluice.codec.dubbo.GenericException g = (dev.sluice.codec.dubbo.GenericException) t;
            return new String[] {g.getExceptionClass(), g.getExceptionMessage()};
        }
        return null;
    }

    /** The messages of {@code t} and its causes. */
    private static String text(Throwable t) {
        StringBuilder b = new StringBuilder();
        for (Throwable c = t; c != null && b.length() < 20_000; c = c.getCause() == c ? null : c.getCause()) {
            b.append(c).append(" / ");
        }
        return b.toString();
    }

    @FunctionalInterface
    private interface Body {
        Object run() throws Exception;
    }

    private static Throwable thrown(Body body) throws Exception {
        try {
            Object r = body.run();
            throw new AssertionError("no exception; answered " + r);
        } catch (ExecutionException e) {
            return e.getCause();
        } catch (AssertionError e) {
            throw e;
        } catch (Exception e) { // NOPMD: the exception is the result
            return e;
        }
    }

    private static void require(boolean condition, String message) {
        if (!condition) {
            throw new AssertionError(message);
        }
    }

    private static void check(String name, Body body) {
        long start = System.nanoTime();
        try {
            Object value = body.run();
            String shown = String.valueOf(value);
            Scenario.ok(name, "ms", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start), "value",
                    shown.length() <= 120 ? shown : shown.substring(0, 120) + "...");
        } catch (Throwable t) { // NOPMD: any failure is this check's result
            System.err.println("check " + name + " failed:");
            t.printStackTrace();
            Scenario.fail(name, text(t));
        }
    }
}
