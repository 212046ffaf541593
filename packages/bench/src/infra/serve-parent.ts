import type { ReadyMessage, ReplyMessage } from "./ipc-protocol.js";

/**
 * The child side of {@link ForkedChild}: reports ready, answers each request with
 * `handle`'s result, and runs `onGone` when the coordinator goes away (IPC closed) so a
 * crashed bench never leaves a child behind.
 */
export function serveParent(
  info: Record<string, unknown>,
  handle: (body: unknown) => Promise<unknown>,
  onGone: () => void,
): void {
  const send = process.send?.bind(process);
  if (!send) throw new Error("a bench child must be started with an IPC channel (fork)");
  process.on("disconnect", onGone);
  process.on("message", (message: { type?: unknown; id?: unknown; body?: unknown }) => {
    if (message.type !== "request" || typeof message.id !== "number") return;
    const id = message.id;
    handle(message.body).then(
      (value) => send({ type: "reply", id, ok: true, value } satisfies ReplyMessage),
      (error: unknown) =>
        send({
          type: "reply",
          id,
          ok: false,
          error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
        } satisfies ReplyMessage),
    );
  });
  send({ type: "ready", info } satisfies ReadyMessage);
}
