package dev.sluice.transport.jfr;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Enabled;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/** A Sluice connection became active (either side). Committed on the event loop. */
@Name("dev.sluice.Connect")
@Label("Connect")
@Category({"Sluice", "Transport"})
@Description("A connection became active")
@Enabled(false)
@StackTrace(false)
public final class ConnectEvent extends Event {
    @Label("Local Address")
    public String localAddress;

    @Label("Remote Address")
    public String remoteAddress;
}
