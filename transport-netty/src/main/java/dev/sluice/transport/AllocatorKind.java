package dev.sluice.transport;

/** The Netty buffer allocator a transport uses for frames it encodes and reads. */
public enum AllocatorKind {
    /** {@code PooledByteBufAllocator.DEFAULT}: thread-local caches, predictable under steady load. */
    POOLED,
    /** Netty 4.2's adaptive allocator: sizes chunks from observed usage. */
    ADAPTIVE
}
