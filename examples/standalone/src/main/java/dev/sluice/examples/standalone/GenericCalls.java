package dev.sluice.examples.standalone;

import dev.sluice.rpc.GenericService;
import dev.sluice.rpc.Serialization;
import dev.sluice.rpc.SluiceClient;
import dev.sluice.rpc.SluiceServer;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * The code of the generic-calls guide (docs/guide/generic.md), compiled with the examples so the guide cannot drift
 * from the API: a client that calls a service it has no interface for, and a server that lets a subtype through.
 * Not run by the examples' tests; the generic calls themselves are tested against real Dubbo peers.
 */
final class GenericCalls {
    private GenericCalls() {
    }

    static Object createUser() {
        // tag::client[]
        SluiceClient client = SluiceClient.builder().address("10.0.0.7", 20880).build();
        GenericService users = client.generic("com.example.UserService")
                .version("1.0")                        // optional, as Reference
                .group("eu")                           // optional
                .timeout(Duration.ofSeconds(2))        // default: the client's
                .serialization(Serialization.HESSIAN2) // default: the client's
                .service();

        Map<String, Object> user = new HashMap<>();
        user.put("name", "ann");
        user.put("tags", List.of("a", "b"));
        Object created = users.invoke("create", new String[] {"com.example.User"}, new Object[] {user});
        // created is a Map: {"class": "com.example.User", "id": 7, "name": "ann", "tags": [...]}

        CompletableFuture<Object> later = users.invokeAsync("count", new String[0], new Object[0]);
        // end::client[]
        later.cancel(false);
        client.close();
        return created;
    }

    static SluiceServer serverWithASubtype() {
        // tag::server[]
        SluiceServer server = SluiceServer.builder().register(Greeter.class, new GreeterImpl())
                .allowClasses("com.example.FancyGreeting").start();
        // end::server[]
        return server;
    }
}
