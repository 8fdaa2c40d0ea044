package dev.sluice.benchmark.async;

import java.util.concurrent.CompletableFuture;
import org.apache.dubbo.benchmark.bean.Page;
import org.apache.dubbo.benchmark.bean.User;

/**
 * dubbo-benchmark's {@code UserService} with every method returning {@link CompletableFuture}: the same names,
 * parameters and result types, so the request and response bodies are those of the synchronous workload (only the
 * service path differs). Both Dubbo 3.3.6 and Sluice treat a {@code CompletableFuture} return type as an
 * asynchronous method on both sides: the consumer's call returns at once, the provider answers when the future
 * completes.
 */
public interface AsyncUserService {

    CompletableFuture<Boolean> existUser(String email);

    CompletableFuture<Boolean> createUser(User user);

    CompletableFuture<User> getUser(long id);

    CompletableFuture<Page<User>> listUser(int pageNo);
}
