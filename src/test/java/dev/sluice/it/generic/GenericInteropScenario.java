package dev.sluice.it.generic;

import dev.sluice.codec.dubbo.gadget.StaticInitGadget;
import dev.sluice.codec.dubbo.model.GenericTarget;
import dev.sluice.codec.dubbo.model.GenericTarget.Circle;
import dev.sluice.codec.dubbo.model.GenericTargetImpl;
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
 *   <li>{@code dubbo-lever.<s>.<case>}: a Dubbo 3.3.6 consumer with {@code generic=true} and the consumer lever
 *       ({@code sluice.consumer=fast}) calls that Dubbo provider.</li>
 * </ul>
 * The cases are {@link GenericCases}'; the subtype named in {@code "class"} is allowed explicitly on both providers,
 * and {@link StaticInitGadget}, the class the allowlist refuses, must never be initialized in this JVM.
 */
public final class GenericInteropScenario {
    static final String START = "start";
    static final String STOP = "stop";
    static final String GADGET_NEVER_LOADED = "gadget-never-loaded";
    static final List<String> SERIALIZATIONS = List.of("hessian2", "fastjson2");
    static final List<String> SIDES = List.of("dubbo-consumer", "sluice-client", "dubbo-lever");
    private static final String SERVICE = GenericTarget.class.getName();

    /** Every result this scenario reports. */
    static final List<String> CHECKS = checks();

    private GenericInteropScenario() {
    }

    private static List<String> checks() {
        List<String> names = new ArrayList<>(List.of(START));
        for (String side : SIDES) {
            for (String s : SERIALIZATIONS) {
                for (String c : GenericCases.CASES) {
                    names.add(side + "." + s + "." + c);
                }
            }
        }
        names.add(GADGET_NEVER_LOADED);
        names.add(STOP);
        return Collections.unmodifiableList(names);
    }

    public static void main(String[] args) {
        Scenario.run(() -> {
            DubboPeers.quietDefaults();
            // The subtype named in "class": Dubbo's STRICT check accepts it only when allowed, as Sluice's does.
            System.setProperty("dubbo.security.serialize.allowedClassList", Circle.class.getName());
            String host = Scenario.testAddress();
            long t0 = System.nanoTime();

            SluiceServer server = SluiceServer.builder().port(0)
                    .register(GenericTarget.class, new GenericTargetImpl(""))
                    .register(GenericTarget.class, new GenericTargetImpl("v2/g "), "2.0", "g")
                    .allowClasses(Circle.class.getName())
                    .start();

            List<ProtocolConfig> protocols = DubboPeers.fastjson2AndHessian2();
            ProtocolConfig fastjson2 = protocols.get(0);
            ProtocolConfig hessian2 = protocols.get(1);
            int fastjson2Port = fastjson2.getPort();
            int hessian2Port = hessian2.getPort();
            ServiceConfig<GenericTarget> plain = DubboPeers.service(GenericTarget.class, new GenericTargetImpl(""));
            plain.setProtocols(List.of(fastjson2, hessian2));
            ServiceConfig<GenericTarget> v2 = DubboPeers.service(GenericTarget.class, new GenericTargetImpl("v2/g "));
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
            Map<String, ReferenceConfig<GenericService>> leverRefs = new HashMap<>();
            Map<String, ReferenceConfig<GenericService>> leverV2Refs = new HashMap<>();
            for (String s : SERIALIZATIONS) {
                int port = "fastjson2".equals(s) ? fastjson2Port : hessian2Port;
                leverRefs.put(s, leverReference(host, port, s, null, null));
                leverV2Refs.put(s, leverReference(host, port, s, "2.0", "g"));
                refs.add(leverRefs.get(s));
                refs.add(leverV2Refs.get(s));
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
                GenericCases.run("dubbo-consumer." + s, g::$invoke, gv2::$invoke, g::$invokeAsync);
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
                GenericCases.run("sluice-client." + s, g::invoke, gv2::invoke, g::invokeAsync);
            }
            for (String s : SERIALIZATIONS) {
                GenericService g = leverRefs.get(s).get();
                GenericService gv2 = leverV2Refs.get(s).get();
                GenericCases.run("dubbo-lever." + s, g::$invoke, gv2::$invoke, g::$invokeAsync);
            }
            Scenario.check(GADGET_NEVER_LOADED, System.getProperty(StaticInitGadget.TRACE) == null,
                    "a provider initialized " + GenericCases.GADGET);

            long t1 = System.nanoTime();
            for (SluiceClient c : clients) {
                c.close();
            }
            bootstrap.stop();
            server.close();
            Scenario.ok(STOP, "ms", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t1));
        });
    }

    /** A generic reference with the consumer lever, to a Dubbo provider's port of {@code serialization}. */
    private static ReferenceConfig<GenericService> leverReference(String host, int port, String serialization,
                                                                  String version, String group) {
        ReferenceConfig<GenericService> ref = GenericCases.reference("dubbo://" + host + ":" + port
                + "?serialization=" + serialization, version, group);
        ref.setParameters(Map.of("sluice.consumer", "fast"));
        ref.setId("lever-" + serialization + (version == null ? "" : "-" + version));
        return ref;
    }

    private static ReferenceConfig<GenericService> genericReference(String host, int port, String serialization,
                                                                    String version, String group) {
        ReferenceConfig<GenericService> ref = GenericCases.reference("dubbo://" + host + ":" + port
                + "?serialization=" + serialization, version, group);
        ref.setClient("netty4");
        ref.setId("generic-" + serialization + (version == null ? "" : "-" + version));
        return ref;
    }
}
