import type { LeaseView } from "@warden/contract";
import type { RedisTopology } from "@warden/core";
import type { PrismaClient } from "@warden/db";
import type { Cluster, Redis } from "ioredis";
import type { Logger } from "pino";
import { Counter, type Registry } from "prom-client";
import type { EventHub } from "../audit/event-hub.js";
import { connect } from "../locks/redis-release-bridge.js";
import type { TieredLocks } from "../locks/tiered-locks-port.js";
import {
  BEAT_LUA,
  CONNECT_LUA,
  DISCONNECT_LUA,
  FORGET_LUA,
  LEAD_LUA,
  LEAVE_LUA,
  RESIGN_LUA,
  STILL_GONE_LUA,
  SWEEP_LUA,
} from "./liveness-scripts.js";

/** Options of {@link LivenessMonitor}. */
export interface LivenessOptions {
  /** The Redis the fleet shares (the same as the locks'). */
  readonly redis: RedisTopology;
  /** This process's id (the instance registry's). */
  readonly instanceId: string;
  readonly locks: Pick<TieredLocks, "list" | "forceRelease">;
  readonly hub: Pick<EventHub, "attribute">;
  readonly prisma: PrismaClient;
  readonly logger: Logger;
  /** Where `warden_disconnect_releases_total` is registered. */
  readonly metrics?: Registry;
  /** How often this instance says it is alive, ms. @defaultValue 1 000 */
  readonly everyMs?: number;
  /** How long its records count without the next beat, ms. @defaultValue 5 000 */
  readonly ttlMs?: number;
  /** How often the sweeper looks for gone clients, ms. @defaultValue 500 */
  readonly sweepEveryMs?: number;
}

/** Who the audit names as the actor of a disconnect release. */
export const LIVENESS_ACTOR = "warden:liveness";

const PREFIX = "w:{live}:";
const INSTS = `${PREFIX}insts`;
const SWEEPER = `${PREFIX}sweeper`;
// Gone entries read per sweep (oldest first).
const SWEEP_LIMIT = 1_000;
// Leases read per resource and sweep: pages of 1 000, at most 100 pages.
const PAGE = 1_000;
const MAX_PAGES = 100;
// A tenant's opted-in resources are read again after this long.
const POLICY_CACHE_MS = 1_000;

// Records must be written fast or not at all; the beat resyncs what failed.
const CLIENT = {
  enableOfflineQueue: false,
  maxRetriesPerRequest: 0,
  commandTimeout: 2_000,
  connectTimeout: 2_000,
};

type Script = (...args: (string | number)[]) => Promise<unknown>;
type Scripted = Record<
  "wConnect" | "wDisconnect" | "wBeat" | "wLeave" | "wSweep" | "wStillGone" | "wForget",
  Script
> &
  Record<"wLead" | "wResign", Script>;

interface Policy {
  readonly name: string;
  readonly graceMs: number;
}

/** `tenant \n clientId`: a tenant's clientIds never meet another tenant's. */
function memberOf(tenantId: string, clientId: string): string {
  return `${tenantId}\n${clientId}`;
}

function splitMember(member: string): { tenantId: string; clientId: string } {
  const at = member.indexOf("\n");
  return { tenantId: member.slice(0, at), clientId: member.slice(at + 1) };
}

/**
 * Liveness-bound release (docs/decisions/0150). Each instance keeps, in memory, how many
 * lock connections each `(tenant, clientId)` has on it, and mirrors only the 0 ↔ 1 changes
 * to Redis (never a write per command); its own record lives while it beats. One instance
 * at a time (a Redis lease) sweeps: clients of instances whose record lapsed become gone,
 * and a client gone for a resource's `releaseOnDisconnectMs` has its leases on that
 * resource force-released by lockId — found by listing the resource's leases and matching
 * the holder's clientId — audited with actor `warden:liveness` and the reason, counted
 * and published like an operator's force-release. A reconnect anywhere removes the gone
 * entry, and every release first checks that the same gone period is still on.
 */
export class LivenessMonitor {
  private readonly client: Redis | Cluster;
  private readonly scripts: Scripted;
  private readonly everyMs: number;
  private readonly ttlMs: number;
  private readonly sweepEveryMs: number;
  private readonly counts = new Map<string, number>();
  private resync = true;
  private beatTimer: NodeJS.Timeout | null = null;
  private sweepTimer: NodeJS.Timeout | null = null;
  private beating: Promise<void> | null = null;
  private sweeping: Promise<void> | null = null;
  private closed = false;
  private readonly pending = new Set<Promise<unknown>>();
  private readonly policies = new Map<string, { at: number; list: readonly Policy[] }>();
  /** Resources already handled per gone period (`member \0 since`), by this sweeper. */
  private readonly handled = new Map<string, Set<string>>();
  private readonly releases: Counter<"resource"> | null;

  constructor(private readonly options: LivenessOptions) {
    this.everyMs = options.everyMs ?? 1_000;
    this.ttlMs = options.ttlMs ?? 5_000;
    this.sweepEveryMs = options.sweepEveryMs ?? 500;
    this.client = connect(options.redis, CLIENT);
    this.client.on("error", () => undefined);
    const define = (name: string, lua: string) =>
      this.client.defineCommand(name, { numberOfKeys: 1, lua });
    define("wConnect", CONNECT_LUA);
    define("wDisconnect", DISCONNECT_LUA);
    define("wBeat", BEAT_LUA);
    define("wLeave", LEAVE_LUA);
    define("wSweep", SWEEP_LUA);
    define("wStillGone", STILL_GONE_LUA);
    define("wForget", FORGET_LUA);
    define("wLead", LEAD_LUA);
    define("wResign", RESIGN_LUA);
    this.scripts = this.client as unknown as Scripted;
    this.releases = options.metrics
      ? new Counter({
          name: "warden_disconnect_releases_total",
          help: "Leases released because their holder's SDK instance was gone past the resource's releaseOnDisconnectMs",
          labelNames: ["resource"],
          registers: [options.metrics],
        })
      : null;
  }

  /** Beats and sweeps until {@link close}. */
  start(): void {
    if (this.beatTimer || this.closed) return;
    this.client.on("ready", () => {
      this.resync = true;
      this.beat();
    });
    this.beat();
    this.beatTimer = setInterval(() => this.beat(), this.everyMs);
    this.beatTimer.unref();
    this.sweepTimer = setInterval(() => this.sweep(), this.sweepEveryMs);
    this.sweepTimer.unref();
  }

  /** A lock connection of `(tenantId, clientId)` is open on this instance. */
  connected(tenantId: string, clientId: string): void {
    if (this.closed) return;
    const member = memberOf(tenantId, clientId);
    const count = (this.counts.get(member) ?? 0) + 1;
    this.counts.set(member, count);
    if (count === 1)
      this.write(() => this.scripts.wConnect(INSTS, PREFIX, this.id, this.ttlMs, member));
  }

  /** A lock connection {@link connected} before has closed. */
  disconnected(tenantId: string, clientId: string): void {
    if (this.closed) return;
    const member = memberOf(tenantId, clientId);
    const count = (this.counts.get(member) ?? 0) - 1;
    if (count > 0) {
      this.counts.set(member, count);
      return;
    }
    this.counts.delete(member);
    this.write(() => this.scripts.wDisconnect(INSTS, PREFIX, this.id, member));
  }

  /** Runs one sweep now (as the timer does), if this instance holds the sweeper's lease. */
  async sweepNow(): Promise<void> {
    this.sweep();
    await this.sweeping;
  }

  /** Stops; this instance's clients become gone now unless connected elsewhere. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.beatTimer) clearInterval(this.beatTimer);
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    await Promise.allSettled([this.beating, this.sweeping, ...this.pending]);
    await Promise.allSettled([
      this.scripts.wLeave(INSTS, PREFIX, this.id),
      this.scripts.wResign(SWEEPER, this.id),
    ]);
    this.client.disconnect();
  }

  /** The instance this monitor records connections for. */
  get id(): string {
    return this.options.instanceId;
  }

  private write(run: () => Promise<unknown>): void {
    const promise = run().catch(() => {
      // Not recorded: the next beat writes this instance's whole set.
      this.resync = true;
    });
    this.pending.add(promise);
    void promise.finally(() => this.pending.delete(promise));
  }

  private beat(): void {
    if (this.beating || this.closed) return;
    this.beating = this.beatOnce()
      .catch((error: unknown) => {
        this.resync = true;
        this.options.logger.debug({ err: error }, "liveness beat failed");
      })
      .finally(() => {
        this.beating = null;
      });
  }

  private async beatOnce(): Promise<void> {
    // Writes in flight first: a resync must not be overtaken by an older write.
    await Promise.allSettled([...this.pending]);
    const resync = this.resync;
    this.resync = false;
    const members = resync ? [...this.counts.keys()] : [];
    const ok = await this.scripts.wBeat(
      INSTS,
      PREFIX,
      this.id,
      this.ttlMs,
      resync ? "1" : "0",
      ...members,
    );
    if (ok === 0) {
      // The record lapsed (a stall longer than its TTL) and may have been swept: rewrite it.
      await this.scripts.wBeat(INSTS, PREFIX, this.id, this.ttlMs, "1", ...this.counts.keys());
    }
  }

  private sweep(): void {
    if (this.sweeping || this.closed) return;
    this.sweeping = this.sweepOnce()
      .catch((error: unknown) => {
        this.options.logger.warn({ err: error }, "liveness sweep failed");
      })
      .finally(() => {
        this.sweeping = null;
      });
  }

  private async sweepOnce(): Promise<void> {
    const lead = await this.scripts.wLead(SWEEPER, this.id, this.sweepEveryMs * 4 + 2_000);
    if (lead !== 1) {
      this.handled.clear();
      return;
    }
    const [nowRaw, flat] = (await this.scripts.wSweep(INSTS, PREFIX, SWEEP_LIMIT)) as [
      number,
      string[],
    ];
    const now = Number(nowRaw);
    const gone: { member: string; since: number }[] = [];
    for (let i = 0; i + 1 < flat.length; i += 2) {
      gone.push({ member: flat[i]!, since: Number(flat[i + 1]) });
    }
    const periods = new Set(gone.map((g) => `${g.member}\0${g.since}`));
    for (const period of this.handled.keys()) if (!periods.has(period)) this.handled.delete(period);
    if (gone.length === 0) return;
    const byTenant = new Map<string, { clientId: string; member: string; since: number }[]>();
    for (const entry of gone) {
      const { tenantId, clientId } = splitMember(entry.member);
      const list = byTenant.get(tenantId) ?? [];
      list.push({ clientId, ...entry });
      byTenant.set(tenantId, list);
    }
    for (const [tenantId, clients] of byTenant) {
      if (this.closed) return;
      await this.sweepTenant(tenantId, clients, now);
    }
  }

  /**
   * The tenant's opted-in resources, cached for a second; `fresh` reads them now (a resource
   * registered after the cached read is then known).
   */
  private async policiesOf(tenantId: string, fresh = false): Promise<readonly Policy[]> {
    const cached = this.policies.get(tenantId);
    const at = Date.now();
    if (!fresh && cached && at - cached.at < POLICY_CACHE_MS) return cached.list;
    const rows = await this.options.prisma.resource.findMany({
      // Lock leases only: a semaphore's permits end at their TTL (decision 0150).
      where: { tenantId, kind: "mutex", retiredAt: null, releaseOnDisconnectMs: { not: null } },
      select: { name: true, releaseOnDisconnectMs: true },
    });
    const list = rows.map((row) => ({ name: row.name, graceMs: row.releaseOnDisconnectMs ?? 0 }));
    if (this.policies.size > 10_000) this.policies.clear();
    this.policies.set(tenantId, { at, list });
    return list;
  }

  private async sweepTenant(
    tenantId: string,
    clients: readonly { clientId: string; member: string; since: number }[],
    now: number,
  ): Promise<void> {
    const policies = await this.policiesOf(tenantId);
    // Which resources are due for which client (not handled yet in this gone period).
    const due = new Map<string, { clientId: string; member: string; since: number }[]>();
    for (const client of clients) {
      const handled = this.handled.get(`${client.member}\0${client.since}`);
      for (const policy of policies) {
        if (client.since + policy.graceMs > now || handled?.has(policy.name)) continue;
        const list = due.get(policy.name) ?? [];
        list.push(client);
        due.set(policy.name, list);
      }
    }
    for (const [resource, waiting] of due) {
      const policy = policies.find((p) => p.name === resource)!;
      const byClient = new Map(waiting.map((client) => [client.clientId, client]));
      const leases = await this.leasesOf(resource, (lease) => byClient.has(lease.holder.clientId));
      for (const lease of leases) {
        const client = byClient.get(lease.holder.clientId)!;
        await this.release(lease, client, policy, now);
      }
      for (const client of waiting) {
        const period = `${client.member}\0${client.since}`;
        const set = this.handled.get(period) ?? new Set<string>();
        set.add(resource);
        this.handled.set(period, set);
      }
    }
    // A client gone past every opted-in resource's grace is done with — judged on a list read
    // after the sweep began: the cached one may predate a resource the client locked just
    // before it left, and forgetting it on that list would never release that lock. A list
    // that changed is used from the next sweep on (the client stays gone until then).
    const done = (list: readonly Policy[]) => {
      const max = list.reduce((m, policy) => Math.max(m, policy.graceMs), -1);
      return clients.filter((client) => client.since + max <= now || list.length === 0);
    };
    if (done(policies).length === 0) return;
    const current = await this.policiesOf(tenantId, true);
    const same =
      current.length === policies.length &&
      current.every((policy) =>
        policies.some((p) => p.name === policy.name && p.graceMs === policy.graceMs),
      );
    if (!same) return;
    for (const client of done(current)) {
      await this.scripts.wForget(INSTS, PREFIX, client.member, client.since);
      this.handled.delete(`${client.member}\0${client.since}`);
    }
  }

  private async leasesOf(
    resource: string,
    wanted: (lease: LeaseView) => boolean,
  ): Promise<LeaseView[]> {
    const found: LeaseView[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < MAX_PAGES; page += 1) {
      const result: { leases: LeaseView[]; cursor: string | null } = await this.options.locks.list({
        resource,
        limit: PAGE,
        ...(cursor === null ? {} : { cursor }),
      });
      for (const lease of result.leases) if (wanted(lease)) found.push(lease);
      cursor = result.cursor;
      if (cursor === null) break;
    }
    return found;
  }

  private async release(
    lease: LeaseView,
    client: { clientId: string; member: string; since: number },
    policy: Policy,
    now: number,
  ): Promise<void> {
    // The last word: a reconnect since the sweep read the entry keeps the locks.
    const still = await this.scripts.wStillGone(INSTS, PREFIX, client.member, client.since);
    if (still !== 1) return;
    const key = { resource: lease.resource, businessKey: lease.businessKey };
    const goneMs = Math.max(0, now - client.since);
    const reason =
      `holder disconnected: SDK instance ${client.clientId} had no lock connection for ` +
      `${goneMs} ms (releaseOnDisconnectMs ${policy.graceMs})`;
    const done = this.options.hub.attribute(key, LIVENESS_ACTOR, reason.slice(0, 500));
    try {
      const removed = await this.options.locks.forceRelease({ ...key, lockId: lease.lockId });
      if (removed) this.releases?.inc({ resource: lease.resource });
      this.options.logger.info(
        {
          op: "force-release",
          ...key,
          lockId: lease.lockId,
          fence: removed?.fence ?? null,
          clientId: client.clientId,
          ownerId: lease.holder.ownerId,
          actor: LIVENESS_ACTOR,
          goneMs,
        },
        removed ? "lease released: holder disconnected" : "disconnect release found no lease",
      );
    } finally {
      done();
    }
  }
}
