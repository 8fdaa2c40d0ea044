package dev.sluice.benchmark.targets;

import dev.sluice.benchmark.BenchTarget;
import dev.sluice.benchmark.async.AsyncUserService;
import dev.sluice.codec.dubbo.DubboCodec;
import dev.sluice.codec.dubbo.DubboEncoder;
import dev.sluice.codec.dubbo.DubboMethod;
import dev.sluice.codec.dubbo.DubboRequest;
import dev.sluice.codec.dubbo.DubboResponse;
import dev.sluice.codec.dubbo.internal.DubboConstants;
import dev.sluice.transport.Connection;
import dev.sluice.transport.TransportHandler;
import dev.sluice.transport.TransportOptions;
import dev.sluice.transport.WriteListener;
import dev.sluice.transport.codec.Codec;
import dev.sluice.transport.codec.FrameDecoder;
import dev.sluice.transport.codec.FrameEncoder;
import dev.sluice.transport.codec.LengthFieldFrames;
import dev.sluice.transport.netty.NettyClientTransport;
import dev.sluice.transport.netty.NettyServerTransport;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.net.InetSocketAddress;
import java.time.LocalDateTime;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.dubbo.benchmark.bean.Page;
import org.apache.dubbo.benchmark.bean.User;
import org.apache.dubbo.benchmark.service.UserService;
import org.apache.dubbo.benchmark.service.UserServiceServerImpl;

/**
 * The transport's ceiling: real Dubbo frames, encoded once, moved over Sluice's transport with no serialization.
 *
 * <p>Both sides build the same four request frames and four response frames with codec-dubbo's encoder, from fixed
 * arguments and fixed timestamps (so both JVMs get identical bytes). Per call, the client copies the method's request
 * frame into a pooled buffer with a fresh id and waits for the response with that id; the server, on its event loop,
 * picks the response by the request's frame length (the four differ), patches the id in, and sends it. Results are
 * canned objects. Frames are cut by the transport's {@link LengthFieldFrames} (16-byte header, length at 12).
 *
 * <p>The asynchronous client sends the same frames (with the synchronous service's path: the server does not read
 * it) and completes each call's future with its canned result on the event loop that read the response; it keeps
 * no timer of its own (the benchmark bounds each wait).
 */
public final class RawTarget implements BenchTarget {

    private static final int EXIST = 0;
    private static final int CREATE = 1;
    private static final int GET = 2;
    private static final int LIST = 3;

    @Override
    public String name() {
        return "raw";
    }

    @Override
    public String description() {
        return "pre-encoded dubbo frames answered on the event loop by a minimal server, Sluice transport,"
                + " no serialization";
    }

    /** The eight frames: request and response per method, header included. */
    static final class Frames {
        final byte[][] requests = new byte[4][];
        final byte[][] responses = new byte[4][];
        final User user;
        final Page<User> page;

        Frames() {
            LocalDateTime fixed = LocalDateTime.of(2024, 7, 14, 12, 0, 0, 123_456_789);
            UserServiceServerImpl impl = new UserServiceServerImpl();
            user = impl.getUser(1);
            user.setCreateTime(fixed);
            user.setUpdateTime(fixed);
            page = impl.listUser(1);
            for (User u : page.getResult()) {
                u.setCreateTime(fixed);
                u.setUpdateTime(fixed);
            }
            DubboEncoder encoder = DubboCodec.builder().build().encoder();
            Object[][] args = {{"1"}, {user}, {1L}, {1}};
            String[] names = {"existUser", "createUser", "getUser", "listUser"};
            Object[] results = {Boolean.TRUE, Boolean.TRUE, user, page};
            Map<String, Object> attachments = new HashMap<>();
            attachments.put("path", UserService.class.getName());
            attachments.put("interface", UserService.class.getName());
            attachments.put("version", DubboConstants.DEFAULT_SERVICE_VERSION);
            attachments.put("timeout", "1000");
            for (int m = 0; m < 4; m++) {
                DubboMethod method = DubboMethod.of(UserService.class, find(names[m]), null);
                DubboRequest request = DubboRequest.invocation(0, method, args[m], attachments);
                requests[m] = encode(encoder, request);
                responses[m] = encode(encoder, DubboResponse.replyValue(request, results[m]));
            }
            for (int a = 0; a < 4; a++) {
                for (int b = a + 1; b < 4; b++) {
                    if (requests[a].length == requests[b].length) {
                        throw new IllegalStateException("raw: request frames of " + names[a] + " and " + names[b]
                                + " have the same length " + requests[a].length);
                    }
                }
            }
        }

        private static java.lang.reflect.Method find(String name) {
            for (java.lang.reflect.Method m : UserService.class.getMethods()) {
                if (m.getName().equals(name)) {
                    return m;
                }
            }
            throw new IllegalStateException("UserService has no method " + name);
        }

        private static byte[] encode(DubboEncoder encoder, Object message) {
            ByteBuf buf = Unpooled.buffer(4096);
            try {
                encoder.encode(message, buf);
                byte[] out = new byte[buf.readableBytes()];
                buf.readBytes(out);
                return out;
            } finally {
                buf.release();
            }
        }

        byte[] responseFor(int requestLength) {
            for (int m = 0; m < 4; m++) {
                if (requests[m].length == requestLength) {
                    return responses[m];
                }
            }
            return null;
        }
    }

    /** A pre-encoded frame sent with its own id (bytes 4–11 of the header). */
    record Frame(byte[] template, long id) {}

    /** Cuts frames like {@link LengthFieldFrames}; writes a {@link Frame} as its template with the id patched. */
    static final class RawCodec implements Codec {
        private final LengthFieldFrames frames = new LengthFieldFrames(16, 12, 8 * 1024 * 1024);
        private final FrameEncoder encoder = new FrameEncoder() {
            @Override
            public void encode(Object message, ByteBuf out) {
                Frame f = (Frame) message;
                int start = out.writerIndex();
                out.writeBytes(f.template());
                out.setLong(start + 4, f.id());
            }

            @Override
            public int sizeHint(Object message) {
                return ((Frame) message).template().length;
            }
        };

        @Override
        public FrameEncoder encoder() {
            return encoder;
        }

        @Override
        public FrameDecoder newDecoder(Connection connection) {
            return frames.newDecoder(connection);
        }
    }

    @Override
    public AutoCloseable startServer(String host, int port) {
        Frames frames = new Frames();
        NettyServerTransport server = NettyServerTransport.builder()
                .bindAddress(new InetSocketAddress(host, port))
                .options(TransportOptions.defaults())
                .codec(new RawCodec())
                .handler(new TransportHandler() {
                    @Override
                    public void received(Connection connection, Object message) {
                        ByteBuf frame = (ByteBuf) message;
                        byte[] response;
                        long id;
                        try {
                            id = frame.getLong(frame.readerIndex() + 4);
                            response = frames.responseFor(frame.readableBytes());
                        } finally {
                            frame.release();
                        }
                        if (response == null) {
                            connection.close(); // not one of our four requests
                            return;
                        }
                        connection.send(new Frame(response, id), WriteListener.NONE);
                    }
                })
                .bind();
        return server::close;
    }

    @Override
    public Client connect(ClientConfig config) throws Exception {
        return new RawClient(config);
    }

    @Override
    public boolean supportsAsync() {
        return true;
    }

    @Override
    public AsyncClient connectAsync(ClientConfig config) throws Exception {
        RawClient client = new RawClient(config);
        return new AsyncClient() {
            @Override
            public AsyncUserService service() {
                return client.async;
            }

            @Override
            public void close() {
                client.close();
            }
        };
    }

    /** One call: completes with its canned result when the response with its id arrives. */
    static final class RawCall<T> extends CompletableFuture<T> {
        final long id;
        final T result;

        RawCall(long id, T result) {
            this.id = id;
            this.result = result;
        }

        void succeed() {
            complete(result);
        }
    }

    /**
     * Sends the pre-encoded requests and waits for the response with the same id; returns canned results. Its
     * {@link #async} view returns each call's future at once.
     */
    static final class RawClient implements Client, UserService {
        private final Frames frames = new Frames();
        private final ConcurrentHashMap<Long, RawCall<?>> pending = new ConcurrentHashMap<>();
        private final AtomicLong ids = new AtomicLong();
        private final long timeoutMillis;
        private final NettyClientTransport transport;

        RawClient(ClientConfig config) throws Exception {
            this.timeoutMillis = config.timeoutMillis();
            this.transport = NettyClientTransport.builder()
                    .remote(config.host(), config.port())
                    .options(TransportOptions.defaults())
                    .codec(new RawCodec())
                    .handler(new TransportHandler() {
                        @Override
                        public void received(Connection connection, Object message) {
                            ByteBuf frame = (ByteBuf) message;
                            long id;
                            byte status;
                            try {
                                id = frame.getLong(frame.readerIndex() + 4);
                                status = frame.getByte(frame.readerIndex() + 3);
                            } finally {
                                frame.release();
                            }
                            RawCall<?> call = pending.remove(id);
                            if (call != null) {
                                if (status == DubboConstants.STATUS_OK) {
                                    call.succeed();
                                } else {
                                    call.completeExceptionally(new IllegalStateException("raw: status " + status));
                                }
                            }
                        }
                    })
                    .build();
            transport.connect().get(30, TimeUnit.SECONDS);
        }

        private <T> RawCall<T> send(int method, T result) {
            long id = ids.incrementAndGet();
            RawCall<T> done = new RawCall<>(id, result);
            pending.put(id, done);
            transport.connection().send(new Frame(frames.requests[method], id), new WriteListener() {
                @Override
                public void onWritten() {
                }

                @Override
                public void onWriteFailed(Throwable cause) {
                    pending.remove(id);
                    done.completeExceptionally(cause);
                }
            });
            return done;
        }

        private void call(int method) {
            RawCall<Boolean> done = send(method, Boolean.TRUE);
            try {
                done.get(timeoutMillis, TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                throw new IllegalStateException("raw: no response after " + timeoutMillis + " ms", e);
            } catch (ExecutionException e) {
                throw new IllegalStateException("raw: call failed", e.getCause());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("raw: interrupted", e);
            } finally {
                pending.remove(done.id);
            }
        }

        /** The same calls, each returning its future at once. */
        final AsyncUserService async = new AsyncUserService() {
            @Override
            public CompletableFuture<Boolean> existUser(String email) {
                return send(EXIST, Boolean.TRUE);
            }

            @Override
            public CompletableFuture<Boolean> createUser(User user) {
                return send(CREATE, Boolean.TRUE);
            }

            @Override
            public CompletableFuture<User> getUser(long id) {
                return send(GET, frames.user);
            }

            @Override
            public CompletableFuture<Page<User>> listUser(int pageNo) {
                return send(LIST, frames.page);
            }
        };

        @Override
        public boolean existUser(String email) {
            call(EXIST);
            return true;
        }

        @Override
        public boolean createUser(User user) {
            call(CREATE);
            return true;
        }

        @Override
        public User getUser(long id) {
            call(GET);
            return frames.user;
        }

        @Override
        public Page<User> listUser(int pageNo) {
            call(LIST);
            return frames.page;
        }

        @Override
        public UserService service() {
            return this;
        }

        /** Closes the connection and fails every call still waiting for its response. */
        @Override
        public void close() {
            transport.close();
            IllegalStateException closed = new IllegalStateException("raw: client closed");
            for (Long id : pending.keySet()) {
                RawCall<?> call = pending.remove(id);
                if (call != null) {
                    call.completeExceptionally(closed);
                }
            }
        }
    }
}
