package dev.sluice.it.harness;

/**
 * Test-local service for Dubbo scenarios: one call with a String, one with a small bean (exercises fastjson2 typed
 * objects, which Dubbo's serialization check allows because they are reachable from this interface).
 */
public interface EchoService {
    String echo(String text);

    EchoReply exchange(EchoRequest request);
}
