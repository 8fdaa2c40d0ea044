package dev.sluice.transport;

/**
 * A frame is larger than the configured payload limit. Thrown on the caller's thread before anything is
 * queued when encoding, and reported for inbound frames from their header, before any body byte is buffered.
 */
public class FrameTooLargeException extends SluiceException {
    private static final long serialVersionUID = 1L;
    private final long size;
    private final long limit;

    public FrameTooLargeException(long size, long limit, String what) {
        super(what + " of " + size + " bytes exceeds the payload limit of " + limit
                + " bytes; raise the payload limit on both peers or send less data per call");
        this.size = size;
        this.limit = limit;
        dev.sluice.transport.jfr.FrameRejectedEvent event = new dev.sluice.transport.jfr.FrameRejectedEvent();
        if (event.shouldCommit()) {
            event.size = size;
            event.limit = limit;
            event.what = what;
            event.commit();
        }
    }

    public long size() {
        return size;
    }

    public long limit() {
        return limit;
    }
}
