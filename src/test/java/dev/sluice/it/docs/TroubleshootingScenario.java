package dev.sluice.it.docs;

import dev.sluice.it.harness.DubboPeers;
import dev.sluice.it.harness.EchoService;
import dev.sluice.it.harness.EchoServiceImpl;
import dev.sluice.it.harness.Scenario;
import org.apache.dubbo.common.URL;
import org.apache.dubbo.config.ProtocolConfig;
import org.apache.dubbo.config.ReferenceConfig;
import org.apache.dubbo.config.ServiceConfig;
import org.apache.dubbo.remoting.exchange.Exchangers;
import org.apache.dubbo.remoting.exchange.support.ExchangeHandlerAdapter;
import org.apache.dubbo.rpc.model.FrameworkModel;

/**
 * The child JVM of {@link TroubleshootingTest}: meets one situation of the troubleshooting guide as an application
 * would, and prints what the application was told as {@code MESSAGE <id> <the exception chain, on one line>}. The
 * test chooses the class path: {@code no-jar} runs without the Sluice jar, {@code no-micrometer} without Micrometer,
 * {@code netty41} on a Dubbo 3.2.19 application's class path (Netty 4.1) with the unshaded Sluice jars. Compiled
 * against Dubbo 3.3.6, it calls only API Dubbo 3.2 has too. Runs on its main thread.
 */
public final class TroubleshootingScenario {
    private TroubleshootingScenario() {
    }

    public static void main(String[] args) {
        Scenario.run(() -> {
            DubboPeers.quietDefaults();
            switch (args[0]) {
                case "no-jar":
                    // What a consumer without the jar reads from a provider that advertises Sluice (registered
                    // server=sluice, no client): it picks its client from the provider's server key.
                    message("unsupported-client", () -> {
                        ReferenceConfig<EchoService> reference = DubboPeers.reference(EchoService.class,
                                Scenario.testAddress(), DubboPeers.freePort(), 5_000);
                        reference.setClient(null);
                        reference.setUrl(reference.getUrl() + "&server=sluice");
                        reference.setApplication(DubboPeers.application("troubleshooting"));
                        reference.setRegistry(DubboPeers.noRegistry());
                        reference.get().echo("never answered");
                    });
                    message("unsupported-server", () -> export("troubleshooting"));
                    break;
                case "netty41":
                    message("netty-41", () -> export("troubleshooting"));
                    break;
                case "no-micrometer":
                    message("micrometer-absent", () -> Exchangers.bind(URL.valueOf("dubbo://127.0.0.1:"
                            + DubboPeers.freePort() + "/absent?codec=exchange&server=sluice&sluice.metrics=orders"),
                            new ExchangeHandlerAdapter(FrameworkModel.defaultModel()) { }).close());
                    break;
                default:
                    throw new IllegalArgumentException("unknown situation " + args[0]);
            }
        });
    }

    /** A provider exporting {@link EchoService} on {@code server=sluice}. */
    private static void export(String application) {
        ProtocolConfig protocol = DubboPeers.dubboProtocol(DubboPeers.freePort());
        protocol.setServer("sluice");
        ServiceConfig<EchoService> service = DubboPeers.service(EchoService.class, new EchoServiceImpl());
        service.setApplication(DubboPeers.application(application));
        service.setRegistry(DubboPeers.noRegistry());
        service.setProtocol(protocol);
        service.export();
        service.unexport();
    }

    /** Runs {@code body}, which must fail, and prints the chain of what it threw. */
    private static void message(String id, Scenario.Body body) {
        try {
            body.run();
            Scenario.fail(id, "no error");
        } catch (Throwable t) {
            StringBuilder chain = new StringBuilder();
            for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
                chain.append(chain.length() == 0 ? "" : " | caused by ").append(c);
            }
            System.out.println("MESSAGE " + id + " " + chain.toString().replaceAll("[\\r\\n]+", " "));
            Scenario.ok(id);
        }
    }
}
