/**
 * The batched lock protocol's wire format (docs/decisions/0065-batched-lock-protocol.md).
 * A WebSocket on the tRPC path that asks for the subprotocol {@link LOCK_SUBPROTOCOL}
 * speaks it instead of tRPC. Text frames, JSON:
 *
 * - client, first frame: `{"hello":{"apiKey":"…","clientId":"…"}}`
 * - client, then: an array of commands `[id, op, input]` (id a positive integer chosen by
 *   the client, unique per socket); every command a turn issues leaves in one frame. A
 *   command may carry a fourth element, `{ traceparent, tracestate? }` (W3C trace context
 *   of the caller's span): the server's spans of that command join the caller's trace
 *   (docs/decisions/0145-opentelemetry-tracing.md).
 * - server: an array of entries, `[id, 0, result]`, `[id, 1, error]` (the same error
 *   shape the tRPC API answers with), `[0, "released", [[resource, businessKey], …]]`
 *   (keys this connection asked to watch were freed), or, once after the hello,
 *   `[0, "limits", { maxFrameBytes, renewKinds }]` (the largest message the server takes,
 *   and the grant kinds its `renew` command takes besides locks), or
 *   `[0, "revoke", { resource, businessKey, lockId, reason, requestedBy, at }]` (someone asks
 *   this client to release the grant `lockId`; only a request, the lease is untouched:
 *   docs/decisions/0176-cooperative-revocation.md), or `[0, "draining", null]` (this instance
 *   is shutting down: send nothing new on this socket, open one to another instance; what
 *   was sent is still answered here: docs/decisions/0186-draining-lock-sockets.md). A client
 *   skips any `[0, kind, …]` entry it does not know, so new kinds need no capability. A
 *   frame's commands are answered in one frame.
 *
 * Keep-alive is WebSocket ping/pong both ways. Nothing is ever replayed: a command whose
 * socket closed before its reply has an unknown outcome for the client.
 */
export const LOCK_SUBPROTOCOL = "warden-lock.1";

/** Lock commands; `call` runs any tRPC procedure: input `[type, path, input]`. */
export type LockOp = "acquire" | "release" | "extend" | "renew" | "inspect" | "cancelWait" | "call";

/** At most this many commands per frame; more are refused, each with a typed error. */
export const MAX_COMMANDS_PER_FRAME = 512;

/** At most this many leases per `renew` command. */
export const MAX_RENEW_ITEMS = 1_000;

/**
 * Kinds of grant a `renew` item may name besides a lock (no `kind`): `permit` (decision
 * 0162) and `rwlock` (decision 0211). The server lists them in its `limits` push; an SDK
 * puts an `rwlock` item in a `renew` only for a server that listed it, because an item of a
 * kind a server does not know makes that server refuse the whole command.
 */
export const RENEW_KINDS = ["permit", "rwlock"] as const;
export type RenewKind = (typeof RENEW_KINDS)[number];

/** Commands in progress per connection past which the server stops reading from it. */
export const MAX_INFLIGHT_PER_CONNECTION = 4_096;

/** Keys one connection may watch for release notifications (short-circuit cache). */
export const MAX_WATCHES_PER_CONNECTION = 10_000;
