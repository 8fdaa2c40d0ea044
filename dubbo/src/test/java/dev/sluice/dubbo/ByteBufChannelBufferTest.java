package dev.sluice.dubbo;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import org.apache.dubbo.remoting.buffer.ChannelBuffer;
import org.apache.dubbo.remoting.buffer.ChannelBufferInputStream;
import org.apache.dubbo.remoting.buffer.ChannelBufferOutputStream;
import org.apache.dubbo.remoting.buffer.ChannelBuffers;
import org.junit.jupiter.api.Test;

/** The ChannelBuffer view shares bytes and indices with its ByteBuf and never takes ownership of it. */
class ByteBufChannelBufferTest {
    private static final byte[] HELLO = "hello, dubbo".getBytes(StandardCharsets.UTF_8);

    @Test
    void writesAndIndicesAreTheByteBufs() {
        ByteBuf buf = PooledByteBufAllocator.DEFAULT.directBuffer(8);
        try {
            ByteBufChannelBuffer view = new ByteBufChannelBuffer(buf);
            view.writeByte(1);
            view.writeBytes(HELLO);
            assertEquals(1 + HELLO.length, buf.writerIndex());
            assertEquals(buf.readableBytes(), view.readableBytes());
            assertEquals(1, buf.getByte(0));
            assertEquals(1, view.readByte());
            assertEquals(1, buf.readerIndex());
            byte[] out = new byte[HELLO.length];
            view.readBytes(out);
            assertArrayEquals(HELLO, out);
            assertFalse(view.readable());
            assertTrue(view.isDirect());
        } finally {
            buf.release();
        }
    }

    /** ExchangeCodec reserves the header by moving the writer index past the end, then writes the body. */
    @Test
    void writerIndexBeyondCapacityGrowsTheBuffer() {
        ByteBuf buf = PooledByteBufAllocator.DEFAULT.buffer(4, 1 << 20);
        try {
            ByteBufChannelBuffer view = new ByteBufChannelBuffer(buf);
            view.writeBytes(new byte[] {9, 9, 9, 9});
            int saved = view.writerIndex();
            view.writerIndex(saved + 16); // capacity was 4
            view.writeBytes(HELLO);
            view.writerIndex(saved);
            view.writeBytes(new byte[16]);
            view.writerIndex(saved + 16 + HELLO.length);
            assertEquals(4 + 16 + HELLO.length, buf.readableBytes());
            assertEquals('h', buf.getByte(20));
        } finally {
            buf.release();
        }
    }

    @Test
    void dubboStreamsReadAndWriteThroughTheView() throws Exception {
        ByteBuf buf = PooledByteBufAllocator.DEFAULT.buffer();
        try {
            ByteBufChannelBuffer view = new ByteBufChannelBuffer(buf);
            try (ChannelBufferOutputStream out = new ChannelBufferOutputStream(view)) {
                out.write(HELLO);
                assertEquals(HELLO.length, out.writtenBytes());
            }
            ChannelBufferInputStream in = new ChannelBufferInputStream(view, 5);
            byte[] five = in.readAllBytes();
            assertArrayEquals("hello".getBytes(StandardCharsets.UTF_8), five);
            assertEquals(5, buf.readerIndex());
            ByteArrayOutputStream sink = new ByteArrayOutputStream();
            view.readBytes(sink, 2);
            assertEquals(", ", sink.toString(StandardCharsets.UTF_8));
            int read = view.writeBytes(new ByteArrayInputStream(new byte[] {7, 8}), 2);
            assertEquals(2, read);
            assertEquals(8, buf.getByte(buf.writerIndex() - 1));
        } finally {
            buf.release();
        }
    }

    @Test
    void copiesAreHeapBuffersAndTheViewNeverReleases() {
        ByteBuf buf = PooledByteBufAllocator.DEFAULT.directBuffer();
        try {
            ByteBufChannelBuffer view = new ByteBufChannelBuffer(buf);
            view.writeBytes(HELLO);
            ChannelBuffer copy = view.copy();
            assertFalse(copy instanceof ByteBufChannelBuffer);
            assertEquals(HELLO.length, copy.readableBytes());
            assertEquals(view, copy);
            assertEquals(0, view.compareTo(copy));
            assertEquals(copy.hashCode(), view.hashCode());
            ChannelBuffer first = view.readBytes(5);
            assertEquals(5, buf.readerIndex());
            assertEquals(ChannelBuffers.wrappedBuffer("hello".getBytes(StandardCharsets.UTF_8)), first);
            view.release();
            assertEquals(1, buf.refCnt());
        } finally {
            buf.release();
        }
    }

    @Test
    void transfersBetweenViewsAndHeapBuffers() {
        ByteBuf a = PooledByteBufAllocator.DEFAULT.buffer();
        ByteBuf b = PooledByteBufAllocator.DEFAULT.directBuffer();
        try {
            ByteBufChannelBuffer va = new ByteBufChannelBuffer(a);
            ByteBufChannelBuffer vb = new ByteBufChannelBuffer(b);
            va.writeBytes(HELLO);
            vb.writeBytes(va, 5); // view -> view
            assertEquals(5, va.readerIndex());
            assertEquals(5, vb.writerIndex());
            ChannelBuffer heap = ChannelBuffers.buffer(32);
            va.readBytes(heap, 7); // view -> heap
            assertEquals(7, heap.readableBytes());
            vb.writeBytes(heap); // heap -> view
            assertEquals(HELLO.length, vb.readableBytes());
            byte[] all = new byte[HELLO.length];
            vb.getBytes(0, all);
            assertArrayEquals(HELLO, all);
            assertSame(b, vb.byteBuf());
            assertNotSame(va.byteBuf(), vb.byteBuf());
        } finally {
            a.release();
            b.release();
        }
    }
}
