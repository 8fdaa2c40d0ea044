package dev.sluice.dubbo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.transport.Connection;
import dev.sluice.transport.ConnectionClosedException;
import dev.sluice.transport.WriteListener;
import dev.sluice.transport.codec.FrameEncoder;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.dubbo.common.URL;
import org.apache.dubbo.common.Version;
import org.apache.dubbo.common.constants.CommonConstants;
import org.apache.dubbo.remoting.Channel;
import org.apache.dubbo.remoting.ChannelHandler;
import org.apache.dubbo.remoting.Codec2;
import org.apache.dubbo.remoting.RemotingException;
import org.apache.dubbo.remoting.exchange.Request;
import org.apache.dubbo.remoting.exchange.Response;
import org.apache.dubbo.remoting.exchange.support.DefaultFuture;
import org.apache.dubbo.remoting.transport.ExceedPayloadLimitException;
import org.apache.dubbo.rpc.AppResponse;
import org.apache.dubbo.rpc.RpcInvocation;
import org.apache.dubbo.rpc.model.FrameworkModel;
import org.apache.dubbo.rpc.protocol.dubbo.DubboCountCodec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Dubbo's real codec ({@code DubboCountCodec}, fastjson2) through the adapter's send path and decoder, over a
 * recording {@link Connection} that encodes on the calling thread into pooled buffers as the Netty connection does:
 * frames on the wire, payload failures at the caller, the status-25 replacement of an oversized response, and the
 * local failure response when a write fails. Every buffer is released (the leak gate checks).
 */
class DubboCodecThroughTransportTest {
    private static final int PAYLOAD = 1024;
    private static final URL URL = org.apache.dubbo.common.URL.valueOf(
            "dubbo://127.0.0.1:20880/test?serialization=fastjson2&codec=dubbo&payload=" + PAYLOAD);

    private final Codec2 dubbo = new DubboCountCodec(FrameworkModel.defaultModel());
    private final RecordingHandler handler = new RecordingHandler();
    private final DubboFrameCodec codec = new DubboFrameCodec(dubbo, PAYLOAD, c -> channelOf(c));
    private final RecordingConnection connection = new RecordingConnection();
    private final SluiceChannel channel = channelOf(connection);

    private SluiceChannel channelOf(Connection c) {
        return SluiceChannel.of(c, URL, handler, null);
    }

    @AfterEach
    void releaseFrames() {
        connection.frames.forEach(ByteBuf::release);
    }

    @Test
    void heartbeatIsEncodedOnTheCallerAndDecodedBack() throws Exception {
        Request heartbeat = new Request();
        heartbeat.setVersion(Version.getProtocolVersion());
        heartbeat.setTwoWay(true);
        heartbeat.setEvent(CommonConstants.HEARTBEAT_EVENT);
        channel.send(heartbeat, false);

        assertEquals(1, connection.frames.size());
        ByteBuf frame = connection.frames.get(0);
        // docs/wire-format.md §6.1: DA BB F7 00 <id> 00 00 00 05 00 00 00 01 AF
        assertEquals(21, frame.readableBytes());
        assertEquals((byte) 0xf7, frame.getByte(2));
        assertEquals(heartbeat.getId(), frame.getLong(4));
        assertEquals(5, frame.getInt(12));
        assertEquals(List.of(heartbeat), handler.sent, "sent() once the write completed");

        List<Object> out = new ArrayList<>();
        codec.newDecoder(connection).decode(frame, out);
        Request decoded = assertInstanceOf(Request.class, out.get(0));
        assertTrue(decoded.isHeartbeat() && decoded.isTwoWay());
        assertEquals(heartbeat.getId(), decoded.getId());
        assertEquals(0, frame.readableBytes());
    }

    @Test
    void oversizedRequestFailsAtTheCallerWithBothSizesAndNothingIsQueued() {
        Request big = new Request();
        big.setVersion(Version.getProtocolVersion());
        big.setTwoWay(true);
        big.setEvent("x".repeat(2 * PAYLOAD));
        RemotingException e = assertThrows(RemotingException.class, () -> channel.send(big, false));
        assertInstanceOf(ExceedPayloadLimitException.class, e.getCause());
        assertTrue(e.getMessage().contains("Data length too large")
                && e.getMessage().contains("max payload: " + PAYLOAD),
                e.getMessage());
        assertEquals(0, connection.frames.size());
        assertEquals(1, connection.releasedOnFailure, "the encode buffer was released");
    }

    @Test
    void oversizedResponseIsReplacedByASerializationErrorWithTheSameId() throws Exception {
        Response big = new Response(77, Version.getProtocolVersion());
        big.setResult(new AppResponse("y".repeat(2 * PAYLOAD)));
        channel.send(big, false);

        assertEquals(1, connection.frames.size(), "only the replacement was queued");
        assertEquals(1, connection.releasedOnFailure, "the emptied buffer of the original was released");
        ByteBuf frame = connection.frames.get(0);
        assertEquals(77, frame.getLong(4));
        assertEquals(Response.SERIALIZATION_ERROR, frame.getByte(3));

        List<Object> out = new ArrayList<>();
        codec.newDecoder(connection).decode(frame, out);
        Response decoded = assertInstanceOf(Response.class, out.get(0));
        assertEquals(Response.SERIALIZATION_ERROR, decoded.getStatus());
        assertTrue(decoded.getErrorMessage().contains("Data length too large"), decoded.getErrorMessage());
    }

    @Test
    void failedWriteOfATwoWayRequestIsAnsweredLocally() throws Exception {
        connection.failWrites = true;
        Request request = new Request();
        request.setVersion(Version.getProtocolVersion());
        request.setTwoWay(true);
        request.setEvent("R"); // an event: no answer expected
        channel.send(request, false);
        assertEquals(0, handler.received.size());

        Request call = new Request();
        call.setVersion(Version.getProtocolVersion());
        call.setTwoWay(true);
        call.setData(invocation());
        channel.send(call, false);
        Response answer = assertInstanceOf(Response.class, handler.received.get(0));
        assertEquals(call.getId(), answer.getId());
        assertEquals(Response.BAD_REQUEST, answer.getStatus());
        assertTrue(answer.getErrorMessage().contains("not written"), answer.getErrorMessage());
    }

    @Test
    void sentTrueSurfacesTheWriteFailure() {
        connection.failWrites = true;
        Request call = new Request();
        call.setVersion(Version.getProtocolVersion());
        call.setTwoWay(false);
        call.setData(invocation());
        RemotingException e = assertThrows(RemotingException.class, () -> channel.send(call, true));
        assertInstanceOf(ConnectionClosedException.class, e.getCause());
        assertTrue(e.getMessage().contains("not written"), e.getMessage());
    }

    // Issue 12 item 2 through the Dubbo adapter: a send(sent=true) that times out while its message is still queued
    // takes it back, so "never written" is true; the queue then finds it withdrawn and releases it unwritten.
    @Test
    void aWaitForTheWriteThatTimesOutWhileQueuedWithdrawsTheMessage() {
        RecordingConnection held = new RecordingConnection();
        held.holdWrites = true; // as a write queue behind a peer that does not read
        SluiceChannel slow = SluiceChannel.of(held, URL.addParameter("timeout", 100), handler, null);
        Request call = new Request();
        call.setVersion(Version.getProtocolVersion());
        call.setTwoWay(false);
        call.setData(invocation());
        try {
            RemotingException e = assertThrows(RemotingException.class, () -> slow.send(call, true));
            assertTrue(e.getMessage().contains("withdrawn, never written"), e.getMessage());
            assertEquals(1, held.held.size());
            WriteListener queued = held.held.get(0);
            assertFalse(queued.beforeWrite(), "the drain finds the message withdrawn and does not write it");
            assertEquals(List.of(), handler.sent, "never reported as sent");
        } finally {
            held.frames.forEach(ByteBuf::release); // what the write queue does with a withdrawn frame
        }
    }

    // ... and once the queue has taken it, the timeout cannot say "not written".
    @Test
    void aWaitForTheWriteThatTimesOutAfterTheQueueTookTheMessageSaysItMayHaveBeenReceived() {
        RecordingConnection held = new RecordingConnection();
        held.holdWrites = true;
        held.takeHeld = true; // the drain has handed it to the socket, which has not taken it all
        SluiceChannel slow = SluiceChannel.of(held, URL.addParameter("timeout", 100), handler, null);
        Request call = new Request();
        call.setVersion(Version.getProtocolVersion());
        call.setTwoWay(false);
        call.setData(invocation());
        try {
            RemotingException e = assertThrows(RemotingException.class, () -> slow.send(call, true));
            assertTrue(e.getMessage().contains("the peer may have received it"), e.getMessage());
        } finally {
            held.frames.forEach(ByteBuf::release);
        }
    }

    // A write that fails after the message was handed to the socket: the local answer must not say "not written".
    @Test
    void aWriteThatFailsAfterHandOffIsAnsweredLocallyAsMaybeReceived() throws Exception {
        connection.failAfterHandOff = true;
        Request call = new Request();
        call.setVersion(Version.getProtocolVersion());
        call.setTwoWay(true);
        call.setData(invocation());
        // A caller waits for it, as with Dubbo's HeaderExchangeChannel; without one the drain withdraws it (D24a).
        DefaultFuture waiting = DefaultFuture.newFuture(channel, call, 10_000, null);
        try {
            channel.send(call, false);
        } finally {
            waiting.cancel();
        }
        Response answer = assertInstanceOf(Response.class, handler.received.get(0));
        assertEquals(call.getId(), answer.getId());
        assertFalse(answer.getErrorMessage().contains("not written"), answer.getErrorMessage());
        assertTrue(answer.getErrorMessage().contains("may have received it"), answer.getErrorMessage());
    }

    // docs/performance/journal/dubbo-path-profile.md: with a fixed 256-byte first buffer almost every frame was
    // reallocated while Dubbo's codec wrote it. Failed before EncodedSizeHint: every one of the three frames grew its
    // buffer.
    @Test
    void framesOfASizeSeenBeforeFitTheirFirstBuffer() throws Exception {
        for (int i = 0; i < 3; i++) {
            Response r = new Response(100 + i, Version.getProtocolVersion());
            r.setResult(new AppResponse("z".repeat(700)));
            channel.send(r, false);
        }
        for (int i = 0; i < 3; i++) {
            Request call = new Request();
            call.setVersion(Version.getProtocolVersion());
            call.setTwoWay(true);
            RpcInvocation inv = invocation();
            inv.setAttachment("padding", "p".repeat(300));
            call.setData(inv);
            channel.send(call, false);
        }
        assertEquals(6, connection.frames.size());
        assertTrue(connection.frames.get(0).readableBytes() > 700, "a response larger than the first guess");
        assertTrue(connection.frames.get(3).readableBytes() > 300, "a request larger than the first guess");
        assertEquals(List.of(true, false, false, true, false, false), connection.grown,
                "only the first frame of each kind outgrew the buffer allocated for it");
    }

    @Test
    void oneDubboChannelPerConnection() {
        assertSame(channel, channelOf(connection));
        assertSame(channel, SluiceChannel.existing(connection));
        assertTrue(channel.isConnected());
        channel.setAttribute("k", "v");
        assertEquals("v", channel.getAttribute("k"));
        channel.close();
        assertTrue(connection.closed);
        assertEquals(null, channel.getAttribute("k"));
        assertThrows(RemotingException.class, () -> channel.send(new Request(), false));
    }

    private static RpcInvocation invocation() {
        RpcInvocation inv = new RpcInvocation("echo", "test", "test", new Class<?>[] {String.class},
                new Object[] {"hi"});
        inv.setAttachment("path", "test");
        return inv;
    }

    /** Encodes on the calling thread into a pooled buffer, like NettyConnection, and records the frames. */
    private final class RecordingConnection implements Connection {
        final List<ByteBuf> frames = new ArrayList<>();
        final Map<String, Object> attributes = new ConcurrentHashMap<>();
        final FrameEncoder encoder = codec.encoder();
        int releasedOnFailure;
        boolean failWrites;
        /** Keep the frame and its listener, as a queue that has not drained yet (the test drains). */
        boolean holdWrites;
        /** With {@link #holdWrites}: the drain has taken the frame (beforeWrite) but its write has not completed. */
        boolean takeHeld;
        /** Report the write as failed after hand-off (part of it may have left). */
        boolean failAfterHandOff;
        final List<WriteListener> held = new ArrayList<>();
        /** Per frame encoded: whether the codec had to grow the buffer allocated for it. */
        final List<Boolean> grown = new ArrayList<>();
        boolean closed;

        @Override
        public void send(Object message, WriteListener listener) {
            ByteBuf buf = PooledByteBufAllocator.DEFAULT.ioBuffer(encoder.sizeHint(message));
            int capacity = buf.capacity();
            try {
                encoder.encode(message, buf);
                grown.add(buf.capacity() > capacity);
            } catch (RuntimeException e) {
                buf.release();
                releasedOnFailure++;
                throw e;
            }
            if (failWrites) {
                buf.release();
                listener.onWriteFailed(new ConnectionClosedException("test: connection lost"));
                return;
            }
            if (holdWrites) {
                frames.add(buf);
                held.add(listener);
                if (takeHeld) {
                    assertTrue(listener.beforeWrite());
                }
                return;
            }
            if (failAfterHandOff) {
                assertTrue(listener.beforeWrite());
                buf.release();
                listener.onWriteOutcomeUnknown(new java.io.IOException("test: connection reset mid-write"));
                return;
            }
            frames.add(buf);
            listener.onWritten();
        }

        @Override
        public boolean isActive() {
            return !closed;
        }

        @Override
        public long pendingBytes() {
            return 0;
        }

        @Override
        public InetSocketAddress remoteAddress() {
            return new InetSocketAddress("127.0.0.1", 20880);
        }

        @Override
        public InetSocketAddress localAddress() {
            return new InetSocketAddress("127.0.0.1", 40000);
        }

        @Override
        public Object attribute(String key) {
            return attributes.get(key);
        }

        @Override
        public Object attribute(String key, Object value) {
            return value == null ? attributes.remove(key) : attributes.put(key, value);
        }

        @Override
        public CompletableFuture<Void> close() {
            closed = true;
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public CompletableFuture<Void> closeFuture() {
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public boolean inEventLoop() {
            return false; // a test thread, never an event loop
        }

        @Override
        public java.util.concurrent.Executor executor() {
            return Runnable::run;
        }
    }

    /** The endpoint's view: records sent and received messages. */
    private static final class RecordingHandler implements ChannelHandler {
        final List<Object> sent = new ArrayList<>();
        final List<Object> received = new ArrayList<>();

        @Override
        public void connected(Channel channel) {
        }

        @Override
        public void disconnected(Channel channel) {
        }

        @Override
        public void sent(Channel channel, Object message) {
            sent.add(message);
        }

        @Override
        public void received(Channel channel, Object message) {
            received.add(message);
        }

        @Override
        public void caught(Channel channel, Throwable exception) {
        }
    }
}
