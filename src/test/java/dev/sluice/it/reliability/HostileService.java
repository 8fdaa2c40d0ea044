package dev.sluice.it.reliability;

/**
 * The service {@link HostilePeerTest} and {@link HostileScenario} export: one integral parameter, the slot a
 * number-text attack aims at ({@code $echo(Object)}, answered for every exported service, is the untyped one).
 */
public interface HostileService {
    /** {@code value * 2}. */
    long twice(long value);

    /** How many values came: a call whose decode is the work and whose answer is small. */
    int size(java.util.List<Object> values);

    /** The implementation. */
    final class Impl implements HostileService {
        @Override
        public long twice(long value) {
            return value * 2;
        }

        @Override
        public int size(java.util.List<Object> values) {
            return values.size();
        }
    }
}
