package dev.sluice.it.rpc.model;

import java.util.List;
import java.util.Objects;
import org.apache.dubbo.benchmark.bean.Page;
import org.apache.dubbo.benchmark.bean.User;
import org.apache.dubbo.benchmark.service.UserService;
import org.apache.dubbo.benchmark.service.UserServiceServerImpl;

/**
 * The right answers of dubbo-benchmark's {@link UserService}, as {@link UserServiceServerImpl} (which every provider
 * of these tests runs) builds them: each check returns null when an answer is right, else what is wrong. Shared by
 * the conformance suite ({@code UserServiceChecks}) and the Dubbo 2.7 consumer ({@code Dubbo27ConsumerScenario}),
 * which loads it on Dubbo 2.7.23's own classpath: so it uses only the JDK and the dubbo-benchmark model, no Sluice,
 * Dubbo or JUnit class. Any thread.
 */
public final class UserServiceAnswers {
    private static final UserServiceServerImpl EXPECTED = new UserServiceServerImpl();

    private UserServiceAnswers() {
    }

    /** The User the provider builds for {@code id}; what a createUser call sends. */
    public static User expectedUser(long id) {
        return EXPECTED.getUser(id);
    }

    /** Three existUser calls with known answers: "7" and "" exist, "3" does not. */
    public static String exist(UserService users) {
        if (!users.existUser("7")) {
            return "existUser(\"7\") is false";
        }
        if (users.existUser("3")) {
            return "existUser(\"3\") is true";
        }
        if (!users.existUser("")) {
            return "existUser(\"\") is false";
        }
        return null;
    }

    /** Call {@code n} of a load that cycles through the four methods ({@code n % 4}), with its answer checked. */
    public static String oneCall(UserService users, int n) {
        switch (n % 4) {
            case 0: {
                String email = String.valueOf(n);
                boolean expected = EXPECTED.existUser(email);
                boolean actual = users.existUser(email);
                return expected == actual ? null : "existUser(" + email + ") = " + actual + ", expected " + expected;
            }
            case 1:
                return users.createUser(expectedUser(n)) ? null : "createUser returned false";
            case 2:
                return user(users.getUser(n), n, "");
            default:
                return page(users.listUser(n), n);
        }
    }

    /**
     * Compares every field of {@code value} with the User the provider builds for {@code id}, whose string fields
     * a page item carries with {@code suffix} appended.
     */
    public static String user(Object value, long id, String suffix) {
        if (!(value instanceof User)) {
            return "expected a User, got " + (value == null ? "null" : value.getClass().getName() + " " + value);
        }
        User u = (User) value;
        User e = expectedUser(id);
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

    /** Page {@code pageNo} of listUser: 1000 in total, 15 users, item i being user i with suffix i. */
    public static String page(Page<User> page, int pageNo) {
        if (page == null || page.getPageNo() != pageNo || page.getTotal() != 1000 || page.getResult() == null
                || page.getResult().size() != 15) {
            return "page " + pageNo + " wrong: " + (page == null ? "null" : "pageNo=" + page.getPageNo() + " total="
                    + page.getTotal() + " result=" + page.getResult());
        }
        List<?> result = page.getResult();
        for (int i = 0; i < 15; i++) {
            String problem = user(result.get(i), i, String.valueOf(i));
            if (problem != null) {
                return "page " + pageNo + " item " + i + ": " + problem;
            }
        }
        return null;
    }

    /** Every field, where {@code User.toString()} shows four. */
    private static String describe(User u) {
        return "User{id=" + u.getId() + ", name=" + u.getName() + ", sex=" + u.getSex() + ", birthday="
                + u.getBirthday() + ", email=" + u.getEmail() + ", mobile=" + u.getMobile() + ", address="
                + u.getAddress() + ", icon=" + u.getIcon() + ", permissions=" + u.getPermissions() + ", status="
                + u.getStatus() + ", createTime=" + u.getCreateTime() + ", updateTime=" + u.getUpdateTime() + "}";
    }
}
