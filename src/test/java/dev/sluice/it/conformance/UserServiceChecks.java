package dev.sluice.it.conformance;

import static dev.sluice.it.conformance.Checks.require;

import dev.sluice.it.harness.CallLoad;
import java.util.List;
import java.util.Objects;
import org.apache.dubbo.benchmark.bean.Page;
import org.apache.dubbo.benchmark.bean.User;
import org.apache.dubbo.benchmark.service.UserService;
import org.apache.dubbo.benchmark.service.UserServiceServerImpl;

/**
 * The dubbo-benchmark workload as checks: each of the four {@link UserService} methods once with every field
 * compared, and the benchmark's 32-thread mix with every answer verified. The expected values come from
 * {@link UserServiceServerImpl} itself, which both kinds of provider run.
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

    private static final UserServiceServerImpl EXPECTED = new UserServiceServerImpl();

    private UserServiceChecks() {
    }

    /** Each method once, then the concurrent mix; one result line each. */
    static void run(UserService users, int threads, int callsPerThread) {
        Checks.check(EXIST, () -> {
            require(users.existUser("7"), "existUser(\"7\") is false");
            require(!users.existUser("3"), "existUser(\"3\") is true");
            require(users.existUser(""), "existUser(\"\") is false");
        });
        Checks.check(CREATE, () -> require(users.createUser(EXPECTED.getUser(42)), "createUser returned false"));
        Checks.check(GET, () -> {
            String problem = checkUser(users.getUser(7), 7, "");
            require(problem == null, problem);
        });
        Checks.check(LIST, () -> {
            String problem = checkPage(users.listUser(3), 3);
            require(problem == null, problem);
        });
        Checks.measure(LOAD, () -> load(users, threads, callsPerThread));
    }

    /** {@code threads} threads, each making {@code callsPerThread} calls cycling through the four methods. */
    private static Object[] load(UserService users, int threads, int callsPerThread) throws Exception {
        CallLoad.Result load = CallLoad.run(threads, callsPerThread, n -> {
            try {
                String problem = oneCall(users, n);
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

    /** Null when the answer of call {@code n} is right, else what is wrong. */
    static String oneCall(UserService users, int n) {
        switch (n % 4) {
            case 0: {
                String email = String.valueOf(n);
                boolean expected = EXPECTED.existUser(email);
                boolean actual = users.existUser(email);
                return expected == actual ? null : "existUser(" + email + ") = " + actual;
            }
            case 1:
                return users.createUser(EXPECTED.getUser(n)) ? null : "createUser returned false";
            case 2:
                return checkUser(users.getUser(n), n, "");
            default:
                return checkPage(users.listUser(n), n);
        }
    }

    /** Compares every field of {@code u} with what {@link UserServiceServerImpl} builds. */
    private static String checkUser(Object value, long id, String suffix) {
        if (!(value instanceof User)) {
            return "expected a User, got " + (value == null ? "null" : value.getClass().getName() + " " + value);
        }
        User u = (User) value;
        User e = EXPECTED.getUser(id);
        if (u.getId() != id
                || !Objects.equals(e.getName() + suffix, u.getName())
                || u.getSex() != e.getSex()
                || !Objects.equals(e.getBirthday(), u.getBirthday())
                || !Objects.equals(e.getEmail() + suffix, u.getEmail())
                || !Objects.equals(e.getMobile() + suffix, u.getMobile())
                || !Objects.equals(e.getAddress() + suffix, u.getAddress())
                || !Objects.equals(e.getIcon() + suffix, u.getIcon())
                || !Objects.equals(e.getPermissions(), u.getPermissions())
                || u.getStatus() != e.getStatus()
                || u.getCreateTime() == null
                || !Objects.equals(u.getCreateTime(), u.getUpdateTime())) {
            return "user " + id + " differs: got " + describe(u) + ", expected like " + describe(e);
        }
        return null;
    }

    private static String checkPage(Page<User> page, int pageNo) {
        if (page == null || page.getPageNo() != pageNo || page.getTotal() != 1000 || page.getResult() == null
                || page.getResult().size() != 15) {
            return "page " + pageNo + " wrong: " + (page == null ? "null" : "pageNo=" + page.getPageNo() + " total="
                    + page.getTotal() + " result=" + page.getResult());
        }
        List<?> result = page.getResult();
        for (int i = 0; i < 15; i++) {
            String problem = checkUser(result.get(i), i, String.valueOf(i));
            if (problem != null) {
                return "page " + pageNo + " item " + i + ": " + problem;
            }
        }
        return null;
    }

    private static String describe(User u) {
        return "User{id=" + u.getId() + ", name=" + u.getName() + ", sex=" + u.getSex() + ", birthday="
                + u.getBirthday() + ", email=" + u.getEmail() + ", mobile=" + u.getMobile() + ", address="
                + u.getAddress() + ", icon=" + u.getIcon() + ", permissions=" + u.getPermissions() + ", status="
                + u.getStatus() + ", createTime=" + u.getCreateTime() + ", updateTime=" + u.getUpdateTime() + "}";
    }
}
