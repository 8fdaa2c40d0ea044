package dev.sluice.codec.dubbo;

import java.util.Arrays;

/**
 * Classes by a 64-bit type-name hash, read without boxing the key: fastjson2 asks {@link ClassAllowlist} for the
 * class of every typed value it reads by hash (each element of a list of beans), and a {@code Map<Long, Class>} would
 * allocate a {@code Long} per lookup. Few entries (the accepted names), written rarely, read on every typed value.
 *
 * <p><b>Threads:</b> any. Reads are lock-free over an immutable snapshot (sorted keys, binary search); writes copy it
 * under a lock.
 */
final class LongClassMap {
    private static final class Snapshot {
        final long[] keys;
        final Class<?>[] values;

        Snapshot(long[] keys, Class<?>[] values) {
            this.keys = keys;
            this.values = values;
        }
    }

    private volatile Snapshot snapshot = new Snapshot(new long[0], new Class<?>[0]);

    /** The class stored under {@code key}, or {@code null}. */
    Class<?> get(long key) {
        Snapshot s = snapshot;
        int i = Arrays.binarySearch(s.keys, key);
        return i >= 0 ? s.values[i] : null;
    }

    /** Stores {@code value} under {@code key}, replacing what was there. */
    synchronized void put(long key, Class<?> value) {
        store(key, value, true);
    }

    /** Stores {@code value} under {@code key} unless something is stored there already. */
    synchronized void putIfAbsent(long key, Class<?> value) {
        store(key, value, false);
    }

    private void store(long key, Class<?> value, boolean replace) {
        Snapshot s = snapshot;
        int i = Arrays.binarySearch(s.keys, key);
        if (i >= 0) {
            if (replace && s.values[i] != value) {
                Class<?>[] values = s.values.clone();
                values[i] = value;
                snapshot = new Snapshot(s.keys, values);
            }
            return;
        }
        int at = -i - 1;
        int n = s.keys.length;
        long[] keys = new long[n + 1];
        Class<?>[] values = new Class<?>[n + 1];
        System.arraycopy(s.keys, 0, keys, 0, at);
        System.arraycopy(s.values, 0, values, 0, at);
        keys[at] = key;
        values[at] = value;
        System.arraycopy(s.keys, at, keys, at + 1, n - at);
        System.arraycopy(s.values, at, values, at + 1, n - at);
        snapshot = new Snapshot(keys, values);
    }
}
