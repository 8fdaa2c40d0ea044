package dev.sluice.it.generic;

import dev.sluice.codec.dubbo.gadget.StaticInitGadget;
import dev.sluice.codec.dubbo.model.GenericTarget;
import dev.sluice.codec.dubbo.model.GenericTarget.Circle;
import dev.sluice.codec.dubbo.model.GenericTarget.Line;
import dev.sluice.codec.dubbo.model.GenericTarget.Order;
import dev.sluice.codec.dubbo.model.GenericTarget.OutOfStock;
import dev.sluice.codec.dubbo.model.GenericTarget.Shape;
import dev.sluice.it.harness.Scenario;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.dubbo.config.ReferenceConfig;
import org.apache.dubbo.rpc.service.GenericService;

/**
 * The generic-call cases of issue 34, run by any generic caller against a provider of {@link GenericTarget}
 * ({@code GenericTargetImpl}, plus a version 2.0 in group {@code g} whose answers start with {@code "v2/g "}):
 * primitives, a string, a POJO with a nested list, {@code List<POJO>}, a map, null, a declared exception (Dubbo's
 * {@code GenericException} carrying the original class and message), an unknown method, a subtype named in
 * {@code "class"} (the provider must allow {@link Circle}), a class the allowlist refuses ({@link StaticInitGadget},
 * named only as a string: a clear error naming it; its provider's JVM checks that it was never initialized), version
 * and group, and the asynchronous variant. Each case prints one {@code RESULT} line ({@link Scenario}).
 *
 * <p>References only the JDK, the model, {@link Scenario} and the parts of Dubbo's API that 2.7.23 and 3.3.6 share
 * (the same descriptors): it runs in the Dubbo 3.3.6 scenario's JVM and in the Dubbo 2.7.23 consumer's, which has
 * neither Sluice nor Dubbo 3 classes.
 */
public final class GenericCases {
    /** The cases, in the order they run; result names are {@code <prefix>.<case>}. */
    public static final List<String> CASES = List.of("primitives", "string", "pojo-nested-list", "list-of-pojo",
            "map", "null", "declared-exception", "unknown-method", "subtype-in-class", "refused-class",
            "version-group", "async");
    /** The class the refused-class case names, only as a string. */
    public static final String GADGET = "dev.sluice.codec.dubbo.gadget.StaticInitGadget";
    private static final Set<String> GENERIC_EXCEPTIONS = Set.of("org.apache.dubbo.rpc.service.GenericException",
            "dev.sluice.codec.dubbo.GenericException");
    private static final String STRING = "java.lang.String";

    private GenericCases() {
    }

    /**
     * A Dubbo generic reference ({@code generic=true}, {@code GenericService}) to {@link GenericTarget} by name at
     * {@code url}, as a gateway holds one: no registry check, remote only, no retries, 10 s timeout.
     */
    public static ReferenceConfig<GenericService> reference(String url, String version, String group) {
        ReferenceConfig<GenericService> ref = new ReferenceConfig<>();
        ref.setInterface(GenericTarget.class.getName());
        ref.setGeneric("true");
        ref.setUrl(url);
        ref.setCheck(false);
        ref.setScope("remote");
        ref.setTimeout(10_000);
        ref.setRetries(0);
        ref.setVersion(version);
        ref.setGroup(group);
        return ref;
    }

    /** One generic caller, whichever side makes the call. */
    @FunctionalInterface
    public interface Caller {
        Object call(String method, String[] types, Object[] args) throws Exception;
    }

    /** A generic caller's asynchronous variant. */
    @FunctionalInterface
    public interface AsyncCaller {
        CompletableFuture<Object> call(String method, String[] types, Object[] args);
    }

    private static Map<String, Object> line(String sku, int quantity) {
        Map<String, Object> m = new HashMap<>();
        m.put("sku", sku);
        m.put("quantity", quantity);
        return m;
    }

    /**
     * Runs every case of {@link #CASES} through {@code g} (the unversioned service), {@code v2} (version 2.0, group
     * g) and {@code async}, reporting {@code <prefix>.<case>}.
     */
    public static void run(String prefix, Caller g, Caller v2, AsyncCaller async) {
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
            require(System.getProperty(StaticInitGadget.TRACE) == null, "the provider initialized " + GADGET);
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

    /**
     * {exceptionClass, exceptionMessage} of Dubbo's or Sluice's GenericException, or null. Found by class name and
     * read through its getters: the JVM running these checks may have either class, not both.
     */
    private static String[] genericException(Throwable t) {
        for (Class<?> c = t.getClass(); c != null; c = c.getSuperclass()) {
            if (GENERIC_EXCEPTIONS.contains(c.getName())) {
                try {
                    return new String[] {(String) c.getMethod("getExceptionClass").invoke(t),
                        (String) c.getMethod("getExceptionMessage").invoke(t)};
                } catch (ReflectiveOperationException e) {
                    throw new AssertionError("cannot read " + c.getName() + ": " + e, e);
                }
            }
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
