package dev.sluice.it.reliability;

import io.netty.channel.IoEventLoop;
import io.netty.channel.epoll.EpollIoHandle;
import io.netty.channel.nio.NioIoHandle;
import io.netty.channel.uring.IoUringIoHandle;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.internal.ThreadExecutorMap;
import java.util.concurrent.atomic.AtomicInteger;

/** Large answers on demand, for the Dubbo adapter's reliability scenarios ({@link DubboAdapterScenario}). */
public interface BlobService {
    /** A string of {@code chars} ASCII characters: a large response for a small request. */
    String blob(int chars);

    /**
     * The I/O transport of the event loop this call runs on ({@code NIO}, {@code EPOLL}, {@code IO_URING}), or
     * {@code "not an event loop"}: with {@code dispatcher=direct} a provider runs its calls on its I/O thread.
     */
    String ioTransport();

    /** The implementation; counts the calls it ran. */
    final class Impl implements BlobService {
        final AtomicInteger ran = new AtomicInteger();

        @Override
        public String blob(int chars) {
            ran.incrementAndGet();
            return "b".repeat(chars);
        }

        @Override
        public String ioTransport() {
            EventExecutor loop = ThreadExecutorMap.currentExecutor();
            if (!(loop instanceof IoEventLoop)) {
                return "not an event loop";
            }
            IoEventLoop io = (IoEventLoop) loop;
            if (io.isCompatible(EpollIoHandle.class)) {
                return "EPOLL";
            }
            if (io.isCompatible(IoUringIoHandle.class)) {
                return "IO_URING";
            }
            return io.isCompatible(NioIoHandle.class) ? "NIO" : loop.getClass().getName();
        }
    }
}
