package dev.sluice.transport;

/** Which idle timer fired on a connection. */
public enum IdleState {
    /** Nothing read for the read-idle period (a client sends a heartbeat). */
    READER_IDLE,
    /** Nothing written for the write-idle period. */
    WRITER_IDLE,
    /** Nothing read and nothing written for the all-idle period (a server closes the connection). */
    ALL_IDLE
}
