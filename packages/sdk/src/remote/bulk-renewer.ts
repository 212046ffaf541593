import { TRPCClientError } from "@trpc/client";
import type { Tier } from "@warden/contract";
import type { Connection } from "../transport/connection.js";
import type { RenewItem, RenewReply } from "../transport/lock-socket.js";

/**
 * A renewal the bulk command did not carry: the socket's server has not named the item's
 * kind (docs/decisions/0211). Nothing was sent for it; renew it by a single call.
 */
export class RenewKindUnsentError extends Error {
  constructor(kind: string | undefined) {
    super(`this server's renew command does not take ${kind ?? "lock"} items`);
    this.name = "RenewKindUnsentError";
  }
}

interface Queued {
  readonly item: RenewItem;
  readonly resolve: (value: { ttlMs: number; expiresAt: number }) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Longest renew command, in characters of its items' JSON: well under the server's
 * 64 KiB message limit (3 bytes per character at most), and a few hundred leases each.
 */
const COMMAND_BUDGET = 16 * 1024;

/**
 * Renewals issued in one turn of the event loop leave as one `renew` command (a few when
 * they are many), like an etcd or Consul session keepalive: the server extends them
 * together and answers each lease on its own, so a lease the store refused fails alone.
 * With the {@link RenewalClock} lining the watchdogs up, a client sends about one renewal
 * command a second however many locks it holds (docs/decisions/0066-bulk-renewals.md).
 */
export class BulkRenewer {
  private queue: Queued[] = [];
  private scheduled = false;
  /** Renew commands sent, and leases they carried (bench and tests read these). */
  readonly sent = { commands: 0, leases: 0 };

  constructor(
    private readonly connection: Connection,
    private readonly timeoutMs: number,
    private readonly noteTier: (tier: Tier) => void,
  ) {}

  /**
   * Renews one lease with the others of this turn. Rejects with the server's error for
   * this lease (a `TRPCClientError`, as a single call would), or with the transport's
   * error for the whole command.
   */
  renew(item: RenewItem): Promise<{ ttlMs: number; expiresAt: number }> {
    return new Promise((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.scheduled = false;
    const queue = this.queue;
    this.queue = [];
    let chunk: Queued[] = [];
    let chars = 0;
    for (const queued of queue) {
      const size = JSON.stringify(queued.item).length + 1;
      if (chunk.length > 0 && chars + size > COMMAND_BUDGET) {
        this.send(chunk);
        chunk = [];
        chars = 0;
      }
      chunk.push(queued);
      chars += size;
    }
    if (chunk.length > 0) this.send(chunk);
  }

  private send(chunk: readonly Queued[]): void {
    this.sent.commands += 1;
    this.sent.leases += chunk.length;
    this.connection
      .renew(
        chunk.map((queued) => queued.item),
        this.timeoutMs,
      )
      .then(
        (reply: RenewReply) => {
          if (reply.currentTier !== null) this.noteTier(reply.currentTier);
          chunk.forEach((queued, index) => {
            const result = reply.results[index];
            if (!result) {
              queued.reject(
                new Error("the server's bulk renewal answer has no entry for this lease"),
              );
            } else if (result.unsent) {
              queued.reject(new RenewKindUnsentError(queued.item.kind));
            } else if (result.error) {
              queued.reject(TRPCClientError.from({ error: result.error }));
            } else {
              queued.resolve({ ttlMs: result.ttlMs, expiresAt: result.expiresAt });
            }
          });
        },
        (error: unknown) => {
          for (const queued of chunk) queued.reject(error);
        },
      );
  }
}
