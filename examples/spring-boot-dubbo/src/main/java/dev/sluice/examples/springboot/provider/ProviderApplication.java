package dev.sluice.examples.springboot.provider;

import org.apache.dubbo.config.spring.context.annotation.EnableDubbo;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.builder.SpringApplicationBuilder;

/**
 * The provider: exports {@link GreeterService} and keeps running until stopped (Ctrl-C / SIGTERM). Its settings
 * are the {@code provider} profile of application.yml.
 */
@SpringBootApplication
@EnableDubbo
public class ProviderApplication {
    public static void main(String[] args) {
        new SpringApplicationBuilder(ProviderApplication.class).profiles("provider").run(args);
    }
}
