package dev.sluice.benchmark.codec;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.dubbo.benchmark.service.UserService;
import org.apache.dubbo.benchmark.service.UserServiceServerImpl;
import org.apache.dubbo.common.URL;
import org.apache.dubbo.common.Version;
import org.apache.dubbo.config.ApplicationConfig;
import org.apache.dubbo.config.ProtocolConfig;
import org.apache.dubbo.config.RegistryConfig;
import org.apache.dubbo.config.ServiceConfig;
import org.apache.dubbo.config.bootstrap.DubboBootstrap;
import org.apache.dubbo.remoting.Channel;
import org.apache.dubbo.remoting.ChannelHandler;
import org.apache.dubbo.remoting.Codec2;
import org.apache.dubbo.remoting.exchange.Request;
import org.apache.dubbo.remoting.exchange.Response;
import org.apache.dubbo.remoting.exchange.support.DefaultFuture;
import org.apache.dubbo.remoting.transport.netty4.NettyBackedChannelBuffer;
import org.apache.dubbo.rpc.AppResponse;
import org.apache.dubbo.rpc.RpcInvocation;
import org.apache.dubbo.rpc.model.ApplicationModel;
import org.apache.dubbo.rpc.protocol.dubbo.DecodeableRpcInvocation;
import org.apache.dubbo.rpc.protocol.dubbo.DecodeableRpcResult;
import org.apache.dubbo.rpc.protocol.dubbo.DubboCountCodec;

/**
 * Dubbo 3.3.6's own path for the same frames: its {@code DubboCountCodec} (the codec its netty4 transport runs) with
 * the {@code Serialization} the channel's URL names, writing into a pooled buffer through
 * {@link NettyBackedChannelBuffer} as its Netty encoder does, and decoding to {@link DecodeableRpcInvocation} and
 * {@link DecodeableRpcResult} with their bodies decoded. So that the provider-side checks run as in a provider
 * (service lookup, permitted serializations, class checks), a real provider of {@link UserService} is exported in
 * this JVM once (dubbo protocol on 127.0.0.1, never called over the network). A response is matched to its call
 * the way a consumer matches it: through the {@link DefaultFuture} of {@link CodecCall#ID}, registered here.
 */
public final class DubboPath implements CodecPath {
    private static final String PROTOCOL_VERSION = Version.getProtocolVersion();
    private static DubboBootstrap provider;

    private final ByteBufAllocator alloc = PooledByteBufAllocator.DEFAULT;
    private final Codec2 codec;
    private final BenchChannel channel;
    private final Request request;
    private final Response response;
    private final DefaultFuture future;
    private Map<String, Object> lastAttachments;
    private String lastTarget;
    private final String description;

    /** @param serialization Dubbo's name, {@code fastjson2} or {@code hessian2} */
    public DubboPath(String serialization, CodecCall call) {
        ApplicationModel app = provider();
        this.codec = new DubboCountCodec(app.getFrameworkModel());
        this.channel = new BenchChannel(URL.valueOf("dubbo://127.0.0.1:20880/" + UserService.class.getName()
                + "?serialization=" + serialization + "&interface=" + UserService.class.getName(), app));
        RpcInvocation inv = new RpcInvocation(call.method(), UserService.class.getName(), UserService.class.getName(),
                call.arguments());
        inv.setObjectAttachments(SluicePath.attachments());
        this.request = new Request(CodecCall.ID);
        request.setVersion(PROTOCOL_VERSION);
        request.setTwoWay(true);
        request.setData(inv);
        this.response = new Response(CodecCall.ID, PROTOCOL_VERSION);
        response.setResult(new AppResponse(call.result()));
        // What the consumer's DubboInvoker leaves for the response decoder: the call, found by its id.
        this.description = serialization + " " + call.method().getName();
        this.future = DefaultFuture.newFuture(channel, request, Integer.MAX_VALUE, null);
    }

    /** Exports dubbo-benchmark's service once per JVM, accepting both serializations, as a 3.3 provider does. */
    private static synchronized ApplicationModel provider() {
        if (provider == null) {
            ApplicationConfig app = new ApplicationConfig("sluice-codec-bench");
            app.setQosEnable(false);
            app.setLogger("slf4j");
            ProtocolConfig protocol = new ProtocolConfig("dubbo", freePort());
            protocol.setHost("127.0.0.1");
            protocol.setSerialization("fastjson2");
            protocol.setPreferSerialization("fastjson2,hessian2");
            ServiceConfig<UserService> service = new ServiceConfig<>();
            service.setInterface(UserService.class);
            service.setRef(new UserServiceServerImpl());
            service.setFilter("-default");
            DubboBootstrap bootstrap = DubboBootstrap.newInstance();
            bootstrap.application(app).registry(new RegistryConfig(RegistryConfig.NO_AVAILABLE)).protocol(protocol)
                    .service(service).start();
            provider = bootstrap;
        }
        return provider.getApplicationModel();
    }

    private static int freePort() {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free port for the in-JVM Dubbo provider", e);
        }
    }

    @Override
    public ByteBuf encodeRequest() {
        return encode(request);
    }

    @Override
    public ByteBuf encodeResponse() {
        return encode(response);
    }

    /** As Dubbo's Netty encoder: a default-sized pooled buffer that grows, wrapped as a ChannelBuffer. */
    private ByteBuf encode(Object message) {
        ByteBuf buf = alloc.ioBuffer();
        try {
            codec.encode(channel, new NettyBackedChannelBuffer(buf), message);
            return buf;
        } catch (IOException | RuntimeException e) {
            buf.release();
            throw new IllegalStateException("Dubbo could not encode " + message, e);
        }
    }

    @Override
    public Object[] decodeRequest(ByteBuf frame) {
        Request r = (Request) decode(frame);
        Object data = r.getData();
        if (data instanceof DecodeableRpcInvocation) {
            DecodeableRpcInvocation inv = (DecodeableRpcInvocation) data;
            try {
                inv.decode(); // a no-op when the codec already decoded it on the "I/O thread"
            } catch (Exception e) {
                throw new IllegalStateException("Dubbo could not decode the request", e);
            }
            if (!r.isBroken()) {
                lastAttachments = inv.getObjectAttachments();
                lastTarget = inv.getAttachment("path") + "#" + inv.getMethodName();
                return inv.getArguments();
            }
        }
        throw new IllegalStateException("Dubbo could not decode the request: " + r.getData(),
                r.getData() instanceof Throwable ? (Throwable) r.getData() : null);
    }

    @Override
    public Object decodeResponse(ByteBuf frame) {
        Response r = (Response) decode(frame);
        if (r.getResult() instanceof DecodeableRpcResult) {
            DecodeableRpcResult result = (DecodeableRpcResult) r.getResult();
            try {
                result.decode();
            } catch (Exception e) {
                throw new IllegalStateException("Dubbo could not decode the response", e);
            }
            if (r.getStatus() == Response.OK) {
                lastAttachments = result.getObjectAttachments();
                return result.getValue();
            }
        }
        throw new IllegalStateException("Dubbo could not decode the response: status " + r.getStatus() + ", "
                + r.getErrorMessage());
    }

    private Object decode(ByteBuf frame) {
        try {
            Object m = codec.decode(channel, new NettyBackedChannelBuffer(frame));
            if (m == Codec2.DecodeResult.NEED_MORE_INPUT) {
                throw new IllegalStateException("Dubbo's codec wants more than the whole frame");
            }
            return m;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public Map<String, Object> lastAttachments() {
        return lastAttachments;
    }

    @Override
    public String lastTarget() {
        return lastTarget;
    }

    @Override
    public String toString() {
        return "dubbo " + description;
    }

    @Override
    public void close() {
        future.cancel(true);
    }

    /** The Dubbo {@link Channel} the codec asks for its URL and attributes; nothing is ever sent through it. */
    private static final class BenchChannel implements Channel {
        private final URL url;
        private final Map<String, Object> attributes = new ConcurrentHashMap<>();
        private final InetSocketAddress address = new InetSocketAddress("127.0.0.1", 20880);

        BenchChannel(URL url) {
            this.url = url;
        }

        @Override
        public URL getUrl() {
            return url;
        }

        @Override
        public ChannelHandler getChannelHandler() {
            return null;
        }

        @Override
        public InetSocketAddress getLocalAddress() {
            return address;
        }

        @Override
        public InetSocketAddress getRemoteAddress() {
            return address;
        }

        @Override
        public void send(Object message) {
            throw new UnsupportedOperationException("the codec benchmark's channel sends nothing");
        }

        @Override
        public void send(Object message, boolean sent) {
            throw new UnsupportedOperationException("the codec benchmark's channel sends nothing");
        }

        @Override
        public void close() {
        }

        @Override
        public void close(int timeout) {
        }

        @Override
        public void startClose() {
        }

        @Override
        public boolean isClosed() {
            return false;
        }

        @Override
        public boolean isConnected() {
            return true;
        }

        @Override
        public boolean hasAttribute(String key) {
            return attributes.containsKey(key);
        }

        @Override
        public Object getAttribute(String key) {
            return attributes.get(key);
        }

        @Override
        public void setAttribute(String key, Object value) {
            if (value == null) {
                attributes.remove(key);
            } else {
                attributes.put(key, value);
            }
        }

        @Override
        public void removeAttribute(String key) {
            attributes.remove(key);
        }
    }
}
