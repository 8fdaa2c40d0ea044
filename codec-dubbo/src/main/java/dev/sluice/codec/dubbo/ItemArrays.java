package dev.sluice.codec.dubbo;

import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Reusable byte arrays for the copies the codec makes of a value's bytes: the padded copy fastjson2 reads, and the
 * bytes a deferred result keeps until its caller parses them (the largest allocation of a client's response decode
 * after the values themselves, e.g. 3.5 KB of a listUser page). Arrays come in power-of-two sizes from 512 bytes to
 * 64 KiB, a bounded number of each (about 1.5 MB in all at most); requests under 256 bytes or over 64 KiB get a fresh
 * array of their own size. An array is handed back with {@link #recycle} once nothing reads it any more; one that is
 * never handed back is simply collected, so losing one (a response nobody reads) costs nothing.
 *
 * <p><b>Threads:</b> any. Arrays are taken on event loops and handed back on the threads that parse them; each size
 * keeps its arrays in slots that a thread claims with one atomic swap.
 */
final class ItemArrays {
    private static final int MIN_SHIFT = 9;
    private static final int MAX_SHIFT = 16;
    private static final int MAX_SLOTS = 64;
    private static final int BYTES_PER_SIZE = 256 * 1024;

    @SuppressWarnings("unchecked")
    private static final AtomicReferenceArray<byte[]>[] POOLS = new AtomicReferenceArray[MAX_SHIFT - MIN_SHIFT + 1];

    static {
        for (int shift = MIN_SHIFT; shift <= MAX_SHIFT; shift++) {
            int slots = Math.min(MAX_SLOTS, Math.max(4, BYTES_PER_SIZE >> shift));
            POOLS[shift - MIN_SHIFT] = new AtomicReferenceArray<>(slots);
        }
    }

    private ItemArrays() {
    }

    /**
     * An array of at least {@code length} bytes; its content is unspecified (a reused array holds old bytes). Below
     * the smallest kept size, a fresh array of exactly {@code length}: a small copy is cheaper than a 512-byte array
     * that may never come back.
     */
    static byte[] take(int length) {
        int shift = shiftFor(length);
        if (shift > MAX_SHIFT || length < 1 << (MIN_SHIFT - 1)) {
            return new byte[length];
        }
        AtomicReferenceArray<byte[]> pool = POOLS[shift - MIN_SHIFT];
        int n = pool.length();
        int start = start(n);
        for (int k = 0; k < n; k++) {
            int i = (start + k) & (n - 1);
            if (pool.get(i) != null) {
                byte[] a = pool.getAndSet(i, null);
                if (a != null) {
                    return a;
                }
            }
        }
        return new byte[1 << shift];
    }

    /**
     * Hands {@code array} back for reuse. The caller must hold the only reference that will ever read it again: no
     * value, reader or other thread may still use it. Arrays of a size this class does not keep are dropped.
     */
    static void recycle(byte[] array) {
        int length = array.length;
        if (length < 1 << MIN_SHIFT || length > 1 << MAX_SHIFT || Integer.bitCount(length) != 1) {
            return;
        }
        AtomicReferenceArray<byte[]> pool = POOLS[Integer.numberOfTrailingZeros(length) - MIN_SHIFT];
        int n = pool.length();
        int start = start(n);
        for (int k = 0; k < n; k++) {
            int i = (start + k) & (n - 1);
            if (pool.get(i) == null && pool.compareAndSet(i, null, array)) {
                return;
            }
        }
    }

    /** How many arrays of the size that {@link #take}{@code (length)} uses are kept now (tests). */
    static int kept(int length) {
        int shift = shiftFor(length);
        if (shift > MAX_SHIFT) {
            return 0;
        }
        AtomicReferenceArray<byte[]> pool = POOLS[shift - MIN_SHIFT];
        int n = 0;
        for (int i = 0; i < pool.length(); i++) {
            n += pool.get(i) == null ? 0 : 1;
        }
        return n;
    }

    /** The power of two of the smallest kept size holding {@code length} bytes (or above MAX_SHIFT). */
    private static int shiftFor(int length) {
        if (length <= 1 << MIN_SHIFT) {
            return MIN_SHIFT;
        }
        return 32 - Integer.numberOfLeadingZeros(length - 1);
    }

    /** Threads start their scans at different slots, so concurrent takers rarely meet on one. */
    private static int start(int slots) {
        return (int) Thread.currentThread().getId() & (slots - 1);
    }
}
