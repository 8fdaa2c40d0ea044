package dev.sluice.transport.jfr;

import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Enabled;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;

/** A frame refused for its size (declared by a peer, or encoded by us), against the payload limit. */
@Name("dev.sluice.FrameRejected")
@Label("Frame Rejected")
@Category({"Sluice", "Transport"})
@Description("A frame over the payload limit was refused")
@Enabled(false)
public final class FrameRejectedEvent extends Event {
    @Label("Size")
    @DataAmount
    public long size;

    @Label("Limit")
    @DataAmount
    public long limit;

    @Label("What")
    public String what;
}
