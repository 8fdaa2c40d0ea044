package dev.sluice.examples.springboot.provider;

import dev.sluice.examples.springboot.api.Greeter;
import dev.sluice.examples.springboot.api.Greeting;
import org.apache.dubbo.config.annotation.DubboService;
import org.springframework.beans.factory.annotation.Value;

/** Exported by Dubbo over the protocol configured in application.yml. Runs on Dubbo's provider thread pool. */
@DubboService
public class GreeterService implements Greeter {
    private final String applicationName;

    public GreeterService(@Value("${spring.application.name}") String applicationName) {
        this.applicationName = applicationName;
    }

    @Override
    public Greeting greet(String name) {
        return new Greeting("Hello, " + name + "!", applicationName);
    }
}
