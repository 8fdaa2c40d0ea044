package dev.sluice.dubbo;

/**
 * Control signal, not an error: Dubbo's codec could not encode a {@code Response} (body above the {@code payload}
 * limit, or a serialization failure) and has already sent a short error response with the same id in its place
 * (status 25 or 50) through the channel. The encoder throws this so the transport releases the now empty buffer and
 * queues nothing; {@link SluiceChannel#send} swallows it. Stackless: it is thrown for a known, expected condition.
 * Thrown on the encoding caller's thread.
 */
final class ResponseReplacedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    ResponseReplacedException() {
        super("response replaced by an error response", null, false, false);
    }
}
