import type { HoldersCommand, ReleaseCommand, TierCommand, WaitersCommand } from "./args.js";
import type { AdminClient } from "./admin-client.js";
import { formatMs } from "./duration.js";
import { EXIT } from "./exit-codes.js";

/** Where commands write; the process's streams in `main`. */
export interface Output {
  out(line: string): void;
  err(line: string): void;
}

/** Formats rows as aligned columns under a header. */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i]!)))
      .join("  ")
      .trimEnd();
  return [line(header), ...rows.map(line)];
}

function age(since: number | null | undefined, now: number): string {
  return typeof since === "number" ? formatMs(Math.max(0, Math.round(now - since))) : "-";
}

/** `warden holders`: every live holder of a resource (all pages), or of one key. */
export async function holders(
  client: AdminClient,
  cmd: HoldersCommand,
  io: Output,
): Promise<number> {
  const all = [];
  let cursor: string | undefined;
  let tier = "";
  do {
    const page = await client.api.holder.list.query({
      resource: cmd.resource,
      ...(cmd.businessKey === undefined ? {} : { businessKey: cmd.businessKey }),
      ...(cursor === undefined ? {} : { cursor }),
    });
    all.push(...page.holders);
    tier = page.currentTier;
    cursor = page.cursor ?? undefined;
  } while (cursor !== undefined);
  if (cmd.json) {
    io.out(JSON.stringify({ holders: all, currentTier: tier }));
    return EXIT.ok;
  }
  if (all.length === 0) {
    io.out(
      `no holders of ${cmd.resource}${cmd.businessKey === undefined ? "" : ` ${cmd.businessKey}`} (tier ${tier})`,
    );
    return EXIT.ok;
  }
  const now = Date.now();
  const rows = all.map((h) => [
    h.businessKey,
    h.fence ?? "-",
    h.lockId,
    h.holder.clientId,
    h.holder.ownerId,
    h.tier,
    age(h.grantedAt, now),
    formatMs(Math.max(0, h.ttlMs)),
  ]);
  for (const line of table(
    ["KEY", "FENCE", "LOCK ID", "CLIENT", "OWNER", "TIER", "HELD", "TTL"],
    rows,
  )) {
    io.out(line);
  }
  return EXIT.ok;
}

/** `warden waiters`: callers queued on the server for a resource or key, in queue order. */
export async function waiters(
  client: AdminClient,
  cmd: WaitersCommand,
  io: Output,
): Promise<number> {
  const result = await client.api.holder.waiters.query({
    resource: cmd.resource,
    ...(cmd.businessKey === undefined ? {} : { businessKey: cmd.businessKey }),
  });
  if (cmd.json) {
    io.out(JSON.stringify(result));
    return EXIT.ok;
  }
  if (result.waiters.length === 0) {
    io.out(
      `no waiters for ${cmd.resource}${cmd.businessKey === undefined ? "" : ` ${cmd.businessKey}`}`,
    );
    return EXIT.ok;
  }
  const rows = result.waiters.map((w) => [
    w.businessKey,
    String(w.position),
    w.clientId,
    w.ownerId,
    formatMs(Math.max(0, Math.round(w.waitedMs))),
  ]);
  for (const line of table(["KEY", "POSITION", "CLIENT", "OWNER", "WAITED"], rows)) io.out(line);
  return EXIT.ok;
}

/** `warden release --force`: an operator removes a lease, with an audited reason. */
export async function forceRelease(
  client: AdminClient,
  cmd: ReleaseCommand,
  io: Output,
): Promise<number> {
  const result = await client.api.holder.forceRelease.mutate({
    resource: cmd.resource,
    businessKey: cmd.businessKey,
    reason: cmd.reason,
    ...(cmd.lockId === undefined ? {} : { lockId: cmd.lockId }),
  });
  if (cmd.json) {
    io.out(JSON.stringify(result));
  } else if (result.removed) {
    io.out(
      `released ${cmd.resource} ${cmd.businessKey}: lock ${result.removed.lockId} (fence ${result.removed.fence ?? "-"}) of ${result.removed.holder.clientId}`,
    );
  } else {
    io.out(
      `no lease on ${cmd.resource} ${cmd.businessKey}${cmd.lockId === undefined ? "" : ` with lock ${cmd.lockId}`}: nothing released`,
    );
  }
  return EXIT.ok;
}

/** `warden tier`: the tier in force, its epoch, since when and why. */
export async function tier(client: AdminClient, cmd: TierCommand, io: Output): Promise<number> {
  const state = await client.api.tier.state.query();
  if (cmd.json) {
    io.out(JSON.stringify(state));
    return EXIT.ok;
  }
  io.out(
    `tier     ${state.tier}${state.forced ? " (forced)" : ""}${state.decidedAlone ? " (decided alone: MySQL unreachable)" : ""}`,
  );
  io.out(`since    ${new Date(state.since).toISOString()} (${age(state.since, Date.now())} ago)`);
  io.out(`epoch    ${state.epoch}`);
  io.out(`reason   ${state.reason}`);
  io.out(`by       ${state.actor} on ${state.instanceId}`);
  return EXIT.ok;
}
