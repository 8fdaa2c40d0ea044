/**
 * JDK Flight Recorder events of the Sluice transport, named {@code dev.sluice.*}. All are disabled by default and
 * cost one enabled-check where they would be recorded; {@code sluice.jfc}, shipped in this jar as
 * {@code dev/sluice/transport/jfr/sluice.jfc}, enables them ({@code java -XX:StartFlightRecording:settings=sluice.jfc}
 * once extracted, or {@code jdk.jfr.Configuration.create(Reader)} on the class path resource), as does
 * {@code Recording.enable("dev.sluice.WriteBatch")}.
 * The event classes are the recording's schema, not an API to call: the transport commits them.
 */
package dev.sluice.transport.jfr;
