import type { Holder } from "@warden/contract";
import type { RwMode, RwRefusalReason } from "./rw-lock-store.js";

/** One live grant as a decision sees it (expired grants were reclaimed before). */
export interface LiveRwGrant {
  readonly lockId: string;
  readonly mode: RwMode;
  readonly holder: Holder;
  /** Remaining lease in ms. */
  readonly remainingMs: number;
}

/** One live writer intent: its holder and how long it lasts without another attempt. */
export interface LiveRwIntent {
  readonly holder: Holder;
  readonly remainingMs: number;
}

/** What an acquire does, decided from the key's live grants and intents. */
export type RwDecision =
  | { readonly kind: "reenter"; readonly lockId: string }
  | { readonly kind: "mode-mix" }
  | {
      readonly kind: "refuse";
      readonly reason: RwRefusalReason;
      readonly holders: Holder[];
      readonly retryAfterMs: number;
      /** A writer with writer preference registers (or renews) its intent. */
      readonly registerIntent: boolean;
    }
  | { readonly kind: "grant" };

/**
 * The read-write decision every tier makes in its one atomic step (the Redis script
 * mirrors it line by line, see rwAcquire-5.lua):
 *
 * 1. The holder already holds the key: the same mode re-enters (a reader is not held back
 *    by a waiting writer), the other mode is refused as a bad request (no upgrade).
 * 2. A writer is refused while anyone holds the key, and then, with writer preference,
 *    registers its intent.
 * 3. A reader is refused while a writer holds the key, and, with writer preference, while
 *    another holder's writer intent is live.
 * 4. Otherwise granted.
 */
export function decideRw(
  mode: RwMode,
  holder: Holder,
  writerPreference: boolean,
  grants: readonly LiveRwGrant[],
  intents: readonly LiveRwIntent[],
): RwDecision {
  const mine = grants.find((g) => sameHolder(g.holder, holder));
  if (mine)
    return mine.mode === mode ? { kind: "reenter", lockId: mine.lockId } : { kind: "mode-mix" };
  const writer = grants.find((g) => g.mode === "write");
  if (writer) {
    return {
      kind: "refuse",
      reason: "write-held",
      holders: [writer.holder],
      retryAfterMs: writer.remainingMs,
      registerIntent: mode === "write" && writerPreference,
    };
  }
  const longestRead = grants.reduce((max, g) => Math.max(max, g.remainingMs), 0);
  if (mode === "write" && grants.length > 0) {
    return {
      kind: "refuse",
      reason: "read-held",
      holders: grants.map((g) => g.holder),
      retryAfterMs: longestRead,
      registerIntent: writerPreference,
    };
  }
  if (mode === "read" && writerPreference) {
    const waiting = intents.filter((i) => !sameHolder(i.holder, holder));
    if (waiting.length > 0) {
      const soonestIntent = waiting.reduce((min, i) => Math.min(min, i.remainingMs), Infinity);
      return {
        kind: "refuse",
        reason: "writer-waiting",
        holders: [],
        retryAfterMs: Math.max(1, longestRead > 0 ? longestRead : soonestIntent),
        registerIntent: false,
      };
    }
  }
  return { kind: "grant" };
}

export function sameHolder(a: Holder, b: Holder): boolean {
  return a.clientId === b.clientId && a.ownerId === b.ownerId;
}
