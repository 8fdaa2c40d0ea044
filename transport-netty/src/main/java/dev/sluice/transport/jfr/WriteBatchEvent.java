package dev.sluice.transport.jfr;

import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Enabled;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Timespan;

/**
 * One batch handed to the channel and flushed once: a drain chunk of the write queue, or the frames an event loop
 * wrote directly during one task round. The event's duration is the write and flush. Committed on the event loop.
 */
@Name("dev.sluice.WriteBatch")
@Label("Write Batch")
@Category({"Sluice", "Transport"})
@Description("Messages written to a channel as one write and one flush")
@Enabled(false)
@StackTrace(false)
public final class WriteBatchEvent extends Event {
    @Label("Messages")
    @Description("Frames in this batch")
    public int messages;

    @Label("Bytes")
    @DataAmount
    public long bytes;

    @Label("Oldest Wait")
    @Description("From enqueue of the oldest frame of the batch to the batch's flush; 0 for direct writes")
    @Timespan(Timespan.NANOSECONDS)
    public long oldestWait;

    @Label("Chunk Bound Hit")
    @Description("The drain stopped at its message or byte bound with more queued")
    public boolean chunkBoundHit;

    @Label("Direct")
    @Description("Written directly on the event loop (nothing queued ahead), not by a drain task")
    public boolean direct;

    @Label("Channel")
    public String channel;
}
