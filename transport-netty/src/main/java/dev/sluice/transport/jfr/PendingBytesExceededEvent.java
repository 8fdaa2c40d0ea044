package dev.sluice.transport.jfr;

import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Enabled;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;

/** A frame refused at enqueue because it would take the connection over its pending-bytes cap. Caller's thread. */
@Name("dev.sluice.PendingBytesExceeded")
@Label("Pending Bytes Exceeded")
@Category({"Sluice", "Transport"})
@Description("A frame was refused: the connection's pending bytes would exceed the cap")
@Enabled(false)
public final class PendingBytesExceededEvent extends Event {
    @Label("Frame Bytes")
    @Description("What the frame is charged against the cap: its buffer's capacity plus the per-frame overhead")
    @DataAmount
    public long frameBytes;

    @Label("Pending Bytes")
    @DataAmount
    public long pendingBytes;

    @Label("Cap")
    @DataAmount
    public long cap;

    @Label("Channel")
    public String channel;
}
