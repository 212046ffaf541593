import type { PrismaClient } from "@warden/db";

// Small batches keep each DELETE short, so the audit writer's inserts never wait long.
const BATCH = 5_000;

/**
 * Deletes audit events and holds older than `retentionDays`, in batches; returns how many.
 * A hold (a mutex hold or a semaphore permit grant alike) goes by its grant time (or by its
 * end, when its grant was never written).
 */
export async function pruneAudit(prisma: PrismaClient, retentionDays: number): Promise<number> {
  const cutoff = new Date(Date.now() - retentionDays * 86_400_000);
  const statements = [
    () => prisma.$executeRaw`DELETE FROM lock_event WHERE at < ${cutoff} LIMIT ${BATCH}`,
    () => prisma.$executeRaw`DELETE FROM lock_hold WHERE granted_at < ${cutoff} LIMIT ${BATCH}`,
    () =>
      prisma.$executeRaw`DELETE FROM lock_hold WHERE granted_at IS NULL AND ended_at < ${cutoff} LIMIT ${BATCH}`,
  ];
  let total = 0;
  for (const statement of statements) {
    for (;;) {
      const deleted = await statement();
      total += deleted;
      if (deleted < BATCH) break;
    }
  }
  return total;
}
