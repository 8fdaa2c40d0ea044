package dev.sluice.rpc;

import java.util.concurrent.CompletableFuture;

/**
 * Calls a service without its interface, as Dubbo's {@code GenericService} does ({@code $invoke} on the wire, with
 * {@code generic=true}): gateways and tools name the method and its parameter types, and pass POJOs as {@code Map}s
 * (their fields, plus a {@code "class"} entry to name a subtype), collections, maps, strings and primitives as they
 * are. The provider answers in the same form: a POJO as a {@code Map} with its {@code "class"}. Works against a
 * {@link SluiceServer} and a real Dubbo provider. Made by {@link SluiceClient#generic(String)}.
 *
 * <p>Threads: thread-safe. {@link #invoke} waits on the calling thread (never call it from an event loop);
 * {@link #invokeAsync} returns at once and its future completes on the client's callback executor.
 */
public interface GenericService {
    /**
     * Calls {@code method} and waits for its value in generic form.
     *
     * @param parameterTypes the parameter type names of the method, e.g. {@code "int"}, {@code "java.lang.String"},
     *     {@code "com.example.User"}, {@code "java.lang.String[]"}; they select among overloads
     * @throws dev.sluice.codec.dubbo.GenericException when the service method threw: its class name and message
     * @throws RpcException when the provider answered with an error status (unknown method, refused argument, …)
     */
    Object invoke(String method, String[] parameterTypes, Object[] args);

    /** As {@link #invoke}, completing the future with the value or the same exceptions. */
    CompletableFuture<Object> invokeAsync(String method, String[] parameterTypes, Object[] args);
}
