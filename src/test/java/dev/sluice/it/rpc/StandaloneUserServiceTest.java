package dev.sluice.it.rpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.rpc.SluiceClient;
import dev.sluice.rpc.SluiceServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.dubbo.benchmark.bean.Page;
import org.apache.dubbo.benchmark.bean.User;
import org.apache.dubbo.benchmark.service.UserService;
import org.apache.dubbo.benchmark.service.UserServiceServerImpl;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The four dubbo-benchmark methods through SluiceClient -> SluiceServer, alone and from 32 threads. */
@Timeout(120)
class StandaloneUserServiceTest {
    private static SluiceServer server;
    private static SluiceClient client;
    private static UserService users;

    @BeforeAll
    static void start() {
        server = SluiceServer.builder().port(0).register(UserService.class, new UserServiceServerImpl()).start();
        client = SluiceClient.builder().address("127.0.0.1", server.port()).timeout(Duration.ofSeconds(5)).build();
        users = client.proxy(UserService.class);
    }

    @AfterAll
    static void stop() {
        if (client != null) {
            client.close();
        }
        if (server != null) {
            server.close();
        }
    }

    @Test
    void existUser() {
        assertTrue(users.existUser("7"));
        assertFalse(users.existUser("3"));
        assertTrue(users.existUser(""));
    }

    @Test
    void createUser() {
        assertTrue(users.createUser(new UserServiceServerImpl().getUser(42)));
    }

    @Test
    void getUser() {
        User expected = new UserServiceServerImpl().getUser(7);
        User u = users.getUser(7);
        assertEquals(7, u.getId());
        assertEquals(expected.getName(), u.getName());
        assertEquals(expected.getAddress(), u.getAddress());
        assertEquals(expected.getBirthday(), u.getBirthday());
        assertEquals(expected.getPermissions(), u.getPermissions());
        assertNotNull(u.getCreateTime());
        assertEquals(u.getCreateTime(), u.getUpdateTime());
    }

    @Test
    void listUser() {
        Page<User> page = users.listUser(3);
        assertEquals(3, page.getPageNo());
        assertEquals(1000, page.getTotal());
        assertEquals(15, page.getResult().size());
        for (int i = 0; i < 15; i++) {
            User u = page.getResult().get(i);
            assertEquals(i, u.getId());
            assertEquals("Doug Lea" + i, u.getName());
            assertEquals("北京市 中关村 中关村大街1号 鼎好大厦 1605" + i, u.getAddress());
        }
    }

    @Test
    void thirtyTwoThreadsCallingAllFourMethods() throws Exception {
        int threads = 32;
        int perThread = 200;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CyclicBarrier start = new CyclicBarrier(threads);
        try {
            List<Future<Integer>> results = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int base = t * perThread;
                results.add(pool.submit(() -> {
                    start.await();
                    int ok = 0;
                    for (int i = 0; i < perThread; i++) {
                        int n = base + i;
                        switch (n % 4) {
                            case 0:
                                assertEquals(new UserServiceServerImpl().existUser(String.valueOf(n)),
                                        users.existUser(String.valueOf(n)));
                                break;
                            case 1:
                                assertTrue(users.createUser(new UserServiceServerImpl().getUser(n)));
                                break;
                            case 2:
                                assertEquals(n, users.getUser(n).getId());
                                break;
                            default:
                                Page<User> p = users.listUser(n);
                                assertEquals(n, p.getPageNo());
                                assertEquals(15, p.getResult().size());
                                break;
                        }
                        ok++;
                    }
                    return ok;
                }));
            }
            int total = 0;
            for (Future<Integer> f : results) {
                total += f.get(60, TimeUnit.SECONDS);
            }
            assertEquals(threads * perThread, total);
        } finally {
            pool.shutdownNow();
        }
        assertEquals(0, client.pendingCalls());
    }
}
