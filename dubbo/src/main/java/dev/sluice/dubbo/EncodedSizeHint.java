package dev.sluice.dubbo;

/**
 * The size of buffer to allocate for the next frame of one kind (requests, or responses), learnt from the frames
 * encoded before, so that Dubbo's codec fits the frame into the first buffer. With a fixed 256-byte guess almost
 * every frame outgrew it: a Dubbo request with its attachments is over 300 bytes, a list result several KiB, and
 * each outgrowing costs a second allocation from the pooled arena, a copy and a free, under the arena's lock,
 * since callers' threads have no pool thread cache (the profile that found it:
 * docs/performance/journal/dubbo-path-profile.md).
 *
 * <p>Grows at once to fit a larger frame (plus an eighth, rounded up to 64 bytes), and shrinks by a sixteenth per
 * smaller frame, so a few small frames between large ones do not undo the fit. Never below {@link #MIN} nor above
 * {@link #MAX}: a larger frame still grows its buffer as it is written, which costs little next to encoding that
 * much, and one rare large frame cannot make every queued small frame hold a large buffer.
 *
 * <p>Thread-safe: every encoding thread reads and updates it; a lost update only makes one guess less fitting.
 */
final class EncodedSizeHint {
    static final int MIN = 256;
    static final int MAX = 64 * 1024;

    private volatile int hint = MIN;

    /** The capacity to allocate for the next frame. */
    int get() {
        return hint;
    }

    /** Learns from a frame of {@code size} bytes just encoded. */
    void record(int size) {
        int current = hint;
        int fit = fit(size);
        if (fit > current) {
            hint = fit;
        } else if (fit < current) {
            hint = Math.max(fit, current - (current >> 4));
        }
    }

    /** {@code size} plus an eighth, rounded up to 64 bytes, within [{@link #MIN}, {@link #MAX}]. */
    static int fit(int size) {
        long s = (long) size + (size >> 3);
        s = (s + 63) & ~63L;
        return (int) Math.max(MIN, Math.min(MAX, s));
    }
}
