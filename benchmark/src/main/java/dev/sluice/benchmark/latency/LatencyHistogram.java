package dev.sluice.benchmark.latency;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * A fixed-size log-linear histogram of durations in nanoseconds: exact below 128 ns, then 64 buckets per power of
 * two (each bucket at most 1/64 = 1.6 % wide), up to 2^40 ns (about 18 minutes; longer values land in the last
 * bucket). Thread-safe: {@link #record} may be called from any thread; counts are atomic, so a reader sees every
 * record that happened before its read.
 */
public final class LatencyHistogram {

    private static final int EXACT = 128; // values below this have their own bucket
    private static final int SUB_BITS = 6; // 64 sub-buckets per power of two
    private static final int MIN_EXP = 7; // 2^7 = EXACT
    private static final int MAX_EXP = 40;
    static final int BUCKETS = EXACT + (MAX_EXP - MIN_EXP + 1) * (1 << SUB_BITS);

    private final AtomicLongArray counts = new AtomicLongArray(BUCKETS);

    /** Adds one duration; negative values count as 0. */
    public void record(long nanos) {
        counts.incrementAndGet(index(nanos));
    }

    /** Sets every count to 0. Records that race with it may be lost or kept; callers reset between iterations. */
    public void reset() {
        for (int i = 0; i < BUCKETS; i++) {
            counts.set(i, 0);
        }
    }

    /** Adds this histogram's counts to {@code into} (same layout, one slot per bucket). */
    void addTo(long[] into) {
        for (int i = 0; i < BUCKETS; i++) {
            long c = counts.get(i);
            if (c != 0) {
                into[i] += c;
            }
        }
    }

    static int index(long nanos) {
        if (nanos < EXACT) {
            return nanos < 0 ? 0 : (int) nanos;
        }
        int exp = 63 - Long.numberOfLeadingZeros(nanos);
        if (exp > MAX_EXP) {
            return BUCKETS - 1;
        }
        int sub = (int) (nanos >>> (exp - SUB_BITS)) & ((1 << SUB_BITS) - 1);
        return EXACT + (exp - MIN_EXP) * (1 << SUB_BITS) + sub;
    }

    /** The smallest value that lands in bucket {@code index}. */
    static long lowerBound(int index) {
        if (index < EXACT) {
            return index;
        }
        int exp = MIN_EXP + (index - EXACT) / (1 << SUB_BITS);
        int sub = (index - EXACT) % (1 << SUB_BITS);
        return (1L << exp) + ((long) sub << (exp - SUB_BITS));
    }

    /** The middle of bucket {@code index}: what a percentile that falls in it reports. */
    static double midpoint(int index) {
        if (index < EXACT) {
            return index;
        }
        long lo = lowerBound(index);
        long width = index == BUCKETS - 1 ? 0 : lowerBound(index + 1) - lo;
        return lo + width / 2.0;
    }

    /**
     * The {@code percentile} (0–100) of merged counts, in nanoseconds: the midpoint of the bucket holding the
     * value at rank ceil(p/100 × total), as "nearest rank" percentiles do; NaN when no value was recorded.
     */
    static double percentile(long[] merged, double percentile) {
        long total = 0;
        for (long c : merged) {
            total += c;
        }
        if (total == 0) {
            return Double.NaN;
        }
        // the small slack keeps 99.9 % of 1000 at rank 999 despite 0.999 * 1000 = 999.0000000000001
        long rank = Math.max(1, (long) Math.ceil(percentile / 100.0 * total - 1e-9));
        long seen = 0;
        for (int i = 0; i < merged.length; i++) {
            seen += merged[i];
            if (seen >= rank) {
                return midpoint(i);
            }
        }
        return midpoint(merged.length - 1);
    }
}
