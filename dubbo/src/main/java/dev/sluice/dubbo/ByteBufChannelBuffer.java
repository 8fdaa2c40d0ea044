package dev.sluice.dubbo;

import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.util.Objects;
import org.apache.dubbo.remoting.buffer.ChannelBuffer;
import org.apache.dubbo.remoting.buffer.ChannelBufferFactory;
import org.apache.dubbo.remoting.buffer.ChannelBuffers;
import org.apache.dubbo.remoting.buffer.HeapChannelBufferFactory;

/**
 * Dubbo's {@link ChannelBuffer} as a view of a Netty {@link ByteBuf}: same bytes, same reader and writer indices, no
 * copy. Dubbo's codec encodes straight into the pooled buffer that goes onto the write queue, and decodes straight
 * from the connection's cumulation buffer.
 *
 * <p>The view never owns the buffer: {@link #release()} does nothing, and whoever handed the buffer in releases it.
 * Methods that must return a new buffer ({@link #copy}, {@link #readBytes(int)}) return Dubbo heap buffers, which
 * are not reference counted, so nothing they return can leak.
 *
 * <p>Not thread-safe, like the buffer it wraps: used by one thread at a time (the encoding caller, or the event loop
 * while decoding).
 */
final class ByteBufChannelBuffer implements ChannelBuffer {
    private final ByteBuf buf;

    ByteBufChannelBuffer(ByteBuf buf) {
        this.buf = Objects.requireNonNull(buf, "buf");
    }

    /** The wrapped buffer. */
    ByteBuf byteBuf() {
        return buf;
    }

    @Override
    public int capacity() {
        return buf.capacity();
    }

    @Override
    public void clear() {
        buf.clear();
    }

    @Override
    public ChannelBuffer copy() {
        return copy(buf.readerIndex(), buf.readableBytes());
    }

    @Override
    public ChannelBuffer copy(int index, int length) {
        byte[] bytes = new byte[length];
        buf.getBytes(index, bytes);
        return ChannelBuffers.wrappedBuffer(bytes);
    }

    @Override
    public void discardReadBytes() {
        buf.discardReadBytes();
    }

    @Override
    public void ensureWritableBytes(int writableBytes) {
        buf.ensureWritable(writableBytes);
    }

    @Override
    public ChannelBufferFactory factory() {
        return HeapChannelBufferFactory.getInstance();
    }

    @Override
    public byte getByte(int index) {
        return buf.getByte(index);
    }

    @Override
    public void getBytes(int index, byte[] dst) {
        buf.getBytes(index, dst);
    }

    @Override
    public void getBytes(int index, byte[] dst, int dstIndex, int length) {
        buf.getBytes(index, dst, dstIndex, length);
    }

    @Override
    public void getBytes(int index, ByteBuffer dst) {
        buf.getBytes(index, dst);
    }

    @Override
    public void getBytes(int index, ChannelBuffer dst) {
        getBytes(index, dst, dst.writableBytes());
    }

    @Override
    public void getBytes(int index, ChannelBuffer dst, int length) {
        if (length > dst.writableBytes()) {
            throw new IndexOutOfBoundsException("need " + length + " writable bytes in dst, has "
                    + dst.writableBytes());
        }
        getBytes(index, dst, dst.writerIndex(), length);
        dst.writerIndex(dst.writerIndex() + length);
    }

    @Override
    public void getBytes(int index, ChannelBuffer dst, int dstIndex, int length) {
        if (dst instanceof ByteBufChannelBuffer) {
            buf.getBytes(index, ((ByteBufChannelBuffer) dst).buf, dstIndex, length);
        } else {
            byte[] bytes = new byte[length];
            buf.getBytes(index, bytes);
            dst.setBytes(dstIndex, bytes, 0, length);
        }
    }

    @Override
    public void getBytes(int index, OutputStream dst, int length) throws IOException {
        buf.getBytes(index, dst, length);
    }

    @Override
    public boolean isDirect() {
        return buf.isDirect();
    }

    @Override
    public void markReaderIndex() {
        buf.markReaderIndex();
    }

    @Override
    public void markWriterIndex() {
        buf.markWriterIndex();
    }

    @Override
    public boolean readable() {
        return buf.isReadable();
    }

    @Override
    public int readableBytes() {
        return buf.readableBytes();
    }

    @Override
    public byte readByte() {
        return buf.readByte();
    }

    @Override
    public void readBytes(byte[] dst) {
        buf.readBytes(dst);
    }

    @Override
    public void readBytes(byte[] dst, int dstIndex, int length) {
        buf.readBytes(dst, dstIndex, length);
    }

    @Override
    public void readBytes(ByteBuffer dst) {
        buf.readBytes(dst);
    }

    @Override
    public void readBytes(ChannelBuffer dst) {
        readBytes(dst, dst.writableBytes());
    }

    @Override
    public void readBytes(ChannelBuffer dst, int length) {
        if (length > dst.writableBytes()) {
            throw new IndexOutOfBoundsException("need " + length + " writable bytes in dst, has "
                    + dst.writableBytes());
        }
        readBytes(dst, dst.writerIndex(), length);
        dst.writerIndex(dst.writerIndex() + length);
    }

    @Override
    public void readBytes(ChannelBuffer dst, int dstIndex, int length) {
        getBytes(buf.readerIndex(), dst, dstIndex, length);
        buf.skipBytes(length);
    }

    @Override
    public ChannelBuffer readBytes(int length) {
        ChannelBuffer copy = copy(buf.readerIndex(), length);
        buf.skipBytes(length);
        return copy;
    }

    @Override
    public void resetReaderIndex() {
        buf.resetReaderIndex();
    }

    @Override
    public void resetWriterIndex() {
        buf.resetWriterIndex();
    }

    @Override
    public int readerIndex() {
        return buf.readerIndex();
    }

    @Override
    public void readerIndex(int readerIndex) {
        buf.readerIndex(readerIndex);
    }

    @Override
    public void readBytes(OutputStream dst, int length) throws IOException {
        buf.readBytes(dst, length);
    }

    @Override
    public void setByte(int index, int value) {
        buf.setByte(index, value);
    }

    @Override
    public void setBytes(int index, byte[] src) {
        buf.setBytes(index, src);
    }

    @Override
    public void setBytes(int index, byte[] src, int srcIndex, int length) {
        buf.setBytes(index, src, srcIndex, length);
    }

    @Override
    public void setBytes(int index, ByteBuffer src) {
        buf.setBytes(index, src);
    }

    @Override
    public void setBytes(int index, ChannelBuffer src) {
        setBytes(index, src, src.readableBytes());
    }

    @Override
    public void setBytes(int index, ChannelBuffer src, int length) {
        if (length > src.readableBytes()) {
            throw new IndexOutOfBoundsException("need " + length + " readable bytes in src, has "
                    + src.readableBytes());
        }
        setBytes(index, src, src.readerIndex(), length);
        src.readerIndex(src.readerIndex() + length);
    }

    @Override
    public void setBytes(int index, ChannelBuffer src, int srcIndex, int length) {
        if (src instanceof ByteBufChannelBuffer) {
            buf.setBytes(index, ((ByteBufChannelBuffer) src).buf, srcIndex, length);
        } else {
            byte[] bytes = new byte[length];
            src.getBytes(srcIndex, bytes, 0, length);
            buf.setBytes(index, bytes);
        }
    }

    @Override
    public int setBytes(int index, InputStream src, int length) throws IOException {
        return buf.setBytes(index, src, length);
    }

    @Override
    public void setIndex(int readerIndex, int writerIndex) {
        buf.setIndex(readerIndex, writerIndex);
    }

    @Override
    public void skipBytes(int length) {
        buf.skipBytes(length);
    }

    @Override
    public ByteBuffer toByteBuffer() {
        return buf.nioBuffer();
    }

    @Override
    public ByteBuffer toByteBuffer(int index, int length) {
        return buf.nioBuffer(index, length);
    }

    @Override
    public boolean writable() {
        return buf.isWritable();
    }

    @Override
    public int writableBytes() {
        return buf.writableBytes();
    }

    @Override
    public void writeByte(int value) {
        buf.writeByte(value);
    }

    @Override
    public void writeBytes(byte[] src) {
        buf.writeBytes(src);
    }

    @Override
    public void writeBytes(byte[] src, int index, int length) {
        buf.writeBytes(src, index, length);
    }

    @Override
    public void writeBytes(ByteBuffer src) {
        buf.writeBytes(src);
    }

    @Override
    public void writeBytes(ChannelBuffer src) {
        writeBytes(src, src.readableBytes());
    }

    @Override
    public void writeBytes(ChannelBuffer src, int length) {
        if (length > src.readableBytes()) {
            throw new IndexOutOfBoundsException("need " + length + " readable bytes in src, has "
                    + src.readableBytes());
        }
        writeBytes(src, src.readerIndex(), length);
        src.readerIndex(src.readerIndex() + length);
    }

    @Override
    public void writeBytes(ChannelBuffer src, int srcIndex, int length) {
        buf.ensureWritable(length);
        setBytes(buf.writerIndex(), src, srcIndex, length);
        buf.writerIndex(buf.writerIndex() + length);
    }

    @Override
    public int writeBytes(InputStream src, int length) throws IOException {
        return buf.writeBytes(src, length);
    }

    @Override
    public int writerIndex() {
        return buf.writerIndex();
    }

    /**
     * Moves the writer index, growing the buffer first when the index lies beyond its capacity: Dubbo's codec
     * reserves the 16-byte header by jumping the writer index before writing the body, which a fixed-capacity
     * buffer would refuse once a previous frame filled it.
     */
    @Override
    public void writerIndex(int writerIndex) {
        if (writerIndex > buf.capacity()) {
            buf.ensureWritable(writerIndex - buf.writerIndex());
        }
        buf.writerIndex(writerIndex);
    }

    @Override
    public byte[] array() {
        return buf.array();
    }

    @Override
    public boolean hasArray() {
        return buf.hasArray();
    }

    @Override
    public int arrayOffset() {
        return buf.arrayOffset();
    }

    @Override
    public int compareTo(ChannelBuffer that) {
        return ChannelBuffers.compare(this, that);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ChannelBuffer && ChannelBuffers.equals(this, (ChannelBuffer) o);
    }

    @Override
    public int hashCode() {
        return ChannelBuffers.hasCode(this);
    }

    @Override
    public String toString() {
        return "ByteBufChannelBuffer(" + buf + ")";
    }
}
