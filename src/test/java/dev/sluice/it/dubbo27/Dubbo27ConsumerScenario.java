package dev.sluice.it.dubbo27;

import static dev.sluice.it.dubbo27.Dubbo27Checks.CONTROL;

import dev.sluice.it.generic.GenericCases;
import dev.sluice.it.harness.Scenario;
import dev.sluice.it.rpc.model.Item;
import dev.sluice.it.rpc.model.TypesChecks;
import dev.sluice.it.rpc.model.TypesService;
import dev.sluice.it.rpc.model.UserServiceAnswers;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.reflect.Method;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.dubbo.benchmark.service.UserService;
import org.apache.dubbo.common.Version;
import org.apache.dubbo.common.utils.NetUtils;
import org.apache.dubbo.config.ApplicationConfig;
import org.apache.dubbo.config.MethodConfig;
import org.apache.dubbo.config.ReferenceConfig;
import org.apache.dubbo.config.RegistryConfig;
import org.apache.dubbo.rpc.Invoker;
import org.apache.dubbo.rpc.RpcContext;
import org.apache.dubbo.rpc.RpcException;
import org.apache.dubbo.rpc.service.EchoService;
import org.apache.dubbo.rpc.service.GenericService;

/**
 * The Dubbo 2.7.23 consumer of {@link Dubbo27ConsumerInteropTest}. Runs in a JVM started by
 * {@link Dubbo27HostScenario} on Dubbo 2.7.23's own classpath (Netty 4.1, the hessian-lite 3.2 inside the dubbo jar)
 * plus the few test classes it needs, inside the host's network namespace; it calls the host's {@code SluiceServer}s
 * with Dubbo 2.7's defaults: no serialization setting, so hessian2, the only serialization a 2.7 consumer has for
 * these types.
 *
 * <p>Compiled against Dubbo 3.3.6 (the test classpath) but linked against 2.7.23 at run time, so it calls only
 * methods whose descriptors are the same in both (checked with javap), and reaches the two that differ by reflection:
 * {@code RpcContext.getServerContext()} (returns {@code RpcContextAttachment} in 3.x) and the package-private
 * {@code ReferenceConfig.getInvoker()} of 2.7.
 *
 * <p>Args: {@code host mainPort closingPort}. Runs on its main thread; reports each check as a {@code RESULT} line on
 * stdout; talks to the host through {@code CONTROL} lines on stdout and replies on stdin.
 */
public final class Dubbo27ConsumerScenario {
    private static final String APPLICATION = "sluice-dubbo27-consumer";
    private static final List<String> ATTACHMENT_VALUES = List.of("", "caf\u00e9 \u00e4", "\u8ffd\u8e2a-\ud83d\ude00",
            "a".repeat(48), "b".repeat(3000));
    private static final int LOAD_THREADS = 32;
    private static final int LOAD_CALLS_PER_THREAD = 50;

    private static BufferedReader control;

    private Dubbo27ConsumerScenario() {
    }

    public static void main(String[] args) {
        Scenario.run(() -> {
            String host = args[0];
            int mainPort = Integer.parseInt(args[1]);
            int closingPort = Integer.parseInt(args[2]);
            control = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            Path home = Scenario.workDirectory().resolve("home");
            Files.createDirectories(home);
            System.setProperty("user.home", home.toString()); // Dubbo's ~/.dubbo caches stay in this run

            long t0 = System.nanoTime();
            ApplicationConfig app = new ApplicationConfig(APPLICATION);
            app.setQosEnable(false);
            RegistryConfig noRegistry = new RegistryConfig(RegistryConfig.NO_AVAILABLE);

            ReferenceConfig<TypesService> typesRef = reference(TypesService.class, app, noRegistry, host, mainPort,
                    10_000);
            MethodConfig fire = new MethodConfig();
            fire.setName("fire");
            fire.setReturn(false); // Dubbo's one-way call
            typesRef.setMethods(List.of(fire));
            // Attachments through Dubbo's cluster layer, as a 2.7 application with a registry always has it: with a
            // single direct URL, 2.7.23 refers the protocol invoker without a cluster, so its cluster interceptor
            // (ConsumerContextClusterInterceptor) never runs: RpcContext attachments are then not cleared after a
            // call, and response attachments never reach RpcContext.getServerContext(). Two direct URLs of the same
            // server make a StaticDirectory and a cluster invoker over one shared connection; failover, because
            // 2.7.23's default for several direct URLs, zone-aware, expects registry invokers and fails with a
            // ClassCastException (FilterNode to MigrationClusterInvoker).
            ReferenceConfig<TypesService> attachmentsRef = reference(TypesService.class, app, noRegistry, host,
                    mainPort, 10_000);
            attachmentsRef.setUrl(url(host, mainPort) + ";" + url(host, mainPort));
            attachmentsRef.setCluster("failover");
            ReferenceConfig<TypesService> v1Ref = reference(TypesService.class, app, noRegistry, host, mainPort,
                    10_000);
            v1Ref.setVersion("1.0");
            ReferenceConfig<TypesService> v2aRef = reference(TypesService.class, app, noRegistry, host, mainPort,
                    10_000);
            v2aRef.setVersion("2.0");
            v2aRef.setGroup("a");
            ReferenceConfig<TypesService> v3Ref = reference(TypesService.class, app, noRegistry, host, mainPort,
                    10_000);
            v3Ref.setVersion("3.0");
            ReferenceConfig<UserService> usersRef = reference(UserService.class, app, noRegistry, host, mainPort,
                    10_000);
            ReferenceConfig<TypesService> closingRef = reference(TypesService.class, app, noRegistry, host,
                    closingPort, 15_000);
            MethodConfig hold = new MethodConfig();
            hold.setName("fire");
            hold.setReturn(false);
            closingRef.setMethods(List.of(hold));

            TypesService s = typesRef.get();
            checkStart(t0, host, mainPort);

            for (Map.Entry<String, TypesChecks.Check> e : TypesChecks.checks().entrySet()) {
                check(Dubbo27Checks.TYPES + e.getKey(), () -> e.getValue().run(s));
            }
            attachments(attachmentsRef.get());
            check(Dubbo27Checks.PAYLOAD_LARGE, () -> {
                String big = "x".repeat(1 << 20) + "\u4e2d\u6587".repeat(100_000) + "\ud83d\ude80";
                require(big.equals(s.echo(big)), "a 2.4 MB string changed on the way");
            });
            check(Dubbo27Checks.PAYLOAD_MANY, () -> {
                List<Item> items = s.items(5_000);
                require(items.size() == 5_000 && "item4999".equals(items.get(4_999).getName()),
                        "got " + items.size() + " items");
            });
            check(Dubbo27Checks.ECHO_SERVICE, () -> {
                Object answer = ((EchoService) s).$echo("ping"); // Dubbo's built-in liveness call
                require("ping".equals(answer), "$echo answered " + answer);
            });
            check(Dubbo27Checks.ONE_WAY, () -> s.fire("go")); // the host checks that it ran
            check(Dubbo27Checks.VERSION_GROUP, () -> {
                require("x".equals(s.echo("x")), "unversioned");
                require("v1:x".equals(v1Ref.get().echo("x")), "version 1.0 not routed to its implementation");
                require("v2a:x".equals(v2aRef.get().echo("x")), "version 2.0 group a not routed");
            });
            check(Dubbo27Checks.VERSION_UNKNOWN, () -> {
                try {
                    String answer = v3Ref.get().echo("x");
                    throw new AssertionError("an unknown version answered " + answer);
                } catch (RpcException e) {
                    require(String.valueOf(e.getMessage()).contains("3.0"), "message does not name the version: "
                            + e.getMessage());
                }
            });
            ReferenceConfig<GenericService> genericRef = GenericCases.reference(url(host, mainPort), null, null);
            ReferenceConfig<GenericService> genericV2Ref = GenericCases.reference(url(host, mainPort), "2.0", "g");
            for (ReferenceConfig<GenericService> r : List.of(genericRef, genericV2Ref)) {
                r.setApplication(app);
                r.setRegistry(noRegistry);
            }
            GenericService generic = genericRef.get();
            GenericService genericV2 = genericV2Ref.get();
            GenericCases.run(Dubbo27Checks.GENERIC, generic::$invoke, genericV2::$invoke, generic::$invokeAsync);
            users(usersRef.get());
            readonly(closingRef);
            genericRef.destroy();
            genericV2Ref.destroy();

            typesRef.destroy();
            attachmentsRef.destroy();
            v1Ref.destroy();
            v2aRef.destroy();
            v3Ref.destroy();
            usersRef.destroy();
            closingRef.destroy();
        });
    }

    private static <T> ReferenceConfig<T> reference(Class<T> type, ApplicationConfig app, RegistryConfig registry,
            String host, int port, int timeoutMillis) {
        ReferenceConfig<T> ref = new ReferenceConfig<>();
        ref.setApplication(app);
        ref.setRegistry(registry);
        ref.setInterface(type);
        ref.setUrl(url(host, port));
        ref.setCheck(false);
        ref.setScope("remote");
        ref.setTimeout(timeoutMillis);
        ref.setRetries(0);
        return ref;
    }

    /** A direct URL with no serialization parameter: Dubbo 2.7's default, hessian2. */
    private static String url(String host, int port) {
        return "dubbo://" + host + ":" + port;
    }

    /** This JVM really is Dubbo 2.7.23 on Netty 4.1 without Sluice or Dubbo 3 classes, on a non-loopback address. */
    private static void checkStart(long t0, String host, int port) {
        check(Dubbo27Checks.START, () -> {
            String dubbo = Version.getVersion();
            require("2.7.23".equals(dubbo), "Dubbo version " + dubbo);
            String netty = io.netty.util.Version.identify().values().stream()
                    .map(io.netty.util.Version::artifactVersion).distinct().reduce((a, b) -> a + "," + b)
                    .orElse("none");
            require(netty.startsWith("4.1.") && !netty.contains(","), "Netty version(s) " + netty);
            for (String absent : new String[] {"dev.sluice.rpc.SluiceServer", "io.netty.channel.IoHandlerFactory",
                    "org.apache.dubbo.rpc.RpcContextAttachment"}) {
                require(!present(absent), absent + " is on the Dubbo 2.7 consumer's classpath");
            }
            String localHost = NetUtils.getLocalHost();
            require(!InetAddress.getByName(localHost).isLoopbackAddress(), "Dubbo resolved the loopback local "
                    + "address " + localHost + "; its consumer would re-resolve on every call");
            return new Object[] {"dubbo", dubbo, "netty", netty, "host", host, "port", port,
                    "dubboLocalHost", localHost, "java", System.getProperty("java.version")};
        }, t0);
    }

    private static boolean present(String className) {
        try {
            Class.forName(className, false, Dubbo27ConsumerScenario.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }

    /** Consumer attachments reach the server's SluiceContext; its response attachments reach the RpcContext. */
    private static void attachments(TypesService s) {
        check(Dubbo27Checks.ATTACHMENTS_TO_PROVIDER, () -> {
            RpcContext.getContext().setAttachment("trace-id", "abc-123");
            String seen = s.attachment("trace-id");
            require("abc-123".equals(seen), "the server saw trace-id=" + seen);
        });
        check(Dubbo27Checks.ATTACHMENTS_FROM_PROVIDER, () -> {
            RpcContext.getContext().setAttachment("trace-id", "def-456");
            s.attachment("trace-id");
            String served = serverContextAttachment("served");
            require("yes:def-456".equals(served), "RpcContext.getServerContext() has served=" + served);
        });
        check(Dubbo27Checks.ATTACHMENTS_DUBBO_BUILTIN, () -> {
            String iface = s.attachment("interface");
            require(TypesService.class.getName().equals(iface), "interface=" + iface);
        });
        check(Dubbo27Checks.ATTACHMENTS_PER_CALL, () -> {
            RpcContext.getContext().setAttachment("once", "1");
            require("1".equals(s.attachment("once")), "first call did not carry the attachment");
            String again = s.attachment("once");
            require(again == null, "an attachment of the previous call leaked into the next: " + again);
        });
        check(Dubbo27Checks.ATTACHMENTS_VALUES, () -> {
            for (String value : ATTACHMENT_VALUES) {
                RpcContext.getContext().setAttachment("v", value);
                String seen = s.attachment("v");
                require(value.equals(seen), "sent " + abbreviate(value) + ", the server saw " + abbreviate(seen));
                String served = serverContextAttachment("served");
                require(("yes:" + value).equals(served), "response attachment " + abbreviate(served));
            }
            RpcContext.getContext().setObjectAttachment("n", 42);
            String seen = s.attachment("n");
            require("42".equals(seen), "an Integer attachment arrived as " + seen);
        });
    }

    /** {@code RpcContext.getServerContext().getAttachment(key)}; see the class javadoc for the reflection. */
    private static String serverContextAttachment(String key) throws ReflectiveOperationException {
        RpcContext server = (RpcContext) RpcContext.class.getMethod("getServerContext").invoke(null);
        return server.getAttachment(key);
    }

    /** dubbo-benchmark's four methods once with every field compared, then a concurrent mix, every answer checked. */
    private static void users(UserService users) {
        check(Dubbo27Checks.USERS_EXIST, () -> requireRight(UserServiceAnswers.exist(users)));
        check(Dubbo27Checks.USERS_CREATE, () -> require(users.createUser(UserServiceAnswers.expectedUser(42)),
                "createUser returned false"));
        check(Dubbo27Checks.USERS_GET, () -> requireRight(UserServiceAnswers.user(users.getUser(7), 7, "")));
        check(Dubbo27Checks.USERS_LIST, () -> requireRight(UserServiceAnswers.page(users.listUser(3), 3)));
        measure(Dubbo27Checks.USERS_LOAD, () -> {
            AtomicInteger errors = new AtomicInteger();
            AtomicReference<String> first = new AtomicReference<>();
            ExecutorService pool = Executors.newFixedThreadPool(LOAD_THREADS);
            long start = System.nanoTime();
            try {
                List<Future<?>> done = new ArrayList<>();
                for (int t = 0; t < LOAD_THREADS; t++) {
                    int base = t * LOAD_CALLS_PER_THREAD;
                    done.add(pool.submit(() -> {
                        for (int n = base; n < base + LOAD_CALLS_PER_THREAD; n++) {
                            String problem;
                            try {
                                problem = UserServiceAnswers.oneCall(users, n);
                            } catch (RuntimeException e) {
                                problem = e.toString();
                            }
                            if (problem != null) {
                                errors.incrementAndGet();
                                first.compareAndSet(null, "call " + n + ": " + problem);
                            }
                        }
                    }));
                }
                for (Future<?> f : done) {
                    f.get(60, TimeUnit.SECONDS);
                }
            } finally {
                pool.shutdownNow();
            }
            int calls = LOAD_THREADS * LOAD_CALLS_PER_THREAD;
            require(errors.get() == 0, errors.get() + " of " + calls + " calls failed; first: " + first.get());
            return new Object[] {"calls", calls, "threads", LOAD_THREADS, "errors", errors.get(),
                    "wallms", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)};
        });
    }

    /**
     * Graceful close of the host's closing server with four calls in flight: the readonly event (in hessian2, the
     * serialization this connection's calls used) makes the Dubbo 2.7 invoker unavailable while the connection
     * stays up, a new call fails, and the four calls complete once the host releases them. A held one-way call keeps
     * the server from closing the connection before the four answers are read (see {@link Dubbo27HostScenario}).
     */
    private static void readonly(ReferenceConfig<TypesService> ref) throws Exception {
        TypesService s = ref.get();
        Method getInvoker = ReferenceConfig.class.getDeclaredMethod("getInvoker"); // package-private in 2.7
        getInvoker.setAccessible(true);
        Invoker<?> invoker = (Invoker<?>) getInvoker.invoke(ref);
        require(invoker.isAvailable(), "invoker unavailable before the close");
        ExecutorService callers = Executors.newFixedThreadPool(4);
        try {
            List<Future<String>> inFlight = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                inFlight.add(callers.submit(() -> s.slow(9_000)));
            }
            s.fire(Dubbo27Checks.HOLD); // one-way; keeps the close waiting until the four answers are read
            String reply = ask(Dubbo27Checks.CONTROL_CLOSE);
            require(Dubbo27Checks.REPLY_CLOSING.equals(reply), "the host did not start the close: " + reply);
            check(Dubbo27Checks.READONLY_UNAVAILABLE, () -> {
                long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
                while (invoker.isAvailable() && System.nanoTime() < until) {
                    Thread.yield();
                }
                require(!invoker.isAvailable(), "the Dubbo 2.7 invoker is still available 5 s after the close began"
                        + " (readonly event not seen)");
                require(inFlight.stream().noneMatch(Future::isDone), "an in-flight call ended before its release: "
                        + "the invoker may be unavailable because the connection went away, not because of the"
                        + " readonly event");
            });
            check(Dubbo27Checks.READONLY_NEW_CALL, () -> {
                try {
                    String answer = s.echo("new");
                    throw new AssertionError("a new call during the close was answered: " + answer);
                } catch (RpcException e) {
                    require(inFlight.stream().noneMatch(Future::isDone), "in-flight calls ended before release");
                }
            });
            String released = ask(Dubbo27Checks.CONTROL_RELEASE);
            check(Dubbo27Checks.READONLY_IN_FLIGHT, () -> {
                require(Dubbo27Checks.REPLY_RELEASED.equals(released), "the host did not release: " + released);
                for (Future<String> f : inFlight) {
                    String answer = f.get(10, TimeUnit.SECONDS);
                    require("slow:9000".equals(answer), "in-flight call got " + answer);
                }
            });
            String last = ask(Dubbo27Checks.CONTROL_RELEASE_LAST);
            require(Dubbo27Checks.REPLY_RELEASED.equals(last), "the host did not release the held call: " + last);
        } finally {
            callers.shutdownNow();
        }
    }

    /** Prints a control line for the host and returns its one-line reply (null when the host closed stdin). */
    private static String ask(String command) throws IOException {
        synchronized (System.out) {
            System.out.println(CONTROL + command);
            System.out.flush();
        }
        return control.readLine();
    }

    @FunctionalInterface
    private interface Body {
        void run() throws Exception;
    }

    @FunctionalInterface
    private interface Measured {
        Object[] run() throws Exception;
    }

    private static void check(String name, Body body) {
        measure(name, () -> {
            body.run();
            return new Object[0];
        });
    }

    private static void check(String name, Measured body, long startNanos) {
        report(name, body, startNanos);
    }

    private static void measure(String name, Measured body) {
        report(name, body, System.nanoTime());
    }

    /**
     * Runs a check and prints its result. A check declared in {@link Dubbo27Checks#NOT_ON_DUBBO_27} is reported ok
     * (with {@code skipped=declared}) only when it fails, and FAIL when it passes.
     */
    private static void report(String name, Measured body, long startNanos) {
        String declared = Dubbo27Checks.NOT_ON_DUBBO_27.get(name);
        Object[] metrics;
        Throwable failure = null;
        try {
            metrics = body.run();
        } catch (Throwable t) {
            metrics = null;
            failure = t;
        }
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
        if (declared != null) {
            if (failure == null) {
                Scenario.fail(name, "declared in Dubbo27Checks.NOT_ON_DUBBO_27 (" + declared + ") but it passed: "
                        + "remove the declaration");
            } else {
                Scenario.ok(name, "ms", ms, "skipped", "declared", "failedAs", failure.getClass().getName());
            }
            return;
        }
        if (failure == null) {
            Object[] line = new Object[metrics.length + 2];
            line[0] = "ms";
            line[1] = ms;
            System.arraycopy(metrics, 0, line, 2, metrics.length);
            Scenario.ok(name, line);
        } else {
            System.err.println("check " + name + " failed:");
            failure.printStackTrace();
            Scenario.fail(name, failure + (failure.getCause() == null ? "" : " / cause: " + failure.getCause()));
        }
    }

    private static String abbreviate(String s) {
        return s == null || s.length() <= 60 ? s : s.substring(0, 60) + "...(" + s.length() + " chars)";
    }

    private static void require(boolean condition, String message) {
        if (!condition) {
            throw new AssertionError(message);
        }
    }

    private static void requireRight(String problem) {
        require(problem == null, problem);
    }
}
