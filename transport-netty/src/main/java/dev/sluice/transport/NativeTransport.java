package dev.sluice.transport;

/** Which Netty I/O transport to run on. Unavailable native transports fall back to {@link #NIO}. */
public enum NativeTransport {
    /** epoll where available, else NIO. */
    AUTO,
    NIO,
    EPOLL,
    IO_URING
}
