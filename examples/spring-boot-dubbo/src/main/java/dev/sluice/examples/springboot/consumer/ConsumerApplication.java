package dev.sluice.examples.springboot.consumer;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The consumer: calls the provider ({@link GreetingRunner}), prints the answers and exits. Its settings are the
 * {@code consumer} profile of application.yml. It exports no service, so it needs no {@code @EnableDubbo}:
 * dubbo-spring-boot-starter injects {@code @DubboReference} fields by itself.
 */
@SpringBootApplication
public class ConsumerApplication {
    public static void main(String[] args) {
        ConfigurableApplicationContext context =
                new SpringApplicationBuilder(ConsumerApplication.class).profiles("consumer").run(args);
        System.exit(SpringApplication.exit(context));
    }
}
