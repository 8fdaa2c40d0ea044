package dev.sluice.transport.netty;

import dev.sluice.transport.BatchWrite;
import dev.sluice.transport.ConnectionClosedException;
import dev.sluice.transport.PendingBytesExceededException;
import dev.sluice.transport.TransportObserver;
import dev.sluice.transport.WriteListener;
import dev.sluice.transport.internal.LogLimiter;
import dev.sluice.transport.jfr.PendingBytesExceededEvent;
import dev.sluice.transport.jfr.UnwritableEvent;
import dev.sluice.transport.jfr.WriteBatchEvent;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.EventLoop;
import io.netty.util.IllegalReferenceCountException;
import io.netty.util.internal.PlatformDependent;
import java.time.Duration;
import java.util.Queue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The per-channel batching write queue: the heart of Sluice's write path.
 *
 * <p><b>Threads.</b> {@link #enqueue}, {@link #enqueueCommand} and {@link #enqueueClose} may be called from any
 * thread: callers encode on their own thread and hand over a finished frame. Everything else ({@code drain},
 * {@link #channelWritable}, {@link #channelClosed}, the close and read-pause bookkeeping) runs on the channel's event
 * loop. Only one thread at a time ever consumes the queue: whoever holds the {@code scheduled} flag. That is the
 * drain task on the loop; or, once the loop has rejected the drain task, the producer whose {@code execute} was
 * rejected; or {@link #channelClosed}, which consumes only after taking the flag itself. Whoever clears the flag
 * looks at the queue again, so a frame offered while another thread held the flag is never stranded.
 *
 * <p><b>Shape.</b> {@code enqueue} adds to an MPSC queue and, when it flips {@code scheduled} from false to true,
 * submits the one preallocated drain task to the event loop. A drain task takes at most {@code maxMessages}
 * messages or {@code maxBytes} bytes, writes them as ONE write (a {@link CompositeByteBuf} when there is more
 * than one) and flushes. That write's listener completes exactly the listeners of that batch, which it captured
 * in a local array: never a list shared across batches (Dubbo 3.3's {@code Netty4BatchWriteQueue} completes
 * later batches from an earlier batch's listener). After one chunk the task clears the flag and reschedules
 * itself if more is queued, so other channels on the same loop keep being served (apache/dubbo#15732).
 *
 * <p><b>Sent or not.</b> Just before a frame is handed to the channel the drain asks its listener
 * ({@link WriteListener#beforeWrite}); a caller that gave up on the frame (a timeout) withdraws it there, and the
 * frame is released unwritten: "not sent" is then a guarantee. A frame that fails while still queued is reported
 * with {@link WriteListener#onWriteFailed} (never written); a write that fails after the frame was handed to the
 * channel is reported with {@link WriteListener#onWriteOutcomeUnknown}, since part of it may have left.
 *
 * <p><b>Backpressure.</b> Every outbound frame counts against the pending-bytes cap from {@code enqueue} until the
 * socket has taken it (the completion of its write gives it back), whichever thread wrote it and whichever way it went
 * (the on-loop fast path included). A frame is charged what it holds, not only its wire bytes: its buffer's capacity
 * plus {@link #FRAME_OVERHEAD} ({@link #charge}), so many tiny frames cannot hold many times the cap. Above the cap
 * {@code enqueue} fails fast with {@link PendingBytesExceededException} and a server's connection stops reading
 * ({@code autoRead} off) until its outbound side has drained to half the cap: a peer that sends requests but never
 * reads the answers cannot make us buffer without bound. This queue is then the one owner of {@code autoRead} it
 * expects: it pauses only a channel that is reading and resumes only what it paused. The drain stops while the channel
 * is unwritable and resumes on the writability change, and the on-loop fast path writes directly only while the channel
 * is writable, so the bytes held for a connection stay within the cap (plus Netty's bookkeeping per write).
 *
 * <p><b>Close.</b> {@link #enqueueClose} refuses new frames, and the queued close runs once everything queued
 * before it has been handed to the channel; it then closes the channel when the socket has taken all of it (Netty
 * would drop flushed-but-unwritten bytes on close). A close always happens: if that flush has not finished within
 * its bound (a peer that stopped reading), the channel is closed forcibly and what is left fails.
 *
 * <p><b>Observability.</b> Each drain chunk, and each round of frames the loop wrote directly, is one
 * {@link WriteBatchEvent} (JFR, disabled by default); a period of unwritability is one {@link UnwritableEvent}, a
 * refusal for the cap one {@link PendingBytesExceededEvent}. With the events disabled the cost is one enabled-check
 * per batch and per queued frame; enqueue times are taken only while {@code WriteBatch} events are enabled.
 *
 * <p><b>Buffers.</b> The queue owns every buffer handed to {@code enqueue}, whatever happens: written (Netty
 * releases it), or released here when it fails or is withdrawn.
 *
 * <p><b>One protocol.</b> Batching, the pending-bytes cap with its read pause, the graceful close and the
 * {@code scheduled} hand-off share the same few fields (the queue, the flag, the byte count): each part's
 * correctness argument above reads the others' state, and {@code enqueue} and the drain touch all of it.
 */
final class WriteQueue {
    private static final Logger log = LoggerFactory.getLogger(WriteQueue.class);
    /** A peer that stops reading buys one of these per connection it holds open (docs/reliability.md A9b). */
    private static final LogLimiter FORCED_CLOSES = new LogLimiter();

    /**
     * What one frame holds beyond its buffer's memory while it waits, charged to the cap with it: the buffer object
     * and its reference count, this queue's {@link Item} and its queue slot, the caller's listener, and once handed
     * to the channel Netty's outbound entry, the write's promise, and the completion with its listener array. A
     * bound on the heap of these objects while the frame is queued (how many can be in the channel at once is bounded
     * by its write-buffer high water mark, which counts Netty's entry), not a measurement: without it a peer
     * that provokes tiny answers and reads none (a two-way heartbeat is answered with a 16-byte frame) would make
     * the cap, counted in wire bytes, allow many times its size in heap.
     */
    static final int FRAME_OVERHEAD = 256;

    private final Channel channel;
    private final EventLoop loop;
    private final Queue<Item> queue;
    private final AtomicBoolean scheduled = new AtomicBoolean();
    /**
     * Bytes accepted and not yet written to the socket: still queued, or handed to the channel and not yet taken by
     * the socket (a write's completion, success or failure, gives them back). This is what the cap bounds.
     */
    private final AtomicLong pendingBytes = new AtomicLong();
    private final Runnable drainTask = this::drain;
    private final Runnable flushTask = this::flushWritten;
    private final Runnable pauseTask = this::pauseReadingIfOverCap;
    private final Runnable resumeCheckTask = () -> {
        resumeCheckArmed = false;
        resumeReadingIfDrained();
    };
    /** Event loop only: a {@link #flushTask} is submitted and has not run yet. */
    private boolean flushScheduled;
    /** Event loop only: this queue turned {@code autoRead} off because the outbound side went over the cap. */
    private boolean readingPaused;
    /** Event loop only: an empty write is in the channel to re-check {@link #readingPaused} once it is written. */
    private boolean resumeCheckArmed;
    /** A producer refused for the cap asked the loop to pause reading; the task has not run yet. */
    private final AtomicBoolean pauseRequested = new AtomicBoolean();
    private final AtomicBoolean closeQueued = new AtomicBoolean();
    private final int maxMessages;
    private final int maxBytes;
    private final long pendingBytesCap;
    private final boolean gather;
    /**
     * Whether going over the cap pauses reading: true where the outbound bytes answer the peer's requests (a
     * server's connection), so that not reading stops the peer from asking for more. A client's outbound bytes are
     * its own requests: reading the answers does not add to them, and pausing would only leave answered calls
     * waiting for their timeouts (and a healthy server taken for a stalled one).
     */
    private final boolean pauseReadingOverCap;

    /** Event loop only: frames written directly since the last flush of them, and their bytes (for events). */
    private int directMessages;
    private long directBytes;
    /** Event loop only: the open unwritable period's event, when that event is enabled. */
    private UnwritableEvent unwritable;
    /** Event loop only: when the channel went unwritable, while an observer is set; 0 when writable. */
    private long unwritableSince;
    /** Receives counts for metrics; {@code null} (no calls at all) when none is set. Set before first use. */
    private TransportObserver observer;

    /** Set by {@link #enqueueClose}: no new messages are accepted, queued ones are still written. */
    private volatile boolean closing;
    /** Set once the channel is closed: everything queued fails with this cause. */
    private volatile Throwable closedCause;

    /** {@code pauseReadingOverCap} is false for a client's connection (see {@link #pauseReadingOverCap}). */
    WriteQueue(Channel channel, int maxMessages, int maxBytes, long pendingBytesCap, BatchWrite batchWrite,
               boolean pauseReadingOverCap) {
        this(channel, channel.eventLoop(), maxMessages, maxBytes, pendingBytesCap, batchWrite,
                PlatformDependent.newMpscQueue(), pauseReadingOverCap);
    }

    /** For tests: a queue whose drain runs on {@code loop} (which may reject it). */
    WriteQueue(Channel channel, EventLoop loop, int maxMessages, int maxBytes, long pendingBytesCap,
               BatchWrite batchWrite) {
        this(channel, loop, maxMessages, maxBytes, pendingBytesCap, batchWrite, PlatformDependent.newMpscQueue());
    }

    /** For tests: as above, over {@code queue} (any queue safe for many producers and one consumer). */
    WriteQueue(Channel channel, EventLoop loop, int maxMessages, int maxBytes, long pendingBytesCap,
               BatchWrite batchWrite, Queue<Item> queue) {
        this(channel, loop, maxMessages, maxBytes, pendingBytesCap, batchWrite, queue, true);
    }

    private WriteQueue(Channel channel, EventLoop loop, int maxMessages, int maxBytes, long pendingBytesCap,
                       BatchWrite batchWrite, Queue<Item> queue, boolean pauseReadingOverCap) {
        if (maxMessages < 1 || maxBytes < 1 || pendingBytesCap < 1) {
            throw new IllegalArgumentException("WriteQueue needs positive bounds, got " + maxMessages + " messages, "
                    + maxBytes + " bytes, cap " + pendingBytesCap);
        }
        this.channel = channel;
        this.loop = loop;
        this.queue = queue;
        this.maxMessages = maxMessages;
        this.maxBytes = maxBytes;
        this.pendingBytesCap = pendingBytesCap;
        this.gather = batchWrite == BatchWrite.GATHER;
        this.pauseReadingOverCap = pauseReadingOverCap;
    }

    /**
     * Queues one encoded frame. Takes ownership of {@code frame} on every path: when this method throws, the frame
     * has been released.
     *
     * @throws ConnectionClosedException when the connection is closed or closing
     * @throws PendingBytesExceededException when the pending-bytes cap would be exceeded
     */
    void enqueue(ByteBuf frame, WriteListener listener) {
        int size = frame.readableBytes();
        long charge = charge(frame);
        if (closing || closedCause != null) {
            frame.release();
            throw closedException("not sent");
        }
        // Reserve with a CAS, not add-then-undo: with concurrent producers an undone add made other producers see
        // bytes that were never queued (refused although they fit, with a "pending" figure above the cap).
        for (;;) {
            long pending = pendingBytes.get();
            if (pending + charge > pendingBytesCap) {
                frame.release();
                if (observer != null) {
                    observer.pendingBytesExceeded();
                }
                PendingBytesExceededEvent event = new PendingBytesExceededEvent();
                if (event.shouldCommit()) {
                    event.frameBytes = charge;
                    event.pendingBytes = pending;
                    event.cap = pendingBytesCap;
                    event.channel = channel.toString();
                    event.commit();
                }
                requestReadPause();
                throw new PendingBytesExceededException(pending, (int) Math.min(Integer.MAX_VALUE, charge),
                        pendingBytesCap);
            }
            if (pendingBytes.compareAndSet(pending, pending + charge)) {
                break;
            }
        }
        if (loop.inEventLoop() && !scheduled.get() && queue.isEmpty() && closedCause == null
                && channel.isWritable()) {
            // On the loop with nothing queued ahead of us and room in the channel: write directly, order is
            // preserved. The flush waits for the loop's next task round, after the I/O it is processing: every frame
            // written while handling one read (e.g. the answers to a batch of requests) leaves in one flush, one
            // syscall, not one each. Unwritable: queue it like any other, the drain waits for writability.
            if (claim(listener)) {
                writeOne(frame, charge, listener);
                directMessages++;
                directBytes += size;
                scheduleFlush();
            } else {
                pendingBytes.addAndGet(-charge);
                frame.release();
            }
            return;
        }
        queue.offer(new Item(frame, size, charge, listener, null,
                observer != null || batchEventsEnabled() ? System.nanoTime() : 0L));
        schedule();
    }

    /** Whether {@link WriteBatchEvent}s are being recorded. The event object does not escape: JIT removes it. */
    private static boolean batchEventsEnabled() {
        return new WriteBatchEvent().isEnabled();
    }

    /** Queues a control command behind everything queued so far. */
    void enqueueCommand(QueuedCommand command) {
        queue.offer(new Item(null, 0, 0, null, command, 0L));
        schedule();
    }

    /**
     * Closes the channel once everything queued before this call is written to the socket, or forcibly when that
     * has not happened within {@code flushTimeout}; later {@link #enqueue} calls throw
     * {@link ConnectionClosedException}. A second call only adds its own bound.
     */
    void enqueueClose(Duration flushTimeout) {
        closing = true;
        armForcedClose(flushTimeout);
        if (closeQueued.compareAndSet(false, true)) {
            enqueueCommand(new GracefulClose());
        }
    }

    /** Sets who receives this queue's counts; call before the channel is used (its constructor's thread). */
    void observer(TransportObserver observer) {
        this.observer = observer;
    }

    /**
     * What a frame is charged against the cap while it waits: its buffer's capacity (the memory it holds, not only
     * the bytes it will write) plus {@link #FRAME_OVERHEAD}.
     */
    static long charge(ByteBuf frame) {
        return (long) Math.max(frame.capacity(), frame.readableBytes()) + FRAME_OVERHEAD;
    }

    /**
     * What the frames accepted and not yet written to the socket (still queued here, or in the channel waiting for
     * it) are charged ({@link #charge}).
     */
    long pendingBytes() {
        return pendingBytes.get();
    }

    /** For tests: messages and commands still in this queue (not yet handed to the channel). */
    int queuedItems() {
        return queue.size();
    }

    /** Event loop only: the channel became writable again; resume draining (and reading, if paused). */
    void channelWritable() {
        assert loop.inEventLoop();
        endUnwritable();
        resumeReadingIfDrained();
        if (!queue.isEmpty()) {
            schedule();
        }
    }

    /** Event loop only: the channel went over its high water mark; the drain waits for {@link #channelWritable}. */
    void channelUnwritable() {
        assert loop.inEventLoop();
        if (observer != null && unwritableSince == 0) {
            unwritableSince = System.nanoTime();
        }
        if (unwritable == null) {
            UnwritableEvent event = new UnwritableEvent();
            if (event.isEnabled()) {
                event.begin();
                unwritable = event;
            }
        }
    }

    /** Event loop only: ends the open unwritable period, if one is being recorded. */
    private void endUnwritable() {
        if (unwritableSince != 0) {
            observer.unwritable(System.nanoTime() - unwritableSince);
            unwritableSince = 0;
        }
        UnwritableEvent event = unwritable;
        if (event != null) {
            unwritable = null;
            event.end();
            if (event.shouldCommit()) {
                event.pendingBytes = pendingBytes.get();
                event.channel = channel.toString();
                event.commit();
            }
        }
    }

    /** Event loop only: the channel closed. Fails and releases everything queued, and everything queued later. */
    void channelClosed(Throwable cause) {
        assert loop.inEventLoop();
        endUnwritable();
        if (closedCause == null) {
            closedCause = cause;
        }
        // Consume only while holding the flag. Whoever else holds it (a drain task still to run on this loop, or a
        // producer whose drain was rejected while the loop shuts down) fails everything itself: closedCause is set.
        while (!queue.isEmpty() && scheduled.compareAndSet(false, true)) {
            try {
                failQueued(closedCause);
            } finally {
                scheduled.set(false);
            }
        }
    }

    /** Bytes (plus Netty's per-entry overhead) in the channel's outbound buffer, not yet written. Any thread. */
    private long unwrittenBytes() {
        ChannelOutboundBuffer out = channel.unsafe().outboundBuffer();
        return out == null ? 0 : out.totalPendingWriteBytes();
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
        int messages = directMessages;
        if (messages == 0) {
            channel.flush();
            return;
        }
        long bytes = directBytes;
        directMessages = 0;
        directBytes = 0;
        if (observer != null) {
            observer.batchWritten(messages, bytes, false);
        }
        WriteBatchEvent event = new WriteBatchEvent();
        if (!event.isEnabled()) {
            channel.flush();
            return;
        }
        event.begin();
        channel.flush();
        event.end();
        if (event.shouldCommit()) {
            event.messages = messages;
            event.bytes = bytes;
            event.direct = true;
            event.channel = channel.toString();
            event.commit();
        }
    }

    private void schedule() {
        while (scheduled.compareAndSet(false, true)) {
            try {
                loop.execute(drainTask);
                return;
            } catch (RejectedExecutionException e) {
                // The loop is shutting down. We own the flag, so we are the only consumer: fail everything.
                if (closedCause == null) {
                    closedCause = new ConnectionClosedException("Not sent: the event loop of " + channel
                            + " is shut down", false, e);
                }
                try {
                    failQueued(closedCause);
                } finally {
                    scheduled.set(false);
                }
                // A producer that offered while we held the flag left its frame to us: look again.
                if (queue.isEmpty()) {
                    return;
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
                return; // channelWritable() reschedules; a queued close has its own deadline
            }
            drainOneChunk();
            LoopSpin.answered();
        } catch (Throwable t) {
            log.warn("Write queue drain failed on {}", channel, t);
        } finally {
            scheduled.set(false);
            resumeReadingIfDrained();
            if (!queue.isEmpty() && (closedCause != null || !channel.isActive() || channel.isWritable())) {
                schedule();
            }
        }
    }

    /** Writes one bounded chunk as one write and one flush. */
    private void drainOneChunk() {
        // The chunk's frames: the first in a local, an array only from the second on (a chunk of one, the usual
        // drain of a lightly loaded connection, allocates nothing here).
        Item first = null;
        Item[] items = null;
        int count = 0;
        long bytes = 0;
        boolean wroteAny = false;
        WriteBatchEvent event = new WriteBatchEvent();
        boolean record = event.isEnabled();
        if (record) {
            event.begin();
        }
        int chunkMessages = 0;
        long oldestEnqueued = 0;
        long drainStart = observer != null ? System.nanoTime() : 0L;
        while (count < maxMessages && bytes < maxBytes) {
            Item item = queue.poll();
            if (item == null) {
                break;
            }
            if (item.command != null) {
                // Keep order: write what we have first, then run the command.
                if (count > 0) {
                    writeBatch(first, items, count);
                    wroteAny = true;
                    count = 0;
                    first = null;
                    items = null;
                }
                if (wroteAny || flushScheduled) {
                    channel.flush(); // a command (close) must not overtake writes that are not flushed yet
                    wroteAny = false;
                }
                runCommand(item.command);
                continue;
            }
            ByteBuf buf = item.frame;
            if (buf.refCnt() == 0) {
                // Released behind our back: fail only this message, the rest of the batch goes on.
                pendingBytes.addAndGet(-item.charge);
                notifyFailed(item.listener, new IllegalReferenceCountException(
                        "Not sent: the frame was released before it was written"));
                continue;
            }
            if (!claim(item.listener)) {
                pendingBytes.addAndGet(-item.charge);
                buf.release(); // withdrawn by its caller: never written
                continue;
            }
            if (count == 0) {
                first = item;
            } else {
                if (items == null) {
                    items = new Item[Math.min(maxMessages, Math.max(4, queue.size() + 2))];
                    items[0] = first;
                } else if (count == items.length) {
                    items = java.util.Arrays.copyOf(items, Math.min(maxMessages, items.length * 2));
                }
                items[count] = item;
            }
            if (chunkMessages++ == 0) {
                oldestEnqueued = item.enqueuedNanos;
            }
            if (observer != null && item.enqueuedNanos != 0) {
                long wait = drainStart - item.enqueuedNanos;
                if (wait < 0) { // offered after this drain started
                    drainStart = System.nanoTime();
                    wait = Math.max(0, drainStart - item.enqueuedNanos);
                }
                observer.queueWait(wait);
            }
            count++;
            bytes += item.size;
        }
        if (count > 0) {
            writeBatch(first, items, count);
            wroteAny = true;
        }
        // Counted before the flush: once flushed, the peer may answer (and a test or a dashboard read the meters)
        // before this task would have got to it.
        if (observer != null && chunkMessages > 0) {
            observer.batchWritten(chunkMessages, bytes,
                    (count >= maxMessages || bytes >= maxBytes) && !queue.isEmpty());
        }
        if (wroteAny) {
            channel.flush();
        }
        if (record && chunkMessages > 0) {
            event.end();
            if (event.shouldCommit()) {
                event.messages = chunkMessages;
                event.bytes = bytes;
                event.oldestWait = oldestEnqueued == 0 ? 0 : System.nanoTime() - oldestEnqueued;
                event.chunkBoundHit = (count >= maxMessages || bytes >= maxBytes) && !queue.isEmpty();
                event.channel = channel.toString();
                event.commit();
            }
        }
    }

    /** Writes a chunk's {@code count} frames: {@code first}, and when there are more, {@code items[0, count)}. */
    private void writeBatch(Item first, Item[] items, int count) {
        if (count == 1) {
            writeOne(first.frame, first.charge, first.listener);
            return;
        }
        if (gather) {
            for (int i = 0; i < count; i++) {
                writeOne(items[i].frame, items[i].charge, items[i].listener);
            }
            return;
        }
        ByteBuf[] bufs = new ByteBuf[count];
        WriteListener[] listeners = new WriteListener[count];
        long charged = 0;
        for (int i = 0; i < count; i++) {
            Item item = items[i];
            bufs[i] = item.frame;
            listeners[i] = item.listener;
            charged += item.charge;
        }
        CompositeByteBuf batch = channel.alloc().compositeDirectBuffer(count);
        batch.addComponents(true, bufs);
        ChannelFuture f = channel.write(batch);
        f.addListener(new BatchCompletion(listeners, count, charged));
    }

    /**
     * Hands one frame to the channel. Every write gets a completion, even without a listener: it gives the frame's
     * charge back to the cap once the socket took it (or the write failed).
     */
    private void writeOne(ByteBuf frame, long charge, WriteListener listener) {
        if (listener == null || listener == WriteListener.NONE) {
            channel.write(frame).addListener(new BatchCompletion(null, 0, charge));
        } else {
            channel.write(frame).addListener(new BatchCompletion(new WriteListener[] {listener}, 1, charge));
        }
    }

    /** True when the frame may be handed to the channel; false when its caller withdrew it. */
    private static boolean claim(WriteListener listener) {
        if (listener == null) {
            return true;
        }
        try {
            return listener.beforeWrite();
        } catch (Throwable t) {
            log.warn("WriteListener.beforeWrite threw; writing the message anyway", t);
            return true;
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

    /** Fails and releases everything queued. Only the holder of {@code scheduled} (see class javadoc) calls this. */
    private void failQueued(Throwable cause) {
        for (Item item; (item = queue.poll()) != null; ) {
            if (item.command != null) {
                item.command.fail(cause);
                continue;
            }
            pendingBytes.addAndGet(-item.charge);
            item.frame.release();
            notifyFailed(item.listener, cause);
        }
    }

    /**
     * Any thread: a producer was refused for the cap; have the loop stop reading from this connection, when its
     * outbound bytes answer the peer ({@link #pauseReadingOverCap}).
     */
    private void requestReadPause() {
        if (!pauseReadingOverCap) {
            return;
        }
        if (loop.inEventLoop()) {
            pauseReadingIfOverCap();
        } else if (pauseRequested.compareAndSet(false, true)) {
            try {
                loop.execute(pauseTask);
            } catch (RejectedExecutionException e) {
                pauseRequested.set(false); // shutting down: nothing left to read anyway
            }
        }
    }

    /** Event loop only: stops reading while the outbound side is still over half the cap. */
    private void pauseReadingIfOverCap() {
        pauseRequested.set(false);
        // Not paused already, by us or by another part that owns autoRead for now (we then leave it alone).
        if (readingPaused || !channel.isOpen() || !channel.config().isAutoRead()
                || pendingBytes.get() <= pendingBytesCap / 2) {
            return;
        }
        readingPaused = true;
        channel.config().setAutoRead(false);
        if (observer != null) {
            observer.readingPaused();
        }
        log.debug("Stopped reading {}: {} bytes wait to be written, over the cap of {}; the peer is not reading",
                channel, pendingBytes.get(), pendingBytesCap);
        armResumeCheck();
    }

    /** Event loop only: reads again once the outbound side has drained to half the cap. */
    private void resumeReadingIfDrained() {
        if (!readingPaused || !channel.isOpen()) {
            return;
        }
        if (pendingBytes.get() > pendingBytesCap / 2) {
            armResumeCheck();
            return;
        }
        readingPaused = false;
        channel.config().setAutoRead(true);
        if (observer != null) {
            observer.readingResumed();
        }
        log.debug("Reading {} again: its outbound side drained below half the cap", channel);
    }

    /**
     * Event loop only: looks again once everything in the channel now has been written. An empty write completes
     * after every write before it, so this notices progress even when the channel never went unwritable (a cap
     * below the high water mark) and no drain runs.
     */
    private void armResumeCheck() {
        if (resumeCheckArmed || unwrittenBytes() == 0) {
            return; // nothing in the channel: the drain of what is queued (or writability) brings us back
        }
        resumeCheckArmed = true;
        // The check runs as a task, not in the listener: Netty completes a write before it takes the write off its
        // pending count, and inside a flush a new empty write would complete at once, again and again.
        channel.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(f -> {
            try {
                loop.execute(resumeCheckTask);
            } catch (RejectedExecutionException e) {
                resumeCheckArmed = false; // the loop is shutting down
            }
        });
    }

    /** Any thread: closes the channel at the latest {@code flushTimeout} from now. */
    private void armForcedClose(Duration flushTimeout) {
        Runnable force = () -> {
            if (channel.isOpen()) {
                FORCED_CLOSES.info(log, "Closing {} forcibly: what was queued before its close was not written within"
                        + " {} ms ({} bytes left); the peer is not reading", channel, flushTimeout.toMillis(),
                        pendingBytes());
                channel.close();
            }
        };
        try {
            io.netty.util.concurrent.ScheduledFuture<?> timer =
                    loop.schedule(force, flushTimeout.toNanos(), TimeUnit.NANOSECONDS);
            channel.closeFuture().addListener(f -> timer.cancel(false));
        } catch (RejectedExecutionException e) {
            channel.close(); // the loop is shutting down: there is no time left to flush
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

    /**
     * The queued close: everything before it has been handed to the channel and flushed. Closes once the socket
     * has taken all of it; an empty write completes only after every write before it.
     */
    private final class GracefulClose implements QueuedCommand {
        @Override
        public void run(Channel ch) {
            ch.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(f -> ch.close());
        }

        @Override
        public void fail(Throwable cause) {
            channel.close(); // the queue failed (closed channel, loop gone): nothing left to flush, close at once
        }
    }

    /**
     * Completes exactly one batch's listeners, captured when the batch was handed to the channel, and gives the
     * batch's charge back to the cap.
     */
    private final class BatchCompletion implements ChannelFutureListener {
        private final WriteListener[] listeners;
        private final int count;
        private final long bytes;

        BatchCompletion(WriteListener[] listeners, int count, long bytes) {
            this.listeners = listeners;
            this.count = count;
            this.bytes = bytes;
        }

        @Override
        public void operationComplete(ChannelFuture future) {
            pendingBytes.addAndGet(-bytes);
            if (readingPaused) {
                resumeReadingIfDrained();
            }
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
                        // Handed to the channel: some of the batch may have reached the peer before it failed.
                        l.onWriteOutcomeUnknown(cause);
                    }
                } catch (Throwable t) {
                    log.warn("WriteListener threw", t);
                }
            }
        }
    }

    /** One queued frame (with its listener) or command. */
    static final class Item {
        final ByteBuf frame;
        /** Wire bytes: what the drain's chunk bound and the events count. */
        final int size;
        /** What the frame is charged against the cap ({@link #charge}). */
        final long charge;
        final WriteListener listener;
        final QueuedCommand command;
        /** {@link System#nanoTime()} at enqueue while batch events are recorded, else 0. */
        final long enqueuedNanos;

        Item(ByteBuf frame, int size, long charge, WriteListener listener, QueuedCommand command,
             long enqueuedNanos) {
            this.frame = frame;
            this.size = size;
            this.charge = charge;
            this.listener = listener;
            this.command = command;
            this.enqueuedNanos = enqueuedNanos;
        }
    }
}
