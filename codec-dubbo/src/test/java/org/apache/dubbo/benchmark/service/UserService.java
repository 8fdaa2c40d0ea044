package org.apache.dubbo.benchmark.service;

import org.apache.dubbo.benchmark.bean.Page;
import org.apache.dubbo.benchmark.bean.User;

/** dubbo-benchmark's service interface; its FQCN and method descriptors are on the wire. */
public interface UserService {
    boolean existUser(String email);

    boolean createUser(User user);

    User getUser(long id);

    Page<User> listUser(int pageNo);
}
