package dev.sluice.benchmark.targets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.benchmark.BenchTarget;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.dubbo.benchmark.bean.Page;
import org.apache.dubbo.benchmark.bean.User;
import org.apache.dubbo.benchmark.service.UserService;
import org.apache.dubbo.benchmark.service.UserServiceServerImpl;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The grpc-java target over loopback: its server and both clients, and what its mapping keeps. */
@Timeout(60)
class GrpcJavaTargetTest {

    private static final UserServiceServerImpl IMPL = new UserServiceServerImpl();

    /** {@code expected} with the creation and update times of {@code actual} (the server takes "now" per call). */
    private static User withTimesOf(User expected, User actual) {
        expected.setCreateTime(actual.getCreateTime());
        expected.setUpdateTime(actual.getUpdateTime());
        return expected;
    }

    private static void assertPage(int pageNo, Page<User> page) {
        Page<User> expected = IMPL.listUser(pageNo);
        assertEquals(pageNo, page.getPageNo());
        assertEquals(expected.getTotal(), page.getTotal());
        assertEquals(expected.getResult().size(), page.getResult().size());
        for (int i = 0; i < page.getResult().size(); i++) {
            User got = page.getResult().get(i);
            assertEquals(withTimesOf(expected.getResult().get(i), got), got);
        }
    }

    @Test
    void bothClientsGetTheDataOfUserServiceServerImplForEveryMethod() throws Exception {
        GrpcJavaTarget target = new GrpcJavaTarget();
        try (GrpcJavaTarget.Started server = target.startServer("127.0.0.1", 0);
                BenchTarget.Client client = target.connect(new BenchTarget.ClientConfig("127.0.0.1", server.port(),
                        5000));
                BenchTarget.AsyncClient async = target.connectAsync(new BenchTarget.ClientConfig("127.0.0.1",
                        server.port(), 5000))) {
            UserService sync = client.service();
            assertTrue(sync.existUser("dong.lea@gmail.com5"));
            assertFalse(sync.existUser("dong.lea@gmail.com4"));
            assertTrue(sync.createUser(IMPL.getUser(3)));
            assertFalse(sync.createUser(null), "no user is a user the server does not get");
            User got = sync.getUser(42);
            assertEquals(withTimesOf(IMPL.getUser(42), got), got);
            assertTrue(got.getCreateTime().isAfter(LocalDateTime.now().minusMinutes(1)), "the server's 'now'");
            assertPage(7, sync.listUser(7));

            assertTrue(async.service().existUser("5").get(10, TimeUnit.SECONDS));
            assertFalse(async.service().existUser("4").get(10, TimeUnit.SECONDS));
            assertTrue(async.service().createUser(IMPL.getUser(1)).get(10, TimeUnit.SECONDS));
            User asyncGot = async.service().getUser(9).get(10, TimeUnit.SECONDS);
            assertEquals(withTimesOf(IMPL.getUser(9), asyncGot), asyncGot);
            assertPage(11, async.service().listUser(11).get(10, TimeUnit.SECONDS));
        }
    }

    /** A peer that accepts the connection and never answers: each client gives up after the harness's timeout. */
    @Test
    void aCallToAPeerThatNeverAnswersFailsAfterTheCallTimeout() throws Exception {
        GrpcJavaTarget target = new GrpcJavaTarget();
        try (ServerSocket silent = new ServerSocket(0, 8, InetAddress.getLoopbackAddress())) {
            Thread acceptor = new Thread(() -> {
                try (Socket s = silent.accept(); InputStream in = s.getInputStream()) {
                    in.transferTo(OutputStream.nullOutputStream()); // reads until the client goes, answers nothing
                } catch (java.io.IOException closed) {
                    // the test is over
                }
            }, "silent-peer");
            acceptor.setDaemon(true);
            acceptor.start();
            BenchTarget.ClientConfig config = new BenchTarget.ClientConfig("127.0.0.1", silent.getLocalPort(), 300);
            try (BenchTarget.Client client = target.connect(config);
                    BenchTarget.AsyncClient async = target.connectAsync(config)) {
                long start = System.nanoTime();
                StatusRuntimeException e = assertThrows(StatusRuntimeException.class,
                        () -> client.service().getUser(1));
                long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                assertEquals(Status.Code.DEADLINE_EXCEEDED, e.getStatus().getCode(), e.toString());
                assertTrue(millis >= 250 && millis < 5000, millis + " ms");

                CompletableFuture<Page<User>> page = async.service().listUser(1);
                ExecutionException failed = assertThrows(ExecutionException.class,
                        () -> page.get(10, TimeUnit.SECONDS));
                assertEquals(Status.Code.DEADLINE_EXCEEDED,
                        ((StatusRuntimeException) failed.getCause()).getStatus().getCode(), failed.toString());
            }
        }
    }

    /** What the messages cannot carry: nulls. Objects and dates come back null, strings empty; the rest exactly. */
    @Test
    void theMappingKeepsEveryFieldAndTurnsOnlyNullStringsIntoEmptyOnes() {
        User full = IMPL.getUser(5);
        full.setCreateTime(LocalDateTime.of(2026, 11, 28, 13, 20, 1, 123_456_789));
        full.setBirthday(LocalDate.of(1901, 1, 1)); // before 1970: a negative timestamp
        assertEquals(full, UserMessages.toUser(UserMessages.toMessage(full)));

        User sparse = new User();
        sparse.setId(-1);
        User back = UserMessages.toUser(UserMessages.toMessage(sparse));
        assertEquals(-1, back.getId());
        assertEquals("", back.getName());
        assertNull(back.getBirthday());
        assertNull(back.getCreateTime());
        assertEquals(List.of(), back.getPermissions());
    }
}
