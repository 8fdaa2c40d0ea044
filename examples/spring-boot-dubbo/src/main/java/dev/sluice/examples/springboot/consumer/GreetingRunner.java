package dev.sluice.examples.springboot.consumer;

import dev.sluice.examples.springboot.api.Greeter;
import java.util.List;
import org.apache.dubbo.config.annotation.DubboReference;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.CommandLineRunner;
import org.springframework.stereotype.Component;

/** Greets each configured name through the Dubbo reference and prints the answers. Runs on the main thread. */
@Component
public class GreetingRunner implements CommandLineRunner {
    // A direct URL: no registry to run for the example. With a registry, leave out `url`.
    @DubboReference(url = "${greeter.url}")
    private Greeter greeter;

    private final List<String> names;

    public GreetingRunner(@Value("${greeter.names}") List<String> names) {
        this.names = names;
    }

    @Override
    public void run(String... args) {
        for (String name : names) {
            System.out.println("greet(" + name + ") = " + greeter.greet(name));
        }
    }
}
