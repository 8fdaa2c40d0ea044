package dev.sluice.examples.springboot.consumer;

import dev.sluice.examples.springboot.api.Greeter;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Metrics;
import io.micrometer.core.instrument.Timer;
import java.util.List;
import org.apache.dubbo.config.annotation.DubboReference;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.CommandLineRunner;
import org.springframework.stereotype.Component;

/**
 * Greets each configured name through the Dubbo reference and prints the answers, then what Sluice's meters counted
 * for these calls (Sluice records them in Micrometer's global registry, which Spring Boot's registry joins, under the
 * transport name set by {@code dubbo.consumer.parameters.sluice.metrics}). Runs on the main thread.
 */
@Component
public class GreetingRunner implements CommandLineRunner {
    // A direct URL: no registry to run for the example. With a registry, leave out `url`.
    @DubboReference(url = "${greeter.url}")
    private Greeter greeter;

    private final List<String> names;
    private final String transport;

    public GreetingRunner(@Value("${greeter.names}") List<String> names,
                          @Value("${dubbo.consumer.parameters.sluice.metrics:}") String transport) {
        this.names = names;
        this.transport = transport;
    }

    @Override
    public void run(String... args) {
        for (String name : names) {
            System.out.println("greet(" + name + ") = " + greeter.greet(name));
        }
        Timer calls = Metrics.globalRegistry.find("sluice.calls").tags("side", "client",
                "interface", Greeter.class.getName(), "method", "greet", "outcome", "success").timer();
        Counter frames = Metrics.globalRegistry.find("sluice.transport.frames.sent")
                .tag("transport", transport).counter();
        System.out.println("sluice meters: calls " + (calls == null ? "none" : calls.getId().getTags() + " count="
                + calls.count()) + "; frames sent by transport '" + transport + "' "
                + (frames == null ? "none" : (long) frames.count()));
    }
}
