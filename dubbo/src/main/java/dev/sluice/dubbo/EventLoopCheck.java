package dev.sluice.dubbo;

import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.EventExecutor;

/**
 * Whether the calling thread is one of a group's event loops, so blocking helpers can refuse to block it. Any thread.
 */
final class EventLoopCheck {
    private EventLoopCheck() {
    }

    static boolean inAny(EventLoopGroup group) {
        for (EventExecutor executor : group) {
            if (executor.inEventLoop()) {
                return true;
            }
        }
        return false;
    }
}
