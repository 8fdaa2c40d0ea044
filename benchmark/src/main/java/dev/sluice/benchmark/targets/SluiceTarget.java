package dev.sluice.benchmark.targets;

import dev.sluice.benchmark.BenchTarget;
import dev.sluice.benchmark.async.AsyncUserService;
import dev.sluice.benchmark.async.AsyncUserServiceImpl;
import dev.sluice.rpc.Serialization;
import dev.sluice.rpc.SluiceClient;
import dev.sluice.rpc.SluiceServer;
import java.net.InetSocketAddress;
import java.time.Duration;
import org.apache.dubbo.benchmark.service.UserService;
import org.apache.dubbo.benchmark.service.UserServiceServerImpl;

/**
 * Standalone Sluice on both sides, no Dubbo: {@link SluiceServer} serving {@code UserServiceServerImpl} (and
 * {@link AsyncUserServiceImpl}) and a {@link SluiceClient} proxy, both with their defaults (which follow Dubbo's, e.g.
 * 200 service threads) and the harness's call timeout. The client sends the target's serialization; the server, at its
 * default, accepts hessian2 and fastjson2 and answers each call in the serialization it arrived in.
 * The server's service pool can be switched for comparisons with {@link ServicePools} ({@code SLUICE_BENCH_POOL}).
 */
public final class SluiceTarget implements BenchTarget {

    private final String name;
    private final Serialization serialization;

    public SluiceTarget(String name, Serialization serialization) {
        this.name = name;
        this.serialization = serialization;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public String description() {
        return "standalone SluiceServer / SluiceClient (no Dubbo), dubbo protocol, " + serialization.dubboName()
                + ", defaults" + ServicePools.selected().describe();
    }

    public Serialization serialization() {
        return serialization;
    }

    @Override
    public boolean supportsAsync() {
        return true;
    }

    @Override
    public AutoCloseable startServer(String host, int port) {
        SluiceServer.Builder builder = SluiceServer.builder()
                .bindAddress(new InetSocketAddress(host, port))
                .register(UserService.class, new UserServiceServerImpl())
                .register(AsyncUserService.class, new AsyncUserServiceImpl());
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

    private SluiceClient client(ClientConfig config) {
        return SluiceClient.builder()
                .address(config.host(), config.port())
                .timeout(Duration.ofMillis(config.timeoutMillis()))
                .serialization(serialization)
                .failIfNotConnected(true)
                .build();
    }

    @Override
    public Client connect(ClientConfig config) {
        SluiceClient client = client(config);
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

    @Override
    public AsyncClient connectAsync(ClientConfig config) {
        SluiceClient client = client(config);
        AsyncUserService proxy = client.proxy(AsyncUserService.class);
        return new AsyncClient() {
            @Override
            public AsyncUserService service() {
                return proxy;
            }

            @Override
            public void close() {
                client.close();
            }
        };
    }
}
