package dev.sluice.transport.jfr;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Enabled;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Timespan;

/** A client call timed out: whether its request had been sent, not sent (withdrawn) or maybe sent. */
@Name("dev.sluice.CallTimeout")
@Label("Call Timeout")
@Category({"Sluice", "Calls"})
@Description("A call ran out of time")
@Enabled(false)
@StackTrace(false)
public final class CallTimeoutEvent extends Event {
    @Label("Method")
    public String method;

    @Label("Send State")
    @Description("NOT_SENT (withdrawn, never written), SENT, or UNKNOWN (being written)")
    public String sendState;

    @Label("Timeout")
    @Timespan(Timespan.MILLISECONDS)
    public long timeout;

    @Label("Remote Address")
    public String remoteAddress;
}
