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
 * The server's service pool can be switched for comparisons with {@link ServicePools} ({@code SLUICE_BENCH_POOL}).
 */
public final class SluiceTarget implements BenchTarget {

    @Override
    public String name() {
        return "sluice";
    }

    @Override
    public String description() {
        return "standalone SluiceServer / SluiceClient (no Dubbo), dubbo protocol, fastjson2, defaults"
                + ServicePools.selected().describe();
    }

    @Override
    public AutoCloseable startServer(String host, int port) {
        SluiceServer.Builder builder = SluiceServer.builder()
                .bindAddress(new InetSocketAddress(host, port))
                .register(UserService.class, new UserServiceServerImpl());
        ServicePools pool = ServicePools.selected();
        AutoCloseable ownedPool = pool.apply(builder);
        SluiceServer server = builder.start();
        System.out.println("sluice server" + pool.describe());
        return () -> {
            System.out.println("sluice server: " + ServicePools.liveServiceThreads()
                    + " service threads alive at close");
            server.close();
            ownedPool.close();
        };
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
