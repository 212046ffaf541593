import { randomUUID } from "node:crypto";
import type { Holder, LockKey, Tier } from "@warden/contract";
import type { PrismaClient } from "@warden/db";
import type { Logger } from "pino";
import type { TieredLocks } from "../locks/tiered-locks-port.js";
import { liveHolds, type LiveHoldSources } from "../metrics/live-holds.js";
import type { AlertMetrics } from "./alert-metrics.js";
import { advance, isDue, signature, type Notified } from "./alert-state.js";
import { AlertStore, StaleEvaluatorError } from "./alert-store.js";
import type { AlertRecord } from "./alert-types.js";
import {
  CONDITION_DEFAULTS,
  evaluateConditions,
  type ConditionInputs,
  type ConditionSettings,
  type EventInput,
} from "./conditions.js";
import { deliver, RETRY_DEFAULTS, type RetryPolicy } from "./deliver.js";
import { alertmanagerBody, jsonBody } from "./payloads.js";
import type { SpoolReports } from "./spool-reports.js";
import type { WebhookConfig } from "./webhook-config.js";

/** The lock whose holder evaluates alerts for the fleet. */
export const EVALUATOR_LOCK: LockKey = { resource: "warden:alerts", businessKey: "evaluator" };

// An SDK instance that heartbeated this recently counts as running.
const CLIENT_SEEN_MS = 120_000;
const EVENT_TYPES = ["stale-fence", "expired", "renewal-refused"];

/** What {@link AlertEvaluator} needs. */
export interface AlertEvaluatorOptions {
  /** This instance's id: the spool report's name and part of the lock holder. */
  readonly instanceId: string;
  readonly locks: TieredLocks;
  readonly prisma: PrismaClient;
  /** The live holds of every kind: leases, permit grants, read-write grants (decision 0194). */
  readonly holds: LiveHoldSources;
  /** This instance's audit spool. */
  readonly spool: () => { readonly events: number; readonly full: boolean };
  /** Where every instance reports its spool; without it the evaluator sees its own only. */
  readonly spoolReports?: SpoolReports;
  readonly metrics: AlertMetrics;
  readonly logger: Logger;
  readonly webhooks: readonly WebhookConfig[];
  /** The console's base URL, for links in notifications. */
  readonly consoleUrl?: string | null;
  /** How often conditions are evaluated (and the lock is tried), in ms. @defaultValue 10 000 */
  readonly evaluateEveryMs?: number;
  /** The evaluator lock's lease, renewed every third of it, in ms. @defaultValue 15 000 */
  readonly leaseMs?: number;
  readonly retry?: Partial<RetryPolicy>;
  /**
   * After a notification is given up on, the webhook is left alone this long, then sent
   * everything still due again, in ms. @defaultValue 60 000
   */
  readonly failureCooldownMs?: number;
  readonly conditions?: Partial<ConditionSettings>;
}

interface Term {
  readonly lockId: string;
  readonly fence: string | null;
  readonly tier: Tier;
  readonly abort: AbortController;
}

/**
 * Evaluates alert conditions for the whole fleet on the one instance that holds
 * {@link EVALUATOR_LOCK} — a lease taken through the server's own tiered locks and
 * renewed every third of it; when a renewal fails the instance stops evaluating and
 * delivering at once, and any instance takes the lock once its lease lapses. The state
 * goes to MySQL (`alert_state`) for `alert.list` on every instance; notifications go to
 * the configured webhooks, once per state change and again every `repeatMs` while
 * firing (docs/decisions/0130).
 */
export class AlertEvaluator {
  private readonly store: AlertStore;
  private readonly holder: Holder;
  private readonly everyMs: number;
  private readonly leaseMs: number;
  private readonly retry: RetryPolicy;
  private readonly settings: ConditionSettings;
  private term: Term | null = null;
  private records = new Map<string, AlertRecord>();
  /** The signature of each alert as last written to MySQL. */
  private saved = new Map<string, string>();
  private told = new Map<string, Map<string, Notified>>();
  private readonly sending = new Set<string>();
  /** Webhooks given up on recently, until when they are left alone. */
  private readonly coolUntil = new Map<string, number>();
  private readonly pending = new Set<Promise<unknown>>();
  private tickTimer: NodeJS.Timeout | undefined;
  private renewTimer: NodeJS.Timeout | undefined;
  private ticking = false;
  private stopped = false;

  constructor(private readonly options: AlertEvaluatorOptions) {
    this.store = new AlertStore(options.prisma);
    this.holder = {
      clientId: `warden-server:${options.instanceId}:${randomUUID().slice(0, 8)}`.slice(0, 128),
      ownerId: "alert-evaluator",
    };
    this.everyMs = options.evaluateEveryMs ?? 10_000;
    this.leaseMs = options.leaseMs ?? 15_000;
    this.retry = { ...RETRY_DEFAULTS, ...options.retry };
    this.settings = { ...CONDITION_DEFAULTS, ...options.conditions };
  }

  /** True while this instance evaluates for the fleet. */
  get active(): boolean {
    return this.term !== null;
  }

  start(): void {
    this.options.metrics.setEvaluator(false);
    this.tickTimer = setInterval(() => void this.tick(), this.everyMs);
    this.tickTimer.unref();
    this.renewTimer = setInterval(() => void this.renew(), Math.max(100, this.leaseMs / 3));
    this.renewTimer.unref();
    void this.tick();
  }

  /** One round: report the spool, take the lock if free, evaluate and notify if held. */
  async tick(): Promise<void> {
    if (this.ticking || this.stopped) return;
    this.ticking = true;
    try {
      await this.reportSpool();
      if (this.term === null) await this.tryAcquire();
      const term = this.term;
      if (term !== null) await this.evaluate(term);
    } catch (error) {
      this.options.logger.warn({ err: error }, "alert evaluation failed");
    } finally {
      this.ticking = false;
    }
  }

  /**
   * Stops evaluating. `release: false` leaves the lease to lapse, as a crashed instance
   * would (tests); otherwise the lock is released so another instance takes over at once.
   */
  async close({ release = true }: { release?: boolean } = {}): Promise<void> {
    this.stopped = true;
    clearInterval(this.tickTimer);
    clearInterval(this.renewTimer);
    const term = this.term;
    this.lose("closing");
    if (release && term !== null)
      await this.options.locks
        .release({ ...EVALUATOR_LOCK, lockId: term.lockId, tier: term.tier })
        .catch(() => undefined);
    await Promise.allSettled([...this.pending]);
  }

  private async reportSpool(): Promise<void> {
    await this.options.spoolReports
      ?.report(this.options.instanceId, this.options.spool())
      .catch(() => undefined);
  }

  private async tryAcquire(): Promise<void> {
    const result = await this.options.locks
      .acquire(
        { ...EVALUATOR_LOCK, holder: this.holder, leaseMs: this.leaseMs },
        // While no shared tier grants, every instance evaluates for itself: duplicate pages
        // beat none when the fleet cannot coordinate.
        { degrade: true, localFallback: "allow", waitReplicas: 0 },
      )
      .catch(() => null);
    if (result === null || !result.granted || this.stopped) return;
    const term: Term = {
      lockId: result.lockId,
      fence: result.fence,
      tier: result.tier,
      abort: new AbortController(),
    };
    this.term = term;
    this.options.metrics.setEvaluator(true);
    this.options.logger.info(
      { lockId: result.lockId, fence: result.fence, tier: result.tier },
      "alert evaluator: this instance evaluates alerts for the fleet",
    );
    // Start from what the previous evaluator stored, so nothing is announced twice.
    const stored = await this.store.load().catch((error: unknown) => {
      this.options.logger.warn({ err: error }, "alert evaluator: stored alerts unreadable");
      return new Map<string, AlertRecord>();
    });
    if (this.term !== term) return;
    this.records = stored;
    this.saved = new Map([...stored].map(([id, record]) => [id, signature(record)]));
    this.told = new Map(
      this.options.webhooks.map((hook) => [
        hook.name,
        new Map(
          [...stored.values()].flatMap((record): [string, Notified][] =>
            record.notifiedStatus === null || record.notifiedAt === null
              ? []
              : [[record.id, { status: record.notifiedStatus, at: record.notifiedAt }]],
          ),
        ),
      ]),
    );
  }

  private async renew(): Promise<void> {
    const term = this.term;
    if (term === null) return;
    try {
      await this.options.locks.extend({
        ...EVALUATOR_LOCK,
        lockId: term.lockId,
        tier: term.tier,
        leaseMs: this.leaseMs,
      });
    } catch (error) {
      if (this.term === term) this.lose(error instanceof Error ? error.message : String(error));
    }
  }

  private lose(reason: string): void {
    const term = this.term;
    if (term === null) return;
    this.term = null;
    term.abort.abort();
    this.records = new Map();
    this.saved = new Map();
    this.told = new Map();
    this.options.metrics.setEvaluator(false);
    this.options.metrics.setFiring({ critical: 0, warning: 0, info: 0 });
    if (!this.stopped)
      this.options.logger.warn({ reason }, "alert evaluator: lock lost, evaluation stopped");
  }

  private async inputs(now: number): Promise<ConditionInputs> {
    const { prisma, locks } = this.options;
    const read = <T>(what: string, promise: Promise<T>): Promise<T | null> =>
      promise.catch((error: unknown) => {
        this.options.logger.warn({ err: error, what }, "alert evaluator: input unreadable");
        return null;
      });
    const holds = [...liveHolds(this.options.holds)].map((hold) => ({
      resource: hold.resource,
      businessKey: hold.businessKey,
      lockId: hold.lockId,
      fence: hold.fence,
      clientId: hold.holder.clientId,
      ownerId: hold.holder.ownerId,
      grantedAt: hold.grantedAt,
      kind: hold.kind,
      mode: hold.mode,
    }));
    const windowMs = Math.max(this.settings.staleFenceWindowMs, this.settings.renewalWindowMs);
    const [events, clients, reported] = await Promise.all([
      read(
        "events",
        prisma.lockEvent.findMany({
          where: { type: { in: EVENT_TYPES }, at: { gte: new Date(now - windowMs) } },
          select: {
            type: true,
            tenantId: true,
            resource: true,
            fence: true,
            clientId: true,
            lockId: true,
            at: true,
          },
          orderBy: { at: "desc" },
          take: 2_000,
        }),
      ),
      read(
        "clients",
        prisma.clientInstance.findMany({
          where: {
            lastSeenAt: { gte: new Date(now - CLIENT_SEEN_MS) },
            OR: [{ tier: "local" }, { localSince: { not: null } }],
          },
          select: { tenantId: true, clientId: true, localSince: true, lastSeenAt: true },
          take: 1_000,
        }),
      ),
      this.options.spoolReports
        ? read("spools", this.options.spoolReports.read(now))
        : Promise.resolve([]),
    ]);
    const eventInputs: EventInput[] | null =
      events?.map((event) => ({
        type: event.type,
        tenantId: event.tenantId,
        resource: event.resource,
        fence: event.fence === null ? null : event.fence.toString(),
        clientId: event.clientId,
        lockId: event.lockId,
        at: event.at.getTime(),
      })) ?? null;
    const names = new Set([
      ...holds.map((hold) => hold.resource),
      ...(eventInputs ?? []).map((event) => event.resource),
    ]);
    const rows = await read(
      "resources",
      prisma.resource.findMany({
        where: { name: { in: [...names].slice(0, 5_000) } },
        select: { name: true, tenantId: true, expectedHoldMs: true },
      }),
    );
    const own = { instanceId: this.options.instanceId, ...this.options.spool() };
    const spools =
      reported === null ? [own] : [...reported.filter((s) => s.instanceId !== own.instanceId), own];
    const snapshot = locks.snapshot();
    return {
      now,
      tier: { tier: snapshot.tier, since: snapshot.since, reason: snapshot.reason },
      holds,
      resources:
        rows === null
          ? null
          : new Map(
              rows.map((row) => [
                row.name,
                { tenantId: row.tenantId, expectedHoldMs: row.expectedHoldMs },
              ]),
            ),
      events: eventInputs,
      localClients:
        clients?.map((client) => ({
          tenantId: client.tenantId,
          clientId: client.clientId,
          since: (client.localSince ?? client.lastSeenAt).getTime(),
        })) ?? null,
      spools,
    };
  }

  private async evaluate(term: Term): Promise<void> {
    const now = Date.now();
    const input = await this.inputs(now);
    if (this.term !== term) return;
    const next = advance(this.records, evaluateConditions(input, this.settings), now);
    // An alert counts as announced once every webhook was told its status.
    const hooks = this.options.webhooks;
    for (const [id, record] of next) {
      if (hooks.length === 0) continue;
      const told = hooks.map((hook) => this.told.get(hook.name)?.get(id));
      if (told.every((t) => t !== undefined && t.status === record.status)) {
        const at = Math.max(...told.map((t) => t?.at ?? 0));
        if (record.notifiedStatus !== record.status || record.notifiedAt !== at)
          next.set(id, { ...record, notifiedStatus: record.status, notifiedAt: at });
      }
    }
    const dropped = [...this.records.keys()].filter((id) => !next.has(id));
    this.records = next;
    for (const id of dropped) for (const told of this.told.values()) told.delete(id);
    const counts = { critical: 0, warning: 0, info: 0 };
    for (const record of next.values())
      if (record.status === "firing") counts[record.severity] += 1;
    this.options.metrics.setFiring(counts);
    for (const hook of hooks) this.notify(term, hook, now);
    await this.persist(term, dropped);
  }

  private async persist(term: Term, dropped: readonly string[]): Promise<void> {
    const changed = [...this.records.values()].filter(
      (record) => this.saved.get(record.id) !== signature(record),
    );
    const gone = dropped.filter((id) => this.saved.has(id));
    if (changed.length === 0 && gone.length === 0) return;
    // Written only while this instance still holds the lock.
    if (this.term !== term) return;
    try {
      await this.store.save(changed, gone, { fence: term.fence, holder: this.holder.clientId });
      for (const record of changed) this.saved.set(record.id, signature(record));
      for (const id of gone) this.saved.delete(id);
    } catch (error) {
      if (error instanceof StaleEvaluatorError) {
        if (this.term === term) this.lose(error.message);
        return;
      }
      this.options.logger.warn({ err: error }, "alert evaluator: saving alerts failed");
    }
  }

  /**
   * Starts one notification to `hook` of every alert due for it, unless one is under way
   * or the webhook is cooling down after a notification it was given up on.
   */
  private notify(term: Term, hook: WebhookConfig, now: number): void {
    if (this.sending.has(hook.name) || now < (this.coolUntil.get(hook.name) ?? 0)) return;
    const told = this.told.get(hook.name) ?? new Map<string, Notified>();
    this.told.set(hook.name, told);
    const due = [...this.records.values()].filter((record) =>
      isDue(record, told.get(record.id), now, hook.repeatMs),
    );
    if (due.length === 0) return;
    const consoleUrl = this.options.consoleUrl ?? null;
    const body =
      hook.format === "alertmanager"
        ? alertmanagerBody(due, now, hook.repeatMs, consoleUrl)
        : jsonBody(due, now, consoleUrl);
    this.sending.add(hook.name);
    const run = (async () => {
      const result = await deliver(hook, body, this.retry, term.abort.signal, (outcome) =>
        this.options.metrics.delivery(hook.name, outcome),
      );
      if (result === null || this.term !== term) return;
      if (result.delivered) {
        for (const record of due) told.set(record.id, { status: record.status, at: now });
      } else {
        // Still due: sent again, with whatever else is due by then, after a cool-down.
        this.coolUntil.set(hook.name, Date.now() + (this.options.failureCooldownMs ?? 60_000));
        this.options.logger.warn(
          { webhook: hook.name, attempts: result.attempts, error: result.error },
          "alert delivery failed",
        );
      }
      await this.store.recordDelivery(hook, result, Date.now()).catch((error: unknown) => {
        this.options.logger.warn({ err: error }, "alert evaluator: delivery not recorded");
      });
    })()
      .catch((error: unknown) => this.options.logger.warn({ err: error }, "alert delivery"))
      .finally(() => {
        this.sending.delete(hook.name);
        this.pending.delete(run);
      });
    this.pending.add(run);
  }
}
