package dev.sluice.examples.standalone;

import dev.sluice.rpc.SluiceClient;
import java.time.Duration;
import java.util.Arrays;

/**
 * Connects a {@link SluiceClient} to a server of {@link Greeter} (for example {@link SluiceServerMain}), greets
 * each name given, prints the answers and exits.
 *
 * <pre>
 * java -cp examples/standalone/target/greeter.jar \
 *     dev.sluice.examples.standalone.SluiceClientMain [host, default 127.0.0.1] [port, default 20880] [names...]
 * </pre>
 *
 * <p>Threads: everything runs on the main thread; the client's own threads deliver the responses.
 */
public final class SluiceClientMain {
    private SluiceClientMain() {}

    public static void main(String[] args) {
        String host = args.length > 0 ? args[0] : "127.0.0.1";
        int port = args.length > 1 ? Integer.parseInt(args[1]) : 20880;
        String[] names = args.length > 2 ? Arrays.copyOfRange(args, 2, args.length)
                : new String[] {"Ada", "Grace"};

        // tag::client[]
        try (SluiceClient client = SluiceClient.builder().address(host, port).build()) {
            Greeter greeter = client.reference(Greeter.class).timeout(Duration.ofSeconds(3)).proxy();
            for (String name : names) {
                System.out.println("greet(" + name + ") = " + greeter.greet(name));
                System.out.println("greetLater(" + name + ") = " + greeter.greetLater(name).join());
            }
        }
        // end::client[]
    }
}
