package dev.sluice.examples.springboot.api;

/** The service both applications share: a plain Java interface, nothing Sluice-specific. */
public interface Greeter {
    Greeting greet(String name);
}
