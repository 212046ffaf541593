/**
 * Why a call got no answer from the server. Internal: the SDK turns these into the typed
 * errors of `@warden/core` (an unknown outcome, an unavailable lock) at its surface.
 */
export class TransportError extends Error {
  override readonly name: string = "TransportError";

  constructor(
    message: string,
    /** False when the call was never sent, so its outcome is known: nothing happened. */
    readonly sent: boolean,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** No open connection to the server, and none came up in time: nothing was sent. */
export class ServerUnreachableError extends TransportError {
  override readonly name = "ServerUnreachableError";

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, false, options);
  }
}

/** The call was sent but its reply did not come in time (or the connection dropped). */
export class ReplyLostError extends TransportError {
  override readonly name = "ReplyLostError";

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, true, options);
  }
}

/** `warden.close()` ended the call. */
export class ClientClosedError extends TransportError {
  override readonly name = "ClientClosedError";

  constructor() {
    super("the Warden client was closed", true);
  }
}
