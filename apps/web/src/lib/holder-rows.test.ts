import { describe, expect, it } from "vitest";
import { holderRows, type LiveHolder } from "./holder-rows";

const STORE_AHEAD_MS = 60_000; // the browser's clock is a minute behind the store's

function lease(patch: Partial<LiveHolder> = {}): LiveHolder {
  return {
    kind: "lock",
    resource: "order:settle",
    businessKey: "o-1",
    lockId: "A".repeat(22),
    fence: "4294967301",
    holder: { clientId: "svc-a", ownerId: "job-1" },
    reentry: 1,
    // Answered at browser time 1_000_000 with 9 s left of a 10 s lease granted 1 s earlier.
    expiresAt: 1_000_000 + STORE_AHEAD_MS + 9_000,
    ttlMs: 9_000,
    tier: "redis",
    grantedAt: 1_000_000 + STORE_AHEAD_MS - 1_000,
    renewals: 2,
    expectedHoldMs: null,
    ...patch,
  };
}

describe("holderRows", () => {
  it("counts down from the store's ttl, whatever the browser's clock says", () => {
    const [row] = holderRows([lease()], 1_000_000, 1_000_000 + 4_000);
    expect(row?.countdown).toMatchObject({ text: "0:05", state: "ok" });
    expect(row?.age).toBe("5.0 s");
    expect(row?.renewals).toBe("2");
  });

  it("shows the last third of the lease as low and a passed expiry as expired", () => {
    expect(holderRows([lease()], 1_000_000, 1_000_000 + 6_500)[0]?.countdown.state).toBe("low");
    expect(holderRows([lease()], 1_000_000, 1_000_000 + 9_000)[0]?.countdown.text).toBe("expired");
  });

  it("marks holds past 3× expectedHoldMs as overdue", () => {
    expect(
      holderRows([lease({ expectedHoldMs: 500 })], 1_000_000, 1_000_000 + 600)[0]?.overdue,
    ).toBe(true);
    expect(holderRows([lease({ expectedHoldMs: 1_000 })], 1_000_000, 1_000_000)[0]?.overdue).toBe(
      false,
    );
  });

  it("says — for what another instance granted, and sorts by business key", () => {
    const rows = holderRows(
      [
        lease({ businessKey: "o-9", grantedAt: null, renewals: null }),
        lease({ businessKey: "o-2", lockId: "B".repeat(22) }),
      ],
      1_000_000,
      1_000_000,
    );
    expect(rows.map((row) => row.businessKey)).toEqual(["o-2", "o-9"]);
    expect(rows[1]).toMatchObject({ age: "—", renewals: "—", overdue: false });
  });

  it("keeps a read-write grant's kind, and lists a key's writer before its readers", () => {
    const rows = holderRows(
      [
        lease({ kind: "read", businessKey: "cfg", lockId: "R".repeat(22) }),
        lease({ kind: "write", businessKey: "cfg", lockId: "W".repeat(22) }),
        lease({ kind: "read", businessKey: "a-cfg", lockId: "Q".repeat(22) }),
      ],
      1_000_000,
      1_000_000,
    );
    expect(rows.map((row) => [row.businessKey, row.kind])).toEqual([
      ["a-cfg", "read"],
      ["cfg", "write"],
      ["cfg", "read"],
    ]);
  });
});
