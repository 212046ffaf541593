import { QuotaExceededError } from "@warden/contract";

/** What holds a credential open: a subscription stream (SSE or WebSocket) or a socket. */
export type WatchedKind = "stream" | "socket";

/** Answers which of `hashes` still name a live credential; throws when it cannot tell. */
export type LiveCredentials = (hashes: readonly string[]) => Promise<ReadonlySet<string>>;

// How long after its streams a revoked credential's sockets close.
const SOCKET_CLOSE_DELAY_MS = 100;

interface Watcher {
  readonly kind: WatchedKind;
  readonly end: () => void;
}

/**
 * The streams and sockets open on each credential (an API key's or a session's hash), so
 * that revoking the credential ends them. The instance that revokes ends them at once
 * ({@link endAll}); every instance re-checks its open credentials against the database
 * every `everyMs` (default 500 ms), bypassing the lookup cache, so a revocation made
 * elsewhere ends them within a second. While the database cannot answer, streams stay:
 * like the lookup cache's stale-if-error (docs/decisions/0014), a MySQL outage must not
 * cut every console. Also counts them, for the per-credential caps.
 */
export class CredentialWatch {
  private readonly byHash = new Map<string, Set<Watcher>>();
  private timer: NodeJS.Timeout | null = null;
  private checking = false;

  constructor(
    private readonly live: LiveCredentials,
    private readonly everyMs = 500,
  ) {}

  /** How many of `kind` are open on `hash`. */
  count(hash: string, kind: WatchedKind): number {
    let n = 0;
    for (const watcher of this.byHash.get(hash) ?? []) if (watcher.kind === kind) n += 1;
    return n;
  }

  /**
   * Registers a stream or socket of credential `hash`; `end` is called once when the
   * credential is revoked. Refused with QUOTA_EXCEEDED when `max` of that kind are already
   * open on it. Returns the unregister function (call it when the stream ends on its own).
   */
  watch(hash: string, kind: WatchedKind, max: number, end: () => void): () => void {
    if (this.count(hash, kind) >= max) {
      throw new QuotaExceededError(
        1_000,
        `at most ${max} open ${kind}s per credential; close one first`,
      );
    }
    let watchers = this.byHash.get(hash);
    if (!watchers) {
      watchers = new Set();
      this.byHash.set(hash, watchers);
    }
    const watcher: Watcher = { kind, end };
    watchers.add(watcher);
    this.startTimer();
    return () => this.forget(hash, watcher);
  }

  /**
   * Ends every stream and socket of `hash` now (this instance revoked it). Streams first;
   * sockets a moment later, so that a stream's "stopped" message still reaches its client
   * over the socket about to close.
   */
  endAll(hash: string): void {
    const watchers = this.byHash.get(hash);
    if (!watchers) return;
    this.byHash.delete(hash);
    const sockets: Watcher[] = [];
    for (const watcher of watchers) {
      if (watcher.kind === "stream") watcher.end();
      else sockets.push(watcher);
    }
    if (sockets.length > 0) {
      setTimeout(() => {
        for (const socket of sockets) socket.end();
      }, SOCKET_CLOSE_DELAY_MS).unref();
    }
    this.stopTimerWhenIdle();
  }

  /** Stops the re-check timer; open streams stay registered. */
  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private forget(hash: string, watcher: Watcher): void {
    const watchers = this.byHash.get(hash);
    if (!watchers) return;
    watchers.delete(watcher);
    if (watchers.size === 0) this.byHash.delete(hash);
    this.stopTimerWhenIdle();
  }

  private startTimer(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.check(), this.everyMs);
    this.timer.unref();
  }

  private stopTimerWhenIdle(): void {
    if (this.byHash.size === 0) this.close();
  }

  private async check(): Promise<void> {
    if (this.checking || this.byHash.size === 0) return;
    this.checking = true;
    try {
      const hashes = [...this.byHash.keys()];
      const live = await this.live(hashes);
      for (const hash of hashes) if (!live.has(hash)) this.endAll(hash);
    } catch {
      // The database cannot tell: keep the streams (see the class comment).
    } finally {
      this.checking = false;
    }
  }
}
