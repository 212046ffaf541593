import type { Holder } from "@warden/contract";
import { monotonicNow } from "../time/monotonic.js";

/** What the SDK counts of its local short-circuit. */
export interface ShortCircuitStats {
  /** `tryAcquire` calls refused locally, without a round trip. */
  readonly refused: number;
  /** Keys remembered as held by someone else right now. */
  readonly cached: number;
  /** Entries dropped because the server said the key was freed. */
  readonly releasedByServer: number;
}

interface Entry {
  readonly holder: Holder;
  /** Monotonic instant the observed lease ends at the earliest. */
  readonly until: number;
}

/** Keys remembered at most; a busier client simply asks the server for the rest. */
const MAX_ENTRIES = 10_000;
/** How long a release notice is kept to judge refusals still on their way (a round trip). */
const FREED_MEMORY_MS = 10_000;

function keyOf(resource: string, businessKey: string): string {
  // Validated names and keys contain no NUL.
  return `${resource}\u0000${businessKey}`;
}

/**
 * The SDK's local short-circuit (docs/decisions/0067-sdk-short-circuit.md): a `tryAcquire`
 * on a key this client has just seen held by someone else, whose observed lease has not
 * ended, is refused here without a round trip. Only a refusal, never a grant. An entry
 * exists only when the server agreed to watch the key for this connection (non-fair
 * resources), and goes when the server says the key was freed, when the observed lease
 * ends (counted from when the refused request was SENT, so never past the real expiry),
 * or when the connection is lost (its notifications could have been lost with it).
 */
export class ShortCircuit {
  private readonly entries = new Map<string, Entry>();
  /**
   * When the server last said a key was freed. A refusal's reply and the release notice
   * that followed it can arrive in one frame; the notice is handled at once, the reply's
   * continuation (which calls `remember`) only afterwards, so without this a key freed
   * right after the refusal would stay refused here for the rest of the observed lease.
   */
  private readonly freedAt = new Map<string, number>();
  private refused = 0;
  private releasedByServer = 0;

  constructor(
    /** Whether the client asks to short-circuit `resource` at all (options). */
    readonly enabledFor: (resource: string) => boolean,
  ) {}

  /**
   * The holder to answer with when the key is known held by someone other than
   * `clientId`/`ownerId`, else null (ask the server: the holder itself would re-enter).
   */
  refuse(
    resource: string,
    businessKey: string,
    clientId: string,
    ownerId: string,
  ): { holder: Holder; ttlMs: number } | null {
    if (this.entries.size === 0) return null;
    const name = keyOf(resource, businessKey);
    const entry = this.entries.get(name);
    if (!entry) return null;
    if (entry.holder.clientId === clientId && entry.holder.ownerId === ownerId) return null;
    const ttlMs = entry.until - monotonicNow();
    if (ttlMs <= 0) {
      this.entries.delete(name);
      return null;
    }
    this.refused += 1;
    return { holder: entry.holder, ttlMs: Math.ceil(ttlMs) };
  }

  /** The server refused a try-acquire sent at `sentAt` and watches the key for us. */
  remember(resource: string, businessKey: string, holder: Holder, ttlMs: number, sentAt: number) {
    if (ttlMs <= 0) return;
    const name = keyOf(resource, businessKey);
    const freed = this.freedAt.get(name);
    if (freed !== undefined && freed >= sentAt) return;
    if (!this.entries.has(name) && this.entries.size >= MAX_ENTRIES) this.sweep();
    if (!this.entries.has(name) && this.entries.size >= MAX_ENTRIES) return;
    this.entries.set(name, { holder, until: sentAt + ttlMs });
  }

  /** The server says these keys were freed. */
  released(keys: readonly (readonly [string, string])[]): void {
    const now = monotonicNow();
    if (this.freedAt.size >= MAX_ENTRIES) {
      for (const [name, at] of this.freedAt)
        if (now - at > FREED_MEMORY_MS) this.freedAt.delete(name);
    }
    for (const [resource, businessKey] of keys) {
      const name = keyOf(resource, businessKey);
      if (this.entries.delete(name)) this.releasedByServer += 1;
      if (this.freedAt.size < MAX_ENTRIES || this.freedAt.has(name)) this.freedAt.set(name, now);
    }
  }

  /** The connection went: notifications may have been lost with it. */
  clear(): void {
    this.entries.clear();
    this.freedAt.clear();
  }

  get stats(): ShortCircuitStats {
    return {
      refused: this.refused,
      cached: this.entries.size,
      releasedByServer: this.releasedByServer,
    };
  }

  private sweep(): void {
    const now = monotonicNow();
    for (const [name, entry] of this.entries) if (entry.until <= now) this.entries.delete(name);
  }
}
