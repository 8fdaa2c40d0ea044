package dev.sluice.transport.netty;

import io.netty.channel.Channel;

/**
 * A control action that travels through a {@link WriteQueue} so it keeps its place among the writes (close after
 * everything queued before it, for example). Runs on the channel's event loop.
 */
interface QueuedCommand {
    /** Runs the command; everything queued before it has already been written and flushed. */
    void run(Channel channel) throws Exception;

    /** The command will never run (the queue was failed); release what it holds and report {@code cause}. */
    void fail(Throwable cause);
}
