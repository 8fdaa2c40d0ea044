package dev.sluice.benchmark.codec;

import dev.sluice.codec.dubbo.ClassAllowlist;
import dev.sluice.codec.dubbo.DubboCodec;
import dev.sluice.codec.dubbo.DubboEncoder;
import dev.sluice.codec.dubbo.DubboMethod;
import dev.sluice.codec.dubbo.DubboRequest;
import dev.sluice.codec.dubbo.DubboResponse;
import dev.sluice.codec.dubbo.EncodedAttachments;
import dev.sluice.codec.dubbo.internal.DubboConstants;
import dev.sluice.codec.dubbo.internal.InterfaceTypeResolver;
import dev.sluice.rpc.Serialization;
import dev.sluice.transport.codec.FrameDecoder;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.dubbo.benchmark.service.UserService;

/**
 * Sluice's codec as {@code SluiceClient} and {@code SluiceServer} set it up: one {@link DubboEncoder}; a server-side
 * decoder whose resolver knows {@link UserService} (arguments decoded with the frame); a client-side decoder that
 * defers result values, which {@link DubboResponse#takeValue} then parses as the caller does. Requests carry the
 * attachments a {@code SluiceClient} proxy sends; responses the provider's {@code {"dubbo":"2.0.2"}}. Buffers come
 * from the pooled allocator, sized by the encoder's hint, as the transport allocates them.
 *
 * <p>As a <b>generic</b> path, the same call made as a gateway makes it ({@code $invoke(method, parameterTypes, args)}
 * with POJOs as maps, the attachment {@code generic=true}) and answered as a {@code SluiceServer} answers it: decoding
 * the request includes converting the arguments to the declared types, encoding the response includes converting
 * the result to its generic form, and the client reads that form untyped.
 */
public final class SluicePath implements CodecPath {
    private final ByteBufAllocator alloc = PooledByteBufAllocator.DEFAULT;
    private final DubboEncoder encoder;
    private final FrameDecoder serverDecoder;
    private final FrameDecoder clientDecoder;
    private final DubboRequest request;
    private final DubboResponse response;
    private final Type valueType;
    /** The server's conversions; null on the typed path. */
    private final GenericForms generic;
    private final Object result;
    private final Type[] parameterTypes;
    private final List<Object> out = new ArrayList<>(1);
    private Map<String, Object> lastAttachments;
    private String lastTarget;
    private final String description;
    private final Serialization serialization;

    public SluicePath(Serialization serialization, CodecCall call) {
        this(serialization, call, false);
    }

    /** @param generic whether the call is made generically ({@code $invoke}), as a gateway makes it */
    public SluicePath(Serialization serialization, CodecCall call, boolean generic) {
        ClassAllowlist allowlist = ClassAllowlist.strict().register(UserService.class);
        DubboCodec server = DubboCodec.builder().allowlist(allowlist)
                .resolver(new InterfaceTypeResolver(allowlist).register(UserService.class, null)).build();
        DubboCodec client = DubboCodec.builder().allowlist(allowlist).deferResponseValues(true).build();
        this.encoder = server.encoder();
        this.serverDecoder = server.newDecoder(null);
        this.clientDecoder = client.newDecoder(null);
        this.generic = generic ? new GenericForms(allowlist) : null;
        this.result = call.result();
        this.parameterTypes = call.method().getGenericParameterTypes();
        if (generic) {
            Class<?>[] types = call.method().getParameterTypes();
            String[] typeNames = new String[types.length];
            Object[] args = new Object[types.length];
            for (int i = 0; i < types.length; i++) {
                typeNames[i] = types[i].getName();
                args[i] = GenericForms.generalize(call.arguments()[i]); // what a gateway holds: maps for POJOs
            }
            Map<String, Object> attachments = attachments();
            attachments.put(DubboConstants.ATTACHMENT_GENERIC, "true");
            this.request = DubboRequest.invocation(CodecCall.ID, true, serialization.id(),
                    DubboMethod.of(UserService.class.getName(), null, DubboConstants.GENERIC_METHOD,
                            DubboConstants.GENERIC_DESC), new Object[] {call.method().getName(), typeNames, args},
                    EncodedAttachments.of(attachments));
        } else {
            this.request = DubboRequest.invocation(CodecCall.ID, true, serialization.id(),
                    DubboMethod.of(UserService.class, call.method(), null), call.arguments(),
                    EncodedAttachments.of(attachments())); // as a proxy sends them: encoded once
        }
        this.serialization = serialization;
        this.response = generic ? null : DubboResponse.value(CodecCall.ID, serialization.id(), call.result(),
                DubboResponse.DEFAULT_ATTACHMENTS);
        this.valueType = generic ? Object.class : call.method().getGenericReturnType();
        this.description = serialization.dubboName() + " " + call.method().getName() + (generic ? " (generic)" : "");
    }

    /** What a {@code SluiceClient} proxy without version or group sends (its MethodMeta). */
    static Map<String, Object> attachments() {
        Map<String, Object> a = new HashMap<>();
        a.put("path", UserService.class.getName());
        a.put("interface", UserService.class.getName());
        a.put("version", DubboConstants.DEFAULT_SERVICE_VERSION);
        a.put("timeout", String.valueOf(CodecCall.TIMEOUT_MILLIS));
        return a;
    }

    @Override
    public ByteBuf encodeRequest() {
        return encode(request);
    }

    @Override
    public ByteBuf encodeResponse() {
        if (generic != null) { // the server converts the result, then encodes it
            return encode(DubboResponse.value(CodecCall.ID, serialization.id(), GenericForms.generalize(result),
                    DubboResponse.DEFAULT_ATTACHMENTS));
        }
        return encode(response);
    }

    private ByteBuf encode(Object message) {
        ByteBuf buf = alloc.ioBuffer(encoder.sizeHint(message));
        try {
            encoder.encode(message, buf);
            return buf;
        } catch (RuntimeException e) {
            buf.release();
            throw e;
        }
    }

    @Override
    public Object[] decodeRequest(ByteBuf frame) {
        DubboRequest r = (DubboRequest) decodeOne(serverDecoder, frame);
        if (r.isBroken()) {
            throw new IllegalStateException("Sluice could not decode the request: " + r.errorMessage());
        }
        lastAttachments = r.attachments();
        if (generic == null) {
            lastTarget = r.servicePath() + "#" + r.methodName();
            return r.arguments();
        }
        // The server converts the generic arguments to the target method's parameter types.
        Object[] given = (Object[]) r.arguments()[2];
        Object[] args = new Object[parameterTypes.length];
        for (int i = 0; i < args.length; i++) {
            args[i] = generic.realize(given[i], parameterTypes[i]);
        }
        lastTarget = r.servicePath() + "#" + r.arguments()[0];
        return args;
    }

    @Override
    public Object decodeResponse(ByteBuf frame) {
        DubboResponse r = (DubboResponse) decodeOne(clientDecoder, frame);
        if (!r.isOk()) {
            throw new IllegalStateException("Sluice could not decode the response: " + r.errorMessage());
        }
        lastAttachments = r.attachments();
        return r.takeValue(valueType); // as SluiceClient reads it: once, handing the bytes back
    }

    private Object decodeOne(FrameDecoder decoder, ByteBuf frame) {
        decoder.decode(frame, out);
        if (out.size() != 1) {
            throw new IllegalStateException("expected one message from one frame, got " + out);
        }
        Object m = out.get(0);
        out.clear();
        return m;
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
        return "sluice " + description;
    }

    @Override
    public void close() {
        serverDecoder.close();
        clientDecoder.close();
    }
}
