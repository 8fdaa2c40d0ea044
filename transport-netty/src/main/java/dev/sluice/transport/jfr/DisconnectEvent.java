package dev.sluice.transport.jfr;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Enabled;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/** A Sluice connection closed (either side). Committed on the event loop. */
@Name("dev.sluice.Disconnect")
@Label("Disconnect")
@Category({"Sluice", "Transport"})
@Description("A connection closed")
@Enabled(false)
@StackTrace(false)
public final class DisconnectEvent extends Event {
    @Label("Local Address")
    public String localAddress;

    @Label("Remote Address")
    public String remoteAddress;

    @Label("Cause")
    @Description("The last error seen on the connection before it closed, if any")
    public String cause;
}
