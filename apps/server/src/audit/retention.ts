import type { PrismaClient } from "@warden/db";

// Small batches keep each DELETE short, so the audit writer's inserts never wait long.
const BATCH = 5_000;

/** Deletes audit events older than `retentionDays`, in batches; returns how many. */
export async function pruneAudit(prisma: PrismaClient, retentionDays: number): Promise<number> {
  const cutoff = new Date(Date.now() - retentionDays * 86_400_000);
  let total = 0;
  for (;;) {
    const deleted =
      await prisma.$executeRaw`DELETE FROM lock_event WHERE at < ${cutoff} LIMIT ${BATCH}`;
    total += deleted;
    if (deleted < BATCH) return total;
  }
}
