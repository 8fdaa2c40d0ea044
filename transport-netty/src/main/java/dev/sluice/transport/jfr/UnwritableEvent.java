package dev.sluice.transport.jfr;

import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Enabled;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * A period in which a channel was unwritable (its outbound buffer over the high water mark): the event spans it.
 * Committed on the event loop when the channel becomes writable again (or closes).
 */
@Name("dev.sluice.Unwritable")
@Label("Channel Unwritable")
@Category({"Sluice", "Transport"})
@Description("A channel's outbound buffer stayed over its high water mark")
@Enabled(false)
@StackTrace(false)
public final class UnwritableEvent extends Event {
    @Label("Pending Bytes")
    @Description("Bytes accepted and not yet taken by the socket when the period ended")
    @DataAmount
    public long pendingBytes;

    @Label("Channel")
    public String channel;
}
