package dev.sluice.benchmark.targets;

import com.google.protobuf.Timestamp;
import dev.sluice.benchmark.grpc.PageMessage;
import dev.sluice.benchmark.grpc.UserMessage;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.apache.dubbo.benchmark.bean.Page;
import org.apache.dubbo.benchmark.bean.User;

/**
 * Maps dubbo-benchmark's {@link User} and {@link Page} to the grpc-java target's protobuf messages and back, field by
 * field (no reflection), so that its server answers the data of {@code UserServiceServerImpl} and its client hands the
 * benchmark the same objects every other target does. Dates travel as {@link Timestamp}s, as in dubbo-benchmark's
 * protobuf variant: a birthday as its midnight UTC, a {@link LocalDateTime} as that wall-clock time in UTC; both map
 * back exactly. A {@code null} object or date is left unset and comes back {@code null}; proto3 has no null string, so
 * a {@code null} string comes back empty (the benchmark's users have none). Stateless; any thread.
 */
final class UserMessages {

    private static final long SECONDS_PER_DAY = 86_400;

    private UserMessages() {}

    static UserMessage toMessage(User user) {
        UserMessage.Builder b = UserMessage.newBuilder()
                .setId(user.getId())
                .setSex(user.getSex())
                .setStatus(user.getStatus());
        if (user.getName() != null) {
            b.setName(user.getName());
        }
        if (user.getEmail() != null) {
            b.setEmail(user.getEmail());
        }
        if (user.getMobile() != null) {
            b.setMobile(user.getMobile());
        }
        if (user.getAddress() != null) {
            b.setAddress(user.getAddress());
        }
        if (user.getIcon() != null) {
            b.setIcon(user.getIcon());
        }
        if (user.getBirthday() != null) {
            b.setBirthday(Timestamp.newBuilder().setSeconds(user.getBirthday().toEpochDay() * SECONDS_PER_DAY));
        }
        if (user.getCreateTime() != null) {
            b.setCreateTime(timestamp(user.getCreateTime()));
        }
        if (user.getUpdateTime() != null) {
            b.setUpdateTime(timestamp(user.getUpdateTime()));
        }
        if (user.getPermissions() != null) {
            b.addAllPermissions(user.getPermissions());
        }
        return b.build();
    }

    static User toUser(UserMessage m) {
        User user = new User();
        user.setId(m.getId());
        user.setName(m.getName());
        user.setSex(m.getSex());
        user.setEmail(m.getEmail());
        user.setMobile(m.getMobile());
        user.setAddress(m.getAddress());
        user.setIcon(m.getIcon());
        user.setStatus(m.getStatus());
        if (m.hasBirthday()) {
            user.setBirthday(LocalDate.ofEpochDay(Math.floorDiv(m.getBirthday().getSeconds(), SECONDS_PER_DAY)));
        }
        if (m.hasCreateTime()) {
            user.setCreateTime(dateTime(m.getCreateTime()));
        }
        if (m.hasUpdateTime()) {
            user.setUpdateTime(dateTime(m.getUpdateTime()));
        }
        user.setPermissions(new ArrayList<>(m.getPermissionsList()));
        return user;
    }

    static PageMessage toMessage(Page<User> page) {
        PageMessage.Builder b = PageMessage.newBuilder().setPageNo(page.getPageNo()).setTotal(page.getTotal());
        if (page.getResult() != null) {
            for (User u : page.getResult()) {
                b.addUsers(toMessage(u));
            }
        }
        return b.build();
    }

    static Page<User> toPage(PageMessage m) {
        List<User> users = new ArrayList<>(m.getUsersCount());
        for (UserMessage u : m.getUsersList()) {
            users.add(toUser(u));
        }
        Page<User> page = new Page<>();
        page.setPageNo(m.getPageNo());
        page.setTotal(m.getTotal());
        page.setResult(users);
        return page;
    }

    private static Timestamp timestamp(LocalDateTime t) {
        return Timestamp.newBuilder().setSeconds(t.toEpochSecond(ZoneOffset.UTC)).setNanos(t.getNano()).build();
    }

    private static LocalDateTime dateTime(Timestamp t) {
        return LocalDateTime.ofEpochSecond(t.getSeconds(), t.getNanos(), ZoneOffset.UTC);
    }
}
