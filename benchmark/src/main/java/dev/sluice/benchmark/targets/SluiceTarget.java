package dev.sluice.benchmark.targets;

import dev.sluice.benchmark.BenchTarget;
import dev.sluice.rpc.SluiceClient;
import dev.sluice.rpc.SluiceServer;
import java.net.InetSocketAddress;
import java.time.Duration;
import org.apache.dubbo.benchmark.service.UserService;
import org.apache.dubbo.benchmark.service.UserServiceServerImpl;

/**
 * Standalone Sluice on both sides, no Dubbo: {@link SluiceServer} serving {@code UserServiceServerImpl} and a
 * {@link SluiceClient} proxy, both with their defaults (which follow Dubbo's, e.g. 200 service threads) and the harness's call timeout.
 */
public final class SluiceTarget implements BenchTarget {

    @Override
    public String name() {
        return "sluice";
    }

    @Override
    public String description() {
        return "standalone SluiceServer / SluiceClient (no Dubbo), dubbo protocol, fastjson2, defaults";
    }

    @Override
    public AutoCloseable startServer(String host, int port) {
        SluiceServer server = SluiceServer.builder()
                .bindAddress(new InetSocketAddress(host, port))
                .register(UserService.class, new UserServiceServerImpl())
                .start();
        return server::close;
    }

    @Override
    public Client connect(ClientConfig config) {
        SluiceClient client = SluiceClient.builder()
                .address(config.host(), config.port())
                .timeout(Duration.ofMillis(config.timeoutMillis()))
                .failIfNotConnected(true)
                .build();
        UserService proxy = client.proxy(UserService.class);
        return new Client() {
            @Override
            public UserService service() {
                return proxy;
            }

            @Override
            public void close() {
                client.close();
            }
        };
    }
}
