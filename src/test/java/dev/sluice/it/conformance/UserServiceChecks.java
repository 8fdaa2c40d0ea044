package dev.sluice.it.conformance;

import static dev.sluice.it.conformance.Checks.require;

import dev.sluice.it.harness.CallLoad;
import dev.sluice.it.rpc.model.UserServiceAnswers;
import java.util.List;
import org.apache.dubbo.benchmark.service.UserService;
import org.apache.dubbo.benchmark.service.UserServiceServerImpl;

/**
 * The dubbo-benchmark workload as checks: each of the four {@link UserService} methods once with every field
 * compared, and the benchmark's 32-thread mix with every answer verified. The expected values come from
 * {@link UserServiceServerImpl} itself, which both kinds of provider run; the answer checks are
 * {@link UserServiceAnswers}, which the Dubbo 2.7 consumer uses too.
 *
 * <p>Runs on the scenario's main thread, which starts and joins the load threads.
 */
final class UserServiceChecks {
    static final String EXIST = "users.existUser";
    static final String CREATE = "users.createUser";
    static final String GET = "users.getUser";
    static final String LIST = "users.listUser";
    static final String LOAD = "users.load-32-threads";
    static final List<String> NAMES = List.of(EXIST, CREATE, GET, LIST, LOAD);

    private UserServiceChecks() {
    }

    /** Each method once, then the concurrent mix; one result line each. */
    static void run(UserService users, int threads, int callsPerThread) {
        Checks.check(EXIST, () -> requireRight(UserServiceAnswers.exist(users)));
        Checks.check(CREATE, () -> require(users.createUser(UserServiceAnswers.expectedUser(42)),
                "createUser returned false"));
        Checks.check(GET, () -> requireRight(UserServiceAnswers.user(users.getUser(7), 7, "")));
        Checks.check(LIST, () -> requireRight(UserServiceAnswers.page(users.listUser(3), 3)));
        Checks.measure(LOAD, () -> load(users, threads, callsPerThread));
    }

    /** {@code threads} threads, each making {@code callsPerThread} calls cycling through the four methods. */
    private static Object[] load(UserService users, int threads, int callsPerThread) throws Exception {
        CallLoad.Result load = CallLoad.run(threads, callsPerThread, n -> {
            try {
                String problem = UserServiceAnswers.oneCall(users, n);
                return problem == null ? null : "(method " + n % 4 + ") " + problem;
            } catch (RuntimeException e) {
                return "(method " + n % 4 + ") " + e;
            }
        });
        require(load.errors() == 0, load.failureSummary());
        return new Object[] {
            "calls", load.count(),
            "threads", threads,
            "errors", load.errors(),
            "wallms", load.wallMillis(),
            "p50us", load.p50Micros(),
            "p99us", load.p99Micros(),
        };
    }

    private static void requireRight(String problem) {
        require(problem == null, problem);
    }
}
