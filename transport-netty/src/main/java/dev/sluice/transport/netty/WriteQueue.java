package dev.sluice.transport.netty;

import dev.sluice.transport.BatchWrite;
import dev.sluice.transport.ConnectionClosedException;
import dev.sluice.transport.PendingBytesExceededException;
import dev.sluice.transport.WriteListener;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.EventLoop;
import io.netty.util.IllegalReferenceCountException;
import io.netty.util.internal.PlatformDependent;
import java.util.Queue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The per-channel batching write queue: the heart of Sluice's write path.
 *
 * <p><b>Threads.</b> {@link #enqueue} and {@link #enqueueCommand} may be called from any thread: callers encode
 * on their own thread and hand over a finished frame. Everything else ({@code drain}, {@link #channelWritable},
 * {@link #channelClosed}) runs on the channel's event loop. Only one thread ever consumes the queue: the event
 * loop, or, once the loop has rejected the drain task, the producer that owns the {@code scheduled} flag.
 *
 * <p><b>Shape.</b> {@code enqueue} adds to an MPSC queue and, when it flips {@code scheduled} from false to true,
 * submits the one preallocated drain task to the event loop. A drain task takes at most {@code maxMessages}
 * messages or {@code maxBytes} bytes, writes them as ONE write (a {@link CompositeByteBuf} when there is more
 * than one) and flushes. That write's listener completes exactly the listeners of that batch, which it captured
 * in a local array: never a list shared across batches (Dubbo 3.3's {@code Netty4BatchWriteQueue} completes
 * later batches from an earlier batch's listener). After one chunk the task clears the flag and reschedules
 * itself if more is queued, so other channels on the same loop keep being served (apache/dubbo#15732).
 *
 * <p><b>Backpressure.</b> Pending bytes are counted on the caller's side; above the cap {@code enqueue} fails
 * fast with {@link PendingBytesExceededException}. The drain stops while the channel is unwritable and resumes
 * on the writability change, so memory is bounded by the cap plus Netty's high water mark plus one chunk.
 *
 * <p><b>Buffers.</b> The queue owns every buffer handed to {@code enqueue}, whatever happens: written (Netty
 * releases it), or released here when it fails.
 */
public final class WriteQueue {
    private static final Logger log = LoggerFactory.getLogger(WriteQueue.class);

    private final Channel channel;
    private final EventLoop loop;
    private final Queue<Item> queue = PlatformDependent.newMpscQueue();
    private final AtomicBoolean scheduled = new AtomicBoolean();
    private final AtomicLong pendingBytes = new AtomicLong();
    private final Runnable drainTask = this::drain;
    private final Runnable flushTask = this::flushWritten;
    /** Event loop only: a {@link #flushTask} is submitted and has not run yet. */
    private boolean flushScheduled;
    private final int maxMessages;
    private final int maxBytes;
    private final long pendingBytesCap;
    private final boolean gather;

    /** Set by {@link #enqueueClose}: no new messages are accepted, queued ones are still written. */
    private volatile boolean closing;
    /** Set once the channel is closed: everything queued fails with this cause. */
    private volatile Throwable closedCause;

    public WriteQueue(Channel channel, int maxMessages, int maxBytes, long pendingBytesCap, BatchWrite batchWrite) {
        this(channel, channel.eventLoop(), maxMessages, maxBytes, pendingBytesCap, batchWrite);
    }

    /** For tests: a queue whose drain runs on {@code loop} (which may reject it). */
    WriteQueue(Channel channel, EventLoop loop, int maxMessages, int maxBytes, long pendingBytesCap,
               BatchWrite batchWrite) {
        if (maxMessages < 1 || maxBytes < 1 || pendingBytesCap < 1) {
            throw new IllegalArgumentException("WriteQueue needs positive bounds, got " + maxMessages + " messages, "
                    + maxBytes + " bytes, cap " + pendingBytesCap);
        }
        this.channel = channel;
        this.loop = loop;
        this.maxMessages = maxMessages;
        this.maxBytes = maxBytes;
        this.pendingBytesCap = pendingBytesCap;
        this.gather = batchWrite == BatchWrite.GATHER;
    }

    /**
     * Queues one encoded frame. Takes ownership of {@code frame} on every path: when this method throws, the frame
     * has been released.
     *
     * @throws ConnectionClosedException when the connection is closed or closing
     * @throws PendingBytesExceededException when the pending-bytes cap would be exceeded
     */
    public void enqueue(ByteBuf frame, WriteListener listener) {
        int size = frame.readableBytes();
        if (closing || closedCause != null) {
            frame.release();
            throw closedException("not sent");
        }
        // Reserve with a CAS, not add-then-undo: with concurrent producers an undone add made other producers see
        // bytes that were never queued (refused although they fit, with a "pending" figure above the cap).
        for (;;) {
            long pending = pendingBytes.get();
            if (pending + size > pendingBytesCap) {
                frame.release();
                throw new PendingBytesExceededException(pending, size, pendingBytesCap);
            }
            if (pendingBytes.compareAndSet(pending, pending + size)) {
                break;
            }
        }
        if (loop.inEventLoop() && !scheduled.get() && queue.isEmpty() && closedCause == null) {
            // On the loop with nothing queued ahead of us: write directly, order is preserved. The flush waits for
            // the loop's next task round, after the I/O it is processing: every frame written while handling one
            // read (e.g. the answers to a batch of requests) leaves in one flush, one syscall, not one each.
            pendingBytes.addAndGet(-size);
            writeOne(frame, listener);
            scheduleFlush();
            return;
        }
        queue.offer(new Item(frame, size, listener, null));
        schedule();
    }

    /** Queues a control command behind everything queued so far. */
    void enqueueCommand(QueuedCommand command) {
        queue.offer(new Item(null, 0, null, command));
        schedule();
    }

    /**
     * Closes the channel once everything queued before this call is written; later {@link #enqueue} calls throw
     * {@link ConnectionClosedException}.
     */
    void enqueueClose() {
        closing = true;
        enqueueCommand(new QueuedCommand() {
            @Override
            public void run(Channel ch) {
                ch.close();
            }

            @Override
            public void fail(Throwable cause) {
                channel.close();
            }
        });
    }

    /** Bytes accepted and not yet handed to the channel. */
    public long pendingBytes() {
        return pendingBytes.get();
    }

    /** Event loop only: the channel became writable again; resume draining. */
    void channelWritable() {
        assert loop.inEventLoop();
        if (!queue.isEmpty()) {
            schedule();
        }
    }

    /** Event loop only: the channel closed. Fails and releases everything queued, and everything queued later. */
    void channelClosed(Throwable cause) {
        assert loop.inEventLoop();
        if (closedCause == null) {
            closedCause = cause;
        }
        failQueued(closedCause);
    }

    /** Event loop only: flushes what was written directly, once, after the I/O the loop is processing. */
    private void scheduleFlush() {
        if (flushScheduled) {
            return;
        }
        flushScheduled = true;
        try {
            loop.execute(flushTask);
        } catch (RejectedExecutionException e) {
            flushWritten(); // the loop is shutting down: flush now rather than never
        }
    }

    private void flushWritten() {
        flushScheduled = false;
        channel.flush();
    }

    private void schedule() {
        if (scheduled.compareAndSet(false, true)) {
            try {
                loop.execute(drainTask);
            } catch (RejectedExecutionException e) {
                // The loop is shutting down. We own the flag, so we are the only consumer: fail everything.
                ConnectionClosedException cause = new ConnectionClosedException(
                        "Not sent: the event loop of " + channel + " is shut down", false, e);
                if (closedCause == null) {
                    closedCause = cause;
                }
                try {
                    failQueued(cause);
                } finally {
                    scheduled.set(false);
                }
            }
        }
    }

    private void drain() {
        assert loop.inEventLoop();
        try {
            if (closedCause == null && !channel.isOpen()) {
                // Closed, but channelInactive has not reached us yet (it is fired later, e.g. on local and
                // epoll channels): latch the cause now so enqueue() refuses from here on, not only after it.
                closedCause = closedException("not sent");
            }
            if (closedCause != null || !channel.isActive()) {
                failQueued(closedCause != null ? closedCause : closedException("not sent"));
                return;
            }
            if (!channel.isWritable()) {
                return; // channelWritable() reschedules
            }
            drainOneChunk();
        } catch (Throwable t) {
            log.warn("Write queue drain failed on {}", channel, t);
        } finally {
            scheduled.set(false);
            if (!queue.isEmpty() && (closedCause != null || !channel.isActive() || channel.isWritable())) {
                schedule();
            }
        }
    }

    /** Writes one bounded chunk as one write and one flush. */
    private void drainOneChunk() {
        ByteBuf[] bufs = null;
        WriteListener[] listeners = null;
        int count = 0;
        long bytes = 0;
        boolean wroteAny = false;
        while (count < maxMessages && bytes < maxBytes) {
            Item item = queue.poll();
            if (item == null) {
                break;
            }
            if (item.command != null) {
                // Keep order: write what we have first, then run the command.
                if (count > 0) {
                    writeBatch(bufs, listeners, count);
                    wroteAny = true;
                    count = 0;
                    bufs = null;
                    listeners = null;
                }
                if (wroteAny || flushScheduled) {
                    channel.flush(); // a command (close) must not overtake writes that are not flushed yet
                    wroteAny = false;
                }
                runCommand(item.command);
                continue;
            }
            pendingBytes.addAndGet(-item.size);
            ByteBuf buf = item.frame;
            if (buf.refCnt() == 0) {
                // Released behind our back: fail only this message, the rest of the batch goes on.
                notifyFailed(item.listener, new IllegalReferenceCountException(
                        "Not sent: the frame was released before it was written"));
                continue;
            }
            if (bufs == null) {
                int cap = Math.min(maxMessages, Math.max(4, queue.size() + 1));
                bufs = new ByteBuf[cap];
                listeners = new WriteListener[cap];
            } else if (count == bufs.length) {
                int cap = Math.min(maxMessages, bufs.length * 2);
                bufs = java.util.Arrays.copyOf(bufs, cap);
                listeners = java.util.Arrays.copyOf(listeners, cap);
            }
            bufs[count] = buf;
            listeners[count] = item.listener;
            count++;
            bytes += item.size;
        }
        if (count > 0) {
            writeBatch(bufs, listeners, count);
            wroteAny = true;
        }
        if (wroteAny) {
            channel.flush();
        }
    }

    private void writeBatch(ByteBuf[] bufs, WriteListener[] listeners, int count) {
        if (count == 1 || gather) {
            for (int i = 0; i < count; i++) {
                writeOne(bufs[i], listeners[i]);
            }
            return;
        }
        CompositeByteBuf batch = channel.alloc().compositeDirectBuffer(count);
        batch.addComponents(true, java.util.Arrays.asList(bufs).subList(0, count));
        ChannelFuture f = channel.write(batch);
        f.addListener(new BatchCompletion(listeners, count));
    }

    private void writeOne(ByteBuf frame, WriteListener listener) {
        if (listener == null || listener == WriteListener.NONE) {
            channel.write(frame, channel.voidPromise());
        } else {
            channel.write(frame).addListener(new BatchCompletion(new WriteListener[] {listener}, 1));
        }
    }

    private void runCommand(QueuedCommand command) {
        try {
            command.run(channel);
        } catch (Throwable t) {
            log.debug("Queued command failed on {}", channel, t);
            command.fail(t);
        }
    }

    /** Fails and releases everything queued. Only the single consumer (see class javadoc) may call this. */
    private void failQueued(Throwable cause) {
        for (Item item; (item = queue.poll()) != null; ) {
            if (item.command != null) {
                item.command.fail(cause);
                continue;
            }
            pendingBytes.addAndGet(-item.size);
            item.frame.release();
            notifyFailed(item.listener, cause);
        }
    }

    private ConnectionClosedException closedException(String what) {
        return new ConnectionClosedException("Connection " + channel.remoteAddress() + " is closed: " + what
                + "; retry on another connection", false, closedCause);
    }

    private static void notifyFailed(WriteListener listener, Throwable cause) {
        if (listener == null) {
            return;
        }
        try {
            listener.onWriteFailed(cause);
        } catch (Throwable t) {
            log.warn("WriteListener.onWriteFailed threw", t);
        }
    }

    /** Completes exactly one batch's listeners, captured when the batch was written. */
    private static final class BatchCompletion implements ChannelFutureListener {
        private final WriteListener[] listeners;
        private final int count;

        BatchCompletion(WriteListener[] listeners, int count) {
            this.listeners = listeners;
            this.count = count;
        }

        @Override
        public void operationComplete(ChannelFuture future) {
            Throwable cause = future.cause();
            for (int i = 0; i < count; i++) {
                WriteListener l = listeners[i];
                if (l == null) {
                    continue;
                }
                try {
                    if (cause == null) {
                        l.onWritten();
                    } else {
                        l.onWriteFailed(cause);
                    }
                } catch (Throwable t) {
                    log.warn("WriteListener threw", t);
                }
            }
        }
    }

    private static final class Item {
        final ByteBuf frame;
        final int size;
        final WriteListener listener;
        final QueuedCommand command;

        Item(ByteBuf frame, int size, WriteListener listener, QueuedCommand command) {
            this.frame = frame;
            this.size = size;
            this.listener = listener;
            this.command = command;
        }
    }
}
