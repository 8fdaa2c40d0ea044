package dev.sluice.codec.dubbo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.codec.dubbo.internal.DubboConstants;
import dev.sluice.codec.dubbo.internal.InterfaceTypeResolver;
import dev.sluice.transport.codec.FrameDecoder;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.codec.DecoderException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.dubbo.benchmark.bean.User;
import org.apache.dubbo.benchmark.service.UserService;
import org.apache.dubbo.benchmark.service.UserServiceServerImpl;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The decoder in a Netty pipeline, behind a test-local {@link ByteToMessageDecoder} adapter. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class EmbeddedChannelTest {
    /** What a transport does with a {@link FrameDecoder}: cumulate, decode, close on a protocol error. */
    static final class FrameDecoderAdapter extends ByteToMessageDecoder {
        private final FrameDecoder decoder;

        FrameDecoderAdapter(FrameDecoder decoder) {
            this.decoder = decoder;
        }

        @Override
        protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
            decoder.decode(in, out);
        }

        @Override
        protected void handlerRemoved0(ChannelHandlerContext ctx) {
            decoder.close();
        }
    }

    /** A tiny server: answers each request through the shared encoder, as SluiceServer will. */
    static final class Answerer extends ChannelInboundHandlerAdapter {
        private final DubboEncoder encoder;
        private final UserService service = new UserServiceServerImpl();

        Answerer(DubboEncoder encoder) {
            this.encoder = encoder;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            DubboRequest req = (DubboRequest) msg;
            DubboResponse resp;
            if (req.isHeartbeat()) {
                resp = DubboResponse.replyHeartbeat(req);
            } else if (req.isBroken()) {
                resp = DubboResponse.replyError(req, req.brokenStatus(), req.errorMessage());
            } else if ("getUser".equals(req.methodName())) {
                resp = DubboResponse.replyValue(req, service.getUser((Long) req.arguments()[0]));
            } else {
                resp = DubboResponse.replyError(req, DubboConstants.STATUS_SERVICE_NOT_FOUND, "no " + req.methodName());
            }
            if (!req.isTwoWay()) {
                return;
            }
            ByteBuf out = ctx.alloc().buffer(encoder.sizeHint(resp));
            try {
                encoder.encode(resp, out);
                ctx.writeAndFlush(out);
                out = null;
            } finally {
                if (out != null) {
                    out.release();
                }
            }
        }
    }

    private static DubboCodec codec() {
        ClassAllowlist allowlist = ClassAllowlist.strict();
        return DubboCodec.builder().allowlist(allowlist)
                .resolver(new InterfaceTypeResolver(allowlist).register(UserService.class, null)).build();
    }

    @Test
    void framesSplitAndCoalescedAcrossWritesAreAnswered() {
        DubboCodec codec = codec();
        EmbeddedChannel ch = new EmbeddedChannel(new FrameDecoderAdapter(codec.newDecoder(null)),
                new Answerer(codec.encoder()));
        byte[] getUser = Vectors.frame("getUser.request");
        byte[] heartbeat = Vectors.frame("heartbeat.request");
        byte[] stream = TestBytes.concat(getUser, heartbeat, getUser);
        // Three writes cutting through headers and bodies.
        int[] cuts = {7, getUser.length + 3, stream.length};
        int from = 0;
        for (int cut : cuts) {
            ch.writeInbound(Unpooled.wrappedBuffer(stream, from, cut - from));
            from = cut;
        }
        List<DubboResponse> responses = new ArrayList<>();
        DubboDecoder client = Codecs.clientDecoder(User.class);
        for (ByteBuf b; (b = ch.readOutbound()) != null; ) {
            try {
                List<Object> out = new ArrayList<>();
                client.decode(b, out);
                assertFalse(b.isReadable());
                out.forEach(o -> responses.add((DubboResponse) o));
            } finally {
                b.release();
            }
        }
        assertEquals(3, responses.size());
        GoldenVectorsTest.assertDougLea(assertInstanceOf(User.class, responses.get(0).value()), 2, "");
        assertTrue(responses.get(1).isHeartbeat());
        assertEquals(FramingTest.id(heartbeat), responses.get(1).id());
        assertEquals(FramingTest.id(getUser), responses.get(2).id());
        assertFalse(ch.finish());
    }

    @Test
    void wrongMagicSurfacesAsTheCloseReason() {
        EmbeddedChannel ch = new EmbeddedChannel(new FrameDecoderAdapter(codec().newDecoder(null)));
        DecoderException e = assertThrows(DecoderException.class,
                () -> ch.writeInbound(Unpooled.wrappedBuffer("GET / HTTP/1.1\r\n\r\n".getBytes())));
        assertInstanceOf(DubboProtocolException.class, e.getCause());
        assertNull(ch.readInbound());
        ch.finishAndReleaseAll();
    }

    @Test
    void oversizedRequestIsAnsweredAndTheConnectionGoesOn() {
        DubboCodec codec = DubboCodec.builder().payloadLimit(1024).allowlist(ClassAllowlist.strict()).resolver(
                new InterfaceTypeResolver(ClassAllowlist.strict()).register(UserService.class, null)).build();
        assertEquals(1024, codec.payloadLimit());
        assertSame(codec.encoder(), codec.encoder(), "one shared encoder");
        EmbeddedChannel ch = new EmbeddedChannel(new FrameDecoderAdapter(codec.newDecoder(null)),
                new Answerer(new DubboEncoder(0)));
        byte[] big = Codecs.encode(new DubboEncoder(0), DubboRequest.invocation(500L, Codecs.GET_USER,
                new Object[] {1L}, java.util.Map.of("pad", "p".repeat(4000))));
        byte[] getUser = Vectors.frame("getUser.request");
        ch.writeInbound(Unpooled.wrappedBuffer(big, 0, 1000));
        ch.writeInbound(Unpooled.wrappedBuffer(big, 1000, big.length - 1000));
        ch.writeInbound(Unpooled.wrappedBuffer(getUser));
        DubboDecoder client = Codecs.clientDecoder(User.class);
        List<Object> out = new ArrayList<>();
        for (ByteBuf b; (b = ch.readOutbound()) != null; ) {
            try {
                client.decode(b, out);
            } finally {
                b.release();
            }
        }
        assertEquals(2, out.size());
        DubboResponse rejected = (DubboResponse) out.get(0);
        assertEquals(500L, rejected.id());
        assertEquals(DubboConstants.STATUS_BAD_REQUEST, rejected.status());
        assertTrue(rejected.errorMessage().contains("max payload: 1024"), rejected.errorMessage());
        assertTrue(((DubboResponse) out.get(1)).isOk());
        assertFalse(ch.finish());
    }
}
