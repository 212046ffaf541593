import { describe, expect, it } from "vitest";
import { alertRows, deliveryProblems, type ServerAlert, type ServerDelivery } from "./alert-view";

function alert(patch: Partial<ServerAlert> = {}): ServerAlert {
  return {
    id: "long-hold:L",
    kind: "long-hold",
    severity: "warning",
    summary: "Long hold on order:settle / o-1",
    detail: "svc-a/w1 holds it past 3×",
    href: "/resources/order%3Asettle",
    status: "firing",
    startsAt: 1_000,
    endsAt: null,
    ...patch,
  };
}

describe("alertRows", () => {
  it("lists firing alerts worst first, newest first within a severity, each linked", () => {
    const rows = alertRows([
      alert({ id: "a", severity: "warning", startsAt: 3_000 }),
      alert({ id: "b", kind: "stale-fence", severity: "critical", startsAt: 1_000 }),
      alert({ id: "c", severity: "warning", startsAt: 5_000 }),
    ]);
    expect(rows.firing.map((row) => row.id)).toEqual(["b", "c", "a"]);
    expect(rows.firing[0]).toMatchObject({
      severity: "critical",
      hrefLabel: "events",
      atMs: 1_000,
    });
    expect(rows.firing[1]).toMatchObject({
      hrefLabel: "holders",
      href: "/resources/order%3Asettle",
    });
    expect(rows.resolved).toEqual([]);
  });

  it("keeps resolved alerts apart, dated by their end, and never counts them as critical", () => {
    const rows = alertRows([
      alert({ id: "r", severity: "critical", status: "resolved", endsAt: 9_000 }),
      alert({ id: "f" }),
    ]);
    expect(rows.firing.map((row) => row.id)).toEqual(["f"]);
    expect(rows.resolved).toEqual([
      expect.objectContaining({ id: "r", severity: "ok", resolved: true, atMs: 9_000 }),
    ]);
    expect(rows.resolved[0]?.title).toMatch(/^Resolved: /);
  });

  it("links only to console paths", () => {
    const [row] = alertRows([alert({ href: "https://evil.example/x" })]).firing;
    expect(row?.href).toBe("/");
    const [other] = alertRows([alert({ href: "//evil.example/x" })]).firing;
    expect(other?.href).toBe("/");
  });
});

describe("deliveryProblems", () => {
  const base: ServerDelivery = {
    webhook: "pager",
    format: "alertmanager",
    lastOutcome: "delivered",
    lastError: null,
    lastAttemptAt: 1,
    lastSuccessAt: 1,
    failures: 0,
  };

  it("names the webhooks whose last notification was given up on, with why", () => {
    expect(deliveryProblems([base])).toEqual([]);
    const problems = deliveryProblems([
      base,
      {
        ...base,
        webhook: "chat",
        format: "json",
        lastOutcome: "failed",
        lastError: "HTTP 503",
        lastSuccessAt: null,
        failures: 2,
      },
    ]);
    expect(problems).toEqual([
      {
        webhook: "chat",
        text: "chat (json): HTTP 503; 2 notifications lost, never delivered",
      },
    ]);
  });
});
