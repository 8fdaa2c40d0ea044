package dev.sluice.benchmark.async;

import java.util.concurrent.CompletableFuture;
import org.apache.dubbo.benchmark.bean.Page;
import org.apache.dubbo.benchmark.bean.User;
import org.apache.dubbo.benchmark.service.UserServiceServerImpl;

/**
 * The one server implementation of {@link AsyncUserService} every target serves: dubbo-benchmark's
 * {@link UserServiceServerImpl} computes the value on the thread that invokes the method (the provider's service
 * thread), and the future is already complete, as an asynchronous service that has its answer at hand would return it.
 * The server-side work per call is therefore the synchronous workload's.
 */
public final class AsyncUserServiceImpl implements AsyncUserService {

    private final UserServiceServerImpl delegate = new UserServiceServerImpl();

    @Override
    public CompletableFuture<Boolean> existUser(String email) {
        return CompletableFuture.completedFuture(delegate.existUser(email));
    }

    @Override
    public CompletableFuture<Boolean> createUser(User user) {
        return CompletableFuture.completedFuture(delegate.createUser(user));
    }

    @Override
    public CompletableFuture<User> getUser(long id) {
        return CompletableFuture.completedFuture(delegate.getUser(id));
    }

    @Override
    public CompletableFuture<Page<User>> listUser(int pageNo) {
        return CompletableFuture.completedFuture(delegate.listUser(pageNo));
    }
}
