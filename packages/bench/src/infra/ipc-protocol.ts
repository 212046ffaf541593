/** First message a forked bench child sends: it is up, with whatever it wants to report. */
export interface ReadyMessage {
  readonly type: "ready";
  readonly info: Record<string, unknown>;
}

/** A request from the coordinator; `id` pairs it with its reply. */
export interface RequestMessage {
  readonly type: "request";
  readonly id: number;
  readonly body: unknown;
}

/** The child's answer to one request. */
export type ReplyMessage =
  | { readonly type: "reply"; readonly id: number; readonly ok: true; readonly value: unknown }
  | { readonly type: "reply"; readonly id: number; readonly ok: false; readonly error: string };

/** Anything a child sends. */
export type ChildMessage = ReadyMessage | ReplyMessage;

/** Narrows an IPC payload to a child message. */
export function isChildMessage(value: unknown): value is ChildMessage {
  if (typeof value !== "object" || value === null) return false;
  const type = (value as { type?: unknown }).type;
  return type === "ready" || type === "reply";
}
