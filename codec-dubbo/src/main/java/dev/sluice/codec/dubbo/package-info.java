/**
 * Apache Dubbo's {@code dubbo} wire protocol with fastjson2 (JSONB) bodies, byte-compatible with Dubbo 3.3.6
 * (see {@code docs/wire-format.md}).
 *
 * <ul>
 *   <li>Messages: {@link dev.sluice.codec.dubbo.DubboRequest} (invocations, heartbeats, readonly/writeable events,
 *       broken requests to answer), {@link dev.sluice.codec.dubbo.DubboResponse} (results, errors, heartbeat
 *       responses), call targets {@link dev.sluice.codec.dubbo.DubboMethod}.</li>
 *   <li>Codec: {@link dev.sluice.codec.dubbo.DubboCodec} (built with payload limit, allowlist, type resolver) hands
 *       the transport a shared {@link dev.sluice.codec.dubbo.DubboEncoder} (caller threads) and a
 *       {@link dev.sluice.codec.dubbo.DubboDecoder} per connection (its event loop).</li>
 *   <li>Security: {@link dev.sluice.codec.dubbo.ClassAllowlist}, STRICT: only classes reachable from registered
 *       service interfaces and a small JDK set are deserialized.</li>
 *   <li>Types: {@link dev.sluice.codec.dubbo.DubboTypeResolver},
 *       {@link dev.sluice.codec.dubbo.internal.InterfaceTypeResolver},
 *       {@link dev.sluice.codec.dubbo.DubboDescriptors}.</li>
 * </ul>
 *
 * <p>Serving: for each decoded {@code DubboRequest} — a heartbeat gets {@code DubboResponse.replyHeartbeat(req)}; a
 * broken one (if two-way) {@code DubboResponse.replyError(req, req.brokenStatus(), req.errorMessage())}; an event
 * ("R"/"W") no answer; an invocation {@code replyValue(req, result)} or {@code replyException(req, t)}, which pick
 * the serialization id and the response attachments Dubbo expects. Calling: build one {@code DubboMethod} per
 * method, send {@code DubboRequest.invocation(id, method, args, attachments)}, and resolve return types by id with
 * {@code DubboTypeResolver.forClient(pendingCalls::returnType)}; a {@code DubboResponse} with status 90 was produced
 * locally by the decoder (oversized, corrupt or refused) and fails the call.
 */
package dev.sluice.codec.dubbo;
