import type { PrismaClient } from "@warden/db";
import type { AlertKind, AlertRecord, AlertSeverity, AlertStatus } from "./alert-types.js";
import type { DeliveryResult } from "./deliver.js";
import type { WebhookConfig } from "./webhook-config.js";

type Row = Awaited<ReturnType<PrismaClient["alertState"]["findMany"]>>[number];

function labelsOf(text: string): Record<string, string> {
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed !== "object" || parsed === null) return {};
    return Object.fromEntries(
      Object.entries(parsed).filter(
        (entry): entry is [string, string] => typeof entry[1] === "string",
      ),
    );
  } catch {
    return {};
  }
}

function recordOf(row: Row): AlertRecord {
  return {
    id: row.id,
    kind: row.kind as AlertKind,
    severity: row.severity as AlertSeverity,
    tenantId: row.tenantId,
    resource: row.resource,
    labels: labelsOf(row.labels),
    summary: row.summary,
    detail: row.detail,
    href: row.href,
    status: row.status as AlertStatus,
    startsAt: row.startsAt.getTime(),
    endsAt: row.endsAt?.getTime() ?? null,
    updatedAt: row.updatedAt.getTime(),
    notifiedStatus: (row.notifiedStatus as AlertStatus | null) ?? null,
    notifiedAt: row.notifiedAt?.getTime() ?? null,
  };
}

function columnsOf(record: AlertRecord) {
  return {
    kind: record.kind,
    severity: record.severity,
    tenantId: record.tenantId,
    resource: record.resource?.slice(0, 128) ?? null,
    labels: JSON.stringify(record.labels).slice(0, 2000),
    summary: record.summary.slice(0, 300),
    detail: record.detail.slice(0, 1000),
    href: record.href.slice(0, 500),
    status: record.status,
    startsAt: new Date(record.startsAt),
    endsAt: record.endsAt === null ? null : new Date(record.endsAt),
    updatedAt: new Date(record.updatedAt),
    notifiedStatus: record.notifiedStatus,
    notifiedAt: record.notifiedAt === null ? null : new Date(record.notifiedAt),
  };
}

/** A write of an evaluator that a newer holder of the evaluator lock has replaced. */
export class StaleEvaluatorError extends Error {
  override readonly name = "StaleEvaluatorError";
  constructor(readonly fence: string) {
    super(`alert evaluator with fence ${fence} was replaced by a newer one`);
  }
}

/** Who may see which alerts: operators all, a tenant key its own (under its prefix). */
export type AlertViewer =
  | { readonly kind: "operator" }
  | { readonly kind: "tenant"; readonly tenantId: string; readonly resourcePrefix: string | null };

/** Alert state and webhook health in MySQL, shared by every instance (docs/decisions/0130). */
export class AlertStore {
  constructor(private readonly prisma: PrismaClient) {}

  /** Every stored alert (the evaluator's starting point when it takes over). */
  async load(): Promise<Map<string, AlertRecord>> {
    const rows = await this.prisma.alertState.findMany();
    return new Map(rows.map((row) => [row.id, recordOf(row)]));
  }

  /**
   * Writes the changed and new alerts and deletes the dropped ones, in one transaction
   * fenced by the evaluator lock's fence: if a write with a newer fence happened, this
   * writer was deposed and {@link StaleEvaluatorError} is thrown with nothing written.
   * A null fence (LOCAL tier, no shared lock) writes unfenced.
   */
  async save(
    changed: readonly AlertRecord[],
    dropped: readonly string[],
    writer: { readonly fence: string | null; readonly holder: string },
  ): Promise<void> {
    await this.prisma.$transaction(async (tx) => {
      if (writer.fence !== null) {
        const fence = BigInt(writer.fence);
        const rows = await tx.$queryRaw<{ fence: bigint | number | string }[]>`
          SELECT fence FROM alert_evaluator_fence WHERE id = 1 FOR UPDATE`;
        const stored = rows[0] === undefined ? null : BigInt(rows[0].fence);
        if (stored !== null && stored > fence) throw new StaleEvaluatorError(writer.fence);
        const row = { fence, holder: writer.holder.slice(0, 128), updatedAt: new Date() };
        await tx.alertEvaluatorFence.upsert({
          where: { id: 1 },
          create: { id: 1, ...row },
          update: row,
          select: { id: true },
        });
      }
      for (const record of changed) {
        const columns = columnsOf(record);
        await tx.alertState.upsert({
          where: { id: record.id },
          create: { id: record.id, ...columns },
          update: columns,
          select: { id: true },
        });
      }
      if (dropped.length > 0)
        await tx.alertState.deleteMany({ where: { id: { in: [...dropped] } } });
    });
  }

  /** The alerts `viewer` may see, firing first, newest first. */
  async list(viewer: AlertViewer, limit: number): Promise<AlertRecord[]> {
    const rows = await this.prisma.alertState.findMany({
      where:
        viewer.kind === "operator"
          ? {}
          : {
              tenantId: viewer.tenantId,
              ...(viewer.resourcePrefix ? { resource: { startsWith: viewer.resourcePrefix } } : {}),
            },
      orderBy: [{ status: "asc" }, { startsAt: "desc" }],
      take: limit,
    });
    return rows.map(recordOf);
  }

  /** Records how a notification to `hook` ended. */
  async recordDelivery(hook: WebhookConfig, result: DeliveryResult, at: number): Promise<void> {
    const when = new Date(at);
    const outcome = result.delivered ? "delivered" : "failed";
    await this.prisma.alertDelivery.upsert({
      where: { webhook: hook.name },
      create: {
        webhook: hook.name,
        format: hook.format,
        lastOutcome: outcome,
        lastError: result.error,
        lastAttemptAt: when,
        lastSuccessAt: result.delivered ? when : null,
        failures: result.delivered ? 0 : 1,
        delivered: result.delivered ? 1 : 0,
      },
      update: {
        format: hook.format,
        lastOutcome: outcome,
        lastError: result.error,
        lastAttemptAt: when,
        ...(result.delivered
          ? { lastSuccessAt: when, delivered: { increment: 1 } }
          : { failures: { increment: 1 } }),
      },
      select: { webhook: true },
    });
  }

  /** Health of every webhook that was ever used. */
  async deliveries() {
    const rows = await this.prisma.alertDelivery.findMany({ orderBy: { webhook: "asc" } });
    return rows.map((row) => ({
      webhook: row.webhook,
      format: row.format,
      lastOutcome: row.lastOutcome,
      lastError: row.lastError,
      lastAttemptAt: row.lastAttemptAt.getTime(),
      lastSuccessAt: row.lastSuccessAt?.getTime() ?? null,
      failures: row.failures,
      delivered: row.delivered,
    }));
  }
}
