package dev.sluice.benchmark.targets;

import dev.sluice.benchmark.BenchTarget;
import dev.sluice.benchmark.async.AsyncUserService;
import dev.sluice.benchmark.grpc.UserRequest;
import dev.sluice.benchmark.grpc.UserResponse;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.apache.dubbo.benchmark.bean.Page;
import org.apache.dubbo.benchmark.bean.User;
import org.apache.dubbo.benchmark.service.UserService;
import org.apache.dubbo.benchmark.service.UserServiceServerImpl;

/**
 * grpc-java on grpc-netty, both sides at their defaults: what a Java team would pick instead of Dubbo. The service is
 * {@code src/main/proto/.../user_service.proto}, dubbo-benchmark's protobuf variant of UserService (one request and
 * one response message per call, unary), its gRPC methods in {@link UserServiceRpc}. The server runs
 * {@code UserServiceServerImpl} and maps its objects to messages ({@link UserMessages}); the client maps the messages
 * back, so the benchmark gets the same objects from every target.
 *
 * <p>What it pays: per call a new HTTP/2 stream on the one connection of the channel (HPACK-coded request headers, a
 * DATA frame with gRPC's 5-byte length prefix, response headers, DATA and trailers with {@code grpc-status}, and flow
 * control window updates), protobuf encoding (field tags and varints, no type names) and the mapping. Threads: the
 * server decodes on Netty's event loops and runs each call on grpc's default executor (a cached pool); the blocking
 * client waits on the calling thread, which also completes the call; the async client completes its futures on the
 * channel's default executor (a cached pool). The server answers the synchronous and the asynchronous workload with
 * the same methods: in gRPC, blocking or not is the client's choice.
 *
 * <p>Netty: grpc-netty runs on the benchmark's own Netty (the netty-bom's 4.2 release, shared with Dubbo and Sluice),
 * not on grpc-netty-shaded's copy, so that every target's transport is the same Netty release.
 */
public final class GrpcJavaTarget implements BenchTarget {

    /** The running server, and the port it bound (useful when started on port 0). */
    public record Started(Server server) implements AutoCloseable {
        public int port() {
            return server.getPort();
        }

        @Override
        public void close() throws InterruptedException {
            server.shutdown();
            if (!server.awaitTermination(5, TimeUnit.SECONDS)) {
                server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
            }
        }
    }

    @Override
    public String name() {
        return "grpc-java";
    }

    @Override
    public String description() {
        return "grpc-java 1.85 on grpc-netty (the benchmark's Netty 4.2), unary calls, protobuf messages of"
                + " dubbo-benchmark's protobuf variant, defaults: pays HTTP/2 (a stream per call, HPACK headers,"
                + " trailers, flow control) and protobuf, no type names; server calls run on grpc's default executor"
                + " (cached pool), the blocking client completes its call on the calling thread";
    }

    @Override
    public boolean supportsAsync() {
        return true;
    }

    @Override
    public Started startServer(String host, int port) throws Exception {
        Server server = NettyServerBuilder.forAddress(new InetSocketAddress(host, port))
                .addService(UserServiceRpc.service(answers(new UserServiceServerImpl())))
                .build()
                .start(); // bound when this returns
        return new Started(server);
    }

    /** The server side: each method's answer from {@code UserServiceServerImpl}, mapped to messages. */
    static Function<MethodDescriptor<UserRequest, UserResponse>, Function<UserRequest, UserResponse>> answers(
            UserService impl) {
        return method -> {
            if (method == UserServiceRpc.EXIST_USER) {
                return r -> UserResponse.newBuilder().setState(impl.existUser(r.getEmail())).build();
            } else if (method == UserServiceRpc.CREATE_USER) {
                return r -> UserResponse.newBuilder()
                        .setState(impl.createUser(r.hasUser() ? UserMessages.toUser(r.getUser()) : null)).build();
            } else if (method == UserServiceRpc.GET_USER) {
                return r -> UserResponse.newBuilder().setUser(UserMessages.toMessage(impl.getUser(r.getId()))).build();
            } else if (method == UserServiceRpc.LIST_USER) {
                return r -> UserResponse.newBuilder().setPage(UserMessages.toMessage(impl.listUser(r.getPage())))
                        .build();
            }
            throw new IllegalArgumentException("not a UserService method: " + method.getFullMethodName());
        };
    }

    private static ManagedChannel channel(ClientConfig config) {
        return NettyChannelBuilder.forAddress(config.host(), config.port()).usePlaintext().build();
    }

    private static void close(ManagedChannel channel) throws InterruptedException {
        channel.shutdown();
        if (!channel.awaitTermination(5, TimeUnit.SECONDS)) {
            channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
    }

    private static UserRequest email(String email) {
        UserRequest.Builder b = UserRequest.newBuilder();
        if (email != null) {
            b.setEmail(email);
        }
        return b.build();
    }

    private static UserRequest user(User user) {
        UserRequest.Builder b = UserRequest.newBuilder();
        if (user != null) {
            b.setUser(UserMessages.toMessage(user));
        }
        return b.build();
    }

    @Override
    public Client connect(ClientConfig config) {
        ManagedChannel channel = channel(config);
        long timeout = config.timeoutMillis();
        UserService service = new UserService() {
            /** As a generated blocking stub's method: the call on the calling thread, with the harness's deadline. */
            private UserResponse call(MethodDescriptor<UserRequest, UserResponse> method, UserRequest request) {
                return ClientCalls.blockingUnaryCall(channel, method,
                        CallOptions.DEFAULT.withDeadlineAfter(timeout, TimeUnit.MILLISECONDS), request);
            }

            @Override
            public boolean existUser(String email) {
                return call(UserServiceRpc.EXIST_USER, email(email)).getState();
            }

            @Override
            public boolean createUser(User user) {
                return call(UserServiceRpc.CREATE_USER, user(user)).getState();
            }

            @Override
            public User getUser(long id) {
                return UserMessages.toUser(call(UserServiceRpc.GET_USER, UserRequest.newBuilder().setId(id).build())
                        .getUser());
            }

            @Override
            public Page<User> listUser(int pageNo) {
                return UserMessages.toPage(call(UserServiceRpc.LIST_USER,
                        UserRequest.newBuilder().setPage(pageNo).build()).getPage());
            }
        };
        return new Client() {
            @Override
            public UserService service() {
                return service;
            }

            @Override
            public void close() throws InterruptedException {
                GrpcJavaTarget.close(channel);
            }
        };
    }

    /** A response observer that completes a future with the mapped response (or the call's error). */
    private static final class Completing<T> extends CompletableFuture<T> implements StreamObserver<UserResponse> {
        private final Function<UserResponse, T> result;

        Completing(Function<UserResponse, T> result) {
            this.result = result;
        }

        @Override
        public void onNext(UserResponse value) {
            try {
                complete(result.apply(value));
            } catch (RuntimeException e) {
                completeExceptionally(e);
            }
        }

        @Override
        public void onError(Throwable t) {
            completeExceptionally(t);
        }

        @Override
        public void onCompleted() {
            // a unary call has completed the future in onNext (or failed through onError)
        }
    }

    @Override
    public AsyncClient connectAsync(ClientConfig config) {
        ManagedChannel channel = channel(config);
        long timeout = config.timeoutMillis();
        AsyncUserService service = new AsyncUserService() {
            /** As a generated async stub's method: starts the call, {@code answer} sees its response or error. */
            private <T> CompletableFuture<T> call(MethodDescriptor<UserRequest, UserResponse> method,
                    UserRequest request, Function<UserResponse, T> result) {
                Completing<T> answer = new Completing<>(result);
                ClientCalls.asyncUnaryCall(channel.newCall(method,
                        CallOptions.DEFAULT.withDeadlineAfter(timeout, TimeUnit.MILLISECONDS)), request, answer);
                return answer;
            }

            @Override
            public CompletableFuture<Boolean> existUser(String email) {
                return call(UserServiceRpc.EXIST_USER, email(email), UserResponse::getState);
            }

            @Override
            public CompletableFuture<Boolean> createUser(User user) {
                return call(UserServiceRpc.CREATE_USER, user(user), UserResponse::getState);
            }

            @Override
            public CompletableFuture<User> getUser(long id) {
                return call(UserServiceRpc.GET_USER, UserRequest.newBuilder().setId(id).build(),
                        r -> UserMessages.toUser(r.getUser()));
            }

            @Override
            public CompletableFuture<Page<User>> listUser(int pageNo) {
                return call(UserServiceRpc.LIST_USER, UserRequest.newBuilder().setPage(pageNo).build(),
                        r -> UserMessages.toPage(r.getPage()));
            }
        };
        return new AsyncClient() {
            @Override
            public AsyncUserService service() {
                return service;
            }

            @Override
            public void close() throws InterruptedException {
                GrpcJavaTarget.close(channel);
            }
        };
    }
}
