package dev.sluice.benchmark.targets;

import dev.sluice.benchmark.grpc.UserRequest;
import dev.sluice.benchmark.grpc.UserResponse;
import io.grpc.MethodDescriptor;
import io.grpc.ServerServiceDefinition;
import io.grpc.protobuf.ProtoUtils;
import io.grpc.stub.ServerCalls;
import java.util.List;
import java.util.function.Function;

/**
 * The gRPC side of {@code user_service.proto}'s {@code UserService}: its four unary methods and a server definition,
 * built with the same grpc-java API that protoc-gen-grpc-java's generated {@code *Grpc} class uses (method descriptors
 * with protobuf marshallers, {@link ServerCalls#asyncUnaryCall}); the clients call them through
 * {@link io.grpc.stub.ClientCalls} as the generated blocking and async stubs do. Written here because the generator's
 * binary did not resolve for this build (see the benchmark's pom). Immutable; any thread.
 */
final class UserServiceRpc {

    /** The service's full name, {@code package.Service} of the .proto. */
    static final String SERVICE = "sluice.benchmark.UserService";

    static final MethodDescriptor<UserRequest, UserResponse> EXIST_USER = unary("ExistUser");
    static final MethodDescriptor<UserRequest, UserResponse> CREATE_USER = unary("CreateUser");
    static final MethodDescriptor<UserRequest, UserResponse> GET_USER = unary("GetUser");
    static final MethodDescriptor<UserRequest, UserResponse> LIST_USER = unary("ListUser");

    private UserServiceRpc() {}

    private static MethodDescriptor<UserRequest, UserResponse> unary(String method) {
        return MethodDescriptor.<UserRequest, UserResponse>newBuilder()
                .setType(MethodDescriptor.MethodType.UNARY)
                .setFullMethodName(MethodDescriptor.generateFullMethodName(SERVICE, method))
                .setRequestMarshaller(ProtoUtils.marshaller(UserRequest.getDefaultInstance()))
                .setResponseMarshaller(ProtoUtils.marshaller(UserResponse.getDefaultInstance()))
                .setSampledToLocalTracing(true)
                .build();
    }

    /** The four methods, in the .proto's order. */
    static List<MethodDescriptor<UserRequest, UserResponse>> methods() {
        return List.of(EXIST_USER, CREATE_USER, GET_USER, LIST_USER);
    }

    /**
     * A server definition answering each method with {@code answers} applied to the request; the answer is sent and
     * the call completed on the thread that runs the method (grpc's executor), an exception fails the call.
     */
    static ServerServiceDefinition service(
            Function<MethodDescriptor<UserRequest, UserResponse>, Function<UserRequest, UserResponse>> answers) {
        ServerServiceDefinition.Builder b = ServerServiceDefinition.builder(SERVICE);
        for (MethodDescriptor<UserRequest, UserResponse> m : methods()) {
            Function<UserRequest, UserResponse> answer = answers.apply(m);
            b.addMethod(m, ServerCalls.asyncUnaryCall((request, observer) -> {
                observer.onNext(answer.apply(request));
                observer.onCompleted();
            }));
        }
        return b.build();
    }
}
