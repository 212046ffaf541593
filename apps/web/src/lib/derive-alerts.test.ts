import { describe, expect, it } from "vitest";
import { deriveAlerts, type AlertInputs, type EventFact } from "./derive-alerts";

const NOW = 1_000_000;

function inputs(patch: Partial<AlertInputs> = {}): AlertInputs {
  return {
    nowMs: NOW,
    tier: { tier: "redis", sinceMs: 0, reason: "start" },
    transitions: [],
    expectedHoldMs: new Map(),
    holds: [],
    events: [],
    audit: { spooledEvents: 0, spoolFull: false },
    clients: [],
    ...patch,
  };
}

function event(type: string, patch: Partial<EventFact> = {}): EventFact {
  return {
    id: `e-${type}`,
    type,
    resource: "order:settle",
    businessKey: "o-1",
    lockId: "L".repeat(22),
    fence: "4294967301",
    clientId: "svc-a",
    atMs: NOW - 1_000,
    reason: null,
    ...patch,
  };
}

const hold = {
  resource: "order:settle",
  businessKey: "o-7",
  lockId: "H".repeat(22),
  fence: "42",
  clientId: "svc-b",
  ownerId: "job-1",
};

describe("deriveAlerts", () => {
  it("is quiet on a healthy system", () => {
    expect(deriveAlerts(inputs())).toEqual([]);
  });

  it("flags a hold only past 3× expectedHoldMs, and links to the resource", () => {
    const expectedHoldMs = new Map([["order:settle", 1_000]]);
    expect(
      deriveAlerts(inputs({ expectedHoldMs, holds: [{ ...hold, grantedAtMs: NOW - 3_000 }] })),
    ).toEqual([]);
    const [alert] = deriveAlerts(
      inputs({ expectedHoldMs, holds: [{ ...hold, grantedAtMs: NOW - 3_001 }] }),
    );
    expect(alert).toMatchObject({
      kind: "long-hold",
      severity: "warning",
      href: "/resources/order%3Asettle",
      atMs: NOW - 3_001 + 3_000,
    });
    expect(alert?.detail).toContain("fence 42");
  });

  it("makes a hold critical past 10× and ignores resources without expectedHoldMs", () => {
    const holds = [
      { ...hold, grantedAtMs: NOW - 20_000 },
      { ...hold, resource: "free", lockId: "F".repeat(22), grantedAtMs: 0 },
    ];
    const alerts = deriveAlerts(
      inputs({
        expectedHoldMs: new Map([
          ["order:settle", 1_000],
          ["free", null],
        ]),
        holds,
      }),
    );
    expect(alerts.map((a) => [a.kind, a.severity])).toEqual([["long-hold", "critical"]]);
  });

  it("turns stale-fence events into critical alerts linked to the event by fence", () => {
    const [alert] = deriveAlerts(inputs({ events: [event("stale-fence")] }));
    expect(alert).toMatchObject({
      kind: "stale-fence",
      severity: "critical",
      href: "/events?fence=4294967301",
    });
  });

  it("turns expired (renewal after loss) events into warnings linked by lockId", () => {
    const [alert] = deriveAlerts(inputs({ events: [event("expired"), event("grant")] }));
    expect(alert).toMatchObject({
      kind: "renewal-failure",
      href: `/events?lockId=${"L".repeat(22)}`,
    });
    expect(deriveAlerts(inputs({ events: [event("grant")] }))).toEqual([]);
  });

  it("raises the current non-redis tier and lists recent tier changes", () => {
    const alerts = deriveAlerts(
      inputs({
        tier: { tier: "mysql", sinceMs: NOW - 60_000, reason: "redis probe failed 3×" },
        transitions: [
          {
            id: "1",
            fromTier: "redis",
            toTier: "mysql",
            atMs: NOW - 60_000,
            reason: "probe",
            actor: "controller",
          },
          {
            id: "0",
            fromTier: "mysql",
            toTier: "redis",
            atMs: NOW - 7_200_000,
            reason: "old",
            actor: "controller",
          },
        ],
      }),
    );
    expect(alerts.map((a) => [a.kind, a.severity, a.href])).toEqual([
      ["tier", "warning", "/tier"],
      ["tier", "info", "/tier"],
    ]);
    expect(alerts[0]?.title).toContain("MYSQL");
  });

  it("makes local mode, a full audit spool and local SDK instances critical", () => {
    const alerts = deriveAlerts(
      inputs({
        tier: { tier: "local", sinceMs: NOW - 5_000, reason: "mysql down" },
        audit: { spooledEvents: 120, spoolFull: true },
        clients: [
          { clientId: "svc-a", tier: "local", localSinceMs: NOW - 4_000 },
          { clientId: "svc-b", tier: "redis", localSinceMs: null },
        ],
      }),
    );
    expect(alerts.map((a) => `${a.severity}:${a.kind}`)).toEqual([
      "critical:audit-backlog",
      "critical:local-clients",
      "critical:tier",
      "warning:audit-backlog",
    ]);
    expect(alerts.find((a) => a.kind === "local-clients")?.title).toBe(
      "1 SDK instance on local (unfenced) locks",
    );
  });

  it("sorts worst first, newest first within a severity", () => {
    const alerts = deriveAlerts(
      inputs({
        events: [
          event("expired", { id: "old", atMs: NOW - 9_000 }),
          event("expired", { id: "new", atMs: NOW - 1_000 }),
          event("stale-fence", { id: "s", atMs: NOW - 50_000 }),
        ],
      }),
    );
    expect(alerts.map((a) => a.id)).toEqual([
      "stale-fence:s",
      "renewal-failure:new",
      "renewal-failure:old",
    ]);
  });
});
