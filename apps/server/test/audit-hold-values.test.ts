import { format } from "mysql2";
import { describe, expect, test } from "vitest";
import { holdValues, INSERT_HOLDS } from "../src/audit/audit-insert.js";
import { holdPart, type HoldPart } from "../src/audit/audit-record.js";

// What insertHoldBatch sent before it wrote the VALUES list itself: mysql2's own formatting
// of one array per part, times as Date objects, on a pool with timezone "Z".
function viaMysql2(batch: readonly HoldPart[]): string {
  const date = (ms: number | null) => (ms === null ? null : new Date(ms));
  const rows = batch.map((p) => [
    p.id,
    p.lockId,
    p.tenantId,
    p.resource,
    p.businessKey,
    p.fence,
    p.clientId,
    p.ownerId,
    p.tier,
    p.leaseMs,
    p.reentries,
    p.renewals,
    date(p.grantedAt),
    date(p.renewedAt),
    p.renewLeaseMs,
    date(p.expiresAt),
    date(p.endedAt),
    p.endType,
    p.actor,
    p.reason,
    p.primitive ?? null,
    p.permits ?? null,
  ]);
  return format(INSERT_HOLDS, [rows], false, "Z");
}

const TEXTS = [
  "plain",
  "",
  "it's",
  'say "hi"',
  "back\\slash",
  "nul\0byte",
  "tab\there",
  "line\nbreak\r\n",
  "ctrl-z\x1a",
  "bs\b",
  "?",
  "Zürich 東京 🔒",
  "\ud800 lone surrogate",
  "'; DROP TABLE lock_hold; --",
];

const TIMES = [
  0,
  1,
  999,
  1_764_576_000_000,
  1_764_576_000_123,
  -1,
  -62_198_755_200_000,
  253_402_300_799_999,
  253_402_300_800_000,
  Number.NaN,
  8.64e15 + 1,
];

function parts(): HoldPart[] {
  const out: HoldPart[] = [];
  TEXTS.forEach((text, index) => {
    const time = TIMES[index % TIMES.length]!;
    const part = holdPart(
      `lock${String(index).padStart(18, "0")}`,
      index % 3 === 0 ? null : `tenant-${text}`,
      `res.${index}`,
      text,
      1_764_576_000_000 + index,
    );
    part.fence = index % 4 === 0 ? null : String(2 ** 53 - index);
    part.clientId = index % 5 === 0 ? null : `client ${text}`;
    part.ownerId = text;
    part.tier = index % 2 === 0 ? "redis" : null;
    part.leaseMs = index % 3 === 1 ? null : 10_000 + index;
    part.reentries = 1 + (index % 3);
    part.renewals = index;
    part.grantedAt = index % 6 === 5 ? null : time;
    part.renewedAt = index % 2 === 0 ? null : TIMES[(index + 3) % TIMES.length]!;
    part.renewLeaseMs = index % 2 === 0 ? null : 5_000;
    part.expiresAt = TIMES[(index + 1) % TIMES.length]!;
    part.endedAt = index % 7 === 6 ? null : TIMES[(index + 2) % TIMES.length]!;
    part.endType = index % 7 === 6 ? null : "released";
    part.actor = index % 4 === 1 ? `op ${text}` : null;
    part.reason = index % 4 === 1 ? `why: ${text}` : null;
    part.primitive = index % 3 === 2 ? "semaphore" : null;
    part.permits = index % 3 === 2 ? 1 + index : null;
    out.push(part);
  });
  return out;
}

describe("the holds' VALUES list", () => {
  test("is byte for byte what mysql2 formats from the rows", () => {
    const batch = parts();
    const expected = viaMysql2(batch);
    const head = INSERT_HOLDS.slice(0, INSERT_HOLDS.indexOf("?"));
    const tail = INSERT_HOLDS.slice(INSERT_HOLDS.indexOf("?") + 1);
    expect(head + holdValues(batch) + tail).toBe(expected);
    // One part at a time too (no state carried between rows or batches).
    for (const part of batch) {
      expect(head + holdValues([part]) + tail).toBe(viaMysql2([part]));
    }
  });

  test("a part spooled before `primitive` and `permits` existed is a mutex hold: NULL, NULL", () => {
    const part = holdPart("lock000000000000000001", "t", "r", "k", 1_764_576_000_000);
    part.grantedAt = 1_764_576_000_000;
    const { primitive: _primitive, permits: _permits, ...old } = part;
    const replayed = JSON.parse(JSON.stringify(old)) as HoldPart;
    expect("primitive" in replayed || "permits" in replayed).toBe(false);
    expect(holdValues([replayed])).toMatch(/, NULL, NULL\)$/);
    expect(holdValues([replayed])).toBe(holdValues([part]));
  });

  test("a batch sharing its times formats each the same way", () => {
    const batch = Array.from({ length: 50 }, (_, index) => {
      const part = holdPart(
        `lock${String(index).padStart(18, "0")}`,
        "t",
        "r",
        `k${index}`,
        1_764_576_000_000,
      );
      part.grantedAt = 1_764_576_000_000 + (index >> 3);
      part.expiresAt = part.grantedAt + 10_000;
      part.endedAt = part.grantedAt + 2;
      part.endType = "released";
      return part;
    });
    const head = INSERT_HOLDS.slice(0, INSERT_HOLDS.indexOf("?"));
    const tail = INSERT_HOLDS.slice(INSERT_HOLDS.indexOf("?") + 1);
    expect(head + holdValues(batch) + tail).toBe(viaMysql2(batch));
  });
});
