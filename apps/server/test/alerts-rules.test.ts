import { describe, expect, it } from "vitest";
import { advance, isDue, KEEP_RESOLVED_MS } from "../src/alerts/alert-state.js";
import type { AlertRecord } from "../src/alerts/alert-types.js";
import { evaluateConditions, type ConditionInputs } from "../src/alerts/conditions.js";
import { alertmanagerBody, jsonBody } from "../src/alerts/payloads.js";
import { parseWebhooks, WebhookConfigError } from "../src/alerts/webhook-config.js";
import { loadEnv } from "../src/env.js";

const NOW = 10_000_000;

function inputs(patch: Partial<ConditionInputs> = {}): ConditionInputs {
  return {
    now: NOW,
    tier: { tier: "redis", since: 0, reason: "start" },
    holds: [],
    resources: new Map([["orders", { tenantId: "acme", expectedHoldMs: 1_000 }]]),
    events: [],
    localClients: [],
    spools: [],
    ...patch,
  };
}

const hold = {
  resource: "orders",
  businessKey: "o-1",
  lockId: "L".repeat(22),
  fence: "7",
  clientId: "svc",
  ownerId: "w1",
};

describe("conditions", () => {
  it("a quiet fleet has no alerts", () => {
    expect(evaluateConditions(inputs())).toEqual({ facts: [], unknown: new Set() });
  });

  it("the tier: local pages, mysql is a ticket, named as the Prometheus rules name them", () => {
    const local = evaluateConditions(inputs({ tier: { tier: "local", since: 5, reason: "x" } }));
    expect(local.facts).toEqual([
      expect.objectContaining({
        id: "tier",
        severity: "critical",
        startsAt: 5,
        labels: expect.objectContaining({ alertname: "WardenLocalTier" }) as unknown,
      }),
    ]);
    const mysql = evaluateConditions(inputs({ tier: { tier: "mysql", since: 5, reason: "x" } }));
    expect(mysql.facts[0]).toMatchObject({
      severity: "warning",
      labels: { alertname: "WardenDegradedTier" },
    });
  });

  it("a hold alerts past 3× its resource's expected hold (critical past 10×), for its tenant", () => {
    const at = (heldMs: number) =>
      evaluateConditions(inputs({ holds: [{ ...hold, grantedAt: NOW - heldMs }] })).facts;
    expect(at(3_000)).toEqual([]);
    expect(at(3_001)).toEqual([
      expect.objectContaining({
        id: `long-hold:${hold.lockId}`,
        severity: "warning",
        tenantId: "acme",
        startsAt: NOW - 1,
      }),
    ]);
    expect(at(10_001)[0]?.severity).toBe("critical");
    // No expected hold, or an unknown resource: no alert.
    const none = evaluateConditions(
      inputs({
        holds: [{ ...hold, resource: "other", grantedAt: 0 }],
        resources: new Map([["other", { tenantId: "acme", expectedHoldMs: null }]]),
      }),
    );
    expect(none.facts).toEqual([]);
  });

  it("a long hold's alert says what is held: a lock, semaphore permits, a read or write lock", () => {
    const fact = (patch: object) =>
      evaluateConditions(inputs({ holds: [{ ...hold, grantedAt: NOW - 5_000, ...patch }] }))
        .facts[0]!;
    expect(fact({}).summary).toBe("Long hold on orders / o-1");
    expect(fact({}).detail).toContain("svc/w1 holds a lock past 3×");
    const permit = fact({ kind: "semaphore", mode: null });
    expect(permit.summary).toBe("Long hold on orders / o-1 (semaphore permit)");
    expect(permit.detail).toContain("holds a semaphore permit past");
    expect(fact({ kind: "rwlock", mode: "read" }).summary).toContain("(read lock)");
    expect(fact({ kind: "rwlock", mode: "write" }).detail).toContain("holds a write lock past");
  });

  it("stale fences fire for 10 min and refused renewals for 5 min, one alert per resource", () => {
    const event = (type: string, ago: number) => ({
      type,
      tenantId: "acme",
      resource: "orders",
      fence: "9",
      clientId: "svc",
      lockId: hold.lockId,
      at: NOW - ago,
    });
    const { facts } = evaluateConditions(
      inputs({
        events: [
          event("stale-fence", 599_000),
          event("stale-fence", 1_000),
          event("expired", 301_000),
          event("renewal-refused", 299_000),
        ],
      }),
    );
    expect(facts.map((fact) => [fact.id, fact.severity, fact.startsAt])).toEqual([
      ["stale-fence:orders", "critical", NOW - 599_000],
      ["renewal-failure:orders", "warning", NOW - 299_000],
    ]);
    expect(facts[0]?.detail).toContain("2 write(s)");
    const old = evaluateConditions(inputs({ events: [event("stale-fence", 601_000)] }));
    expect(old.facts).toEqual([]);
  });

  it("SDK instances on local locks alert per tenant; spools per instance", () => {
    const { facts } = evaluateConditions(
      inputs({
        localClients: [
          { tenantId: "acme", clientId: "b", since: 7 },
          { tenantId: "acme", clientId: "a", since: 3 },
          { tenantId: "zeta", clientId: "z", since: 9 },
        ],
        spools: [
          { instanceId: "i1", events: 4, full: false },
          { instanceId: "i2", events: 9, full: true },
          { instanceId: "i3", events: 0, full: false },
        ],
      }),
    );
    expect(facts.map((fact) => [fact.id, fact.tenantId])).toEqual([
      ["local-clients:acme", "acme"],
      ["local-clients:zeta", "zeta"],
      ["audit-backlog:i1", null],
      ["audit-backlog:i2", null],
      ["audit-spool-full:i2", null],
    ]);
    expect(facts[0]).toMatchObject({ startsAt: 3, detail: "a, b" });
  });

  it("inputs that could not be read are reported as unknown, not as healthy", () => {
    const result = evaluateConditions(inputs({ events: null, spools: null }));
    expect([...result.unknown].sort()).toEqual([
      "audit-backlog",
      "audit-spool-full",
      "renewal-failure",
      "stale-fence",
    ]);
  });
});

describe("alert state", () => {
  const tier = evaluateConditions(inputs({ tier: { tier: "mysql", since: 100, reason: "down" } }));
  const quiet = evaluateConditions(inputs());

  it("fires, keeps its start while firing, resolves, and is forgotten an hour later", () => {
    const fired = advance(new Map(), tier, NOW);
    expect(fired.get("tier")).toMatchObject({ status: "firing", startsAt: 100, endsAt: null });
    const still = advance(fired, tier, NOW + 1_000);
    expect(still.get("tier")).toMatchObject({ status: "firing", startsAt: 100 });
    const resolved = advance(still, quiet, NOW + 2_000);
    expect(resolved.get("tier")).toMatchObject({ status: "resolved", endsAt: NOW + 2_000 });
    expect(advance(resolved, quiet, NOW + 2_000 + KEEP_RESOLVED_MS - 1).has("tier")).toBe(true);
    expect(advance(resolved, quiet, NOW + 2_000 + KEEP_RESOLVED_MS).has("tier")).toBe(false);
    // Firing again is a new state: not yet announced.
    const again = advance(resolved, tier, NOW + 3_000).get("tier")!;
    expect(again).toMatchObject({ status: "firing", notifiedStatus: null, endsAt: null });
  });

  it("an alert whose inputs are unreadable keeps its state instead of resolving", () => {
    const stale = evaluateConditions(
      inputs({
        events: [
          {
            type: "stale-fence",
            tenantId: "acme",
            resource: "orders",
            fence: "1",
            clientId: null,
            lockId: null,
            at: NOW,
          },
        ],
      }),
    );
    const fired = advance(new Map(), stale, NOW);
    const blind = advance(fired, evaluateConditions(inputs({ events: null })), NOW + 1);
    expect(blind.get("stale-fence:orders")?.status).toBe("firing");
  });

  it("is due once per state change, again after the repeat interval, never for an unannounced resolve", () => {
    const firing = advance(new Map(), tier, NOW).get("tier")!;
    const resolved: AlertRecord = { ...firing, status: "resolved", endsAt: NOW + 5 };
    expect(isDue(firing, undefined, NOW, 60_000)).toBe(true);
    expect(isDue(firing, { status: "firing", at: NOW }, NOW + 59_999, 60_000)).toBe(false);
    expect(isDue(firing, { status: "firing", at: NOW }, NOW + 60_000, 60_000)).toBe(true);
    expect(isDue(resolved, { status: "firing", at: NOW }, NOW + 1, 60_000)).toBe(true);
    expect(isDue(resolved, { status: "resolved", at: NOW }, NOW + 999_999, 60_000)).toBe(false);
    expect(isDue(resolved, undefined, NOW, 60_000)).toBe(false);
  });
});

describe("payloads", () => {
  const firing = advance(
    new Map(),
    evaluateConditions(inputs({ holds: [{ ...hold, grantedAt: NOW - 5_000 }] })),
    NOW,
  ).get(`long-hold:${hold.lockId}`)!;

  it("Alertmanager: labels with the rules' severity convention, annotations, times, link", () => {
    const [alert] = alertmanagerBody([firing], NOW, 60_000, "https://console.example/");
    expect(alert).toEqual({
      labels: {
        alertname: "WardenLongHolds",
        resource: "orders",
        severity: "ticket",
        warden_severity: "warning",
        warden_alert_id: `long-hold:${hold.lockId}`,
        source: "warden-server",
        tenant: "acme",
      },
      annotations: { summary: firing.summary, description: firing.detail },
      startsAt: new Date(NOW - 2_000).toISOString(),
      endsAt: new Date(NOW + 240_000).toISOString(),
      generatorURL: "https://console.example/resources/orders",
    });
    const [ended] = alertmanagerBody(
      [{ ...firing, status: "resolved", endsAt: NOW + 7 }],
      NOW + 9,
      60_000,
      null,
    );
    expect(ended?.endsAt).toBe(new Date(NOW + 7).toISOString());
    expect(ended).not.toHaveProperty("generatorURL");
  });

  it("generic JSON: status, ids and times per alert", () => {
    expect(jsonBody([firing], NOW, null)).toEqual({
      source: "warden",
      version: 1,
      sentAt: new Date(NOW).toISOString(),
      alerts: [
        expect.objectContaining({
          id: `long-hold:${hold.lockId}`,
          status: "firing",
          kind: "long-hold",
          severity: "warning",
          tenantId: "acme",
          resource: "orders",
          endsAt: null,
          url: null,
        }),
      ],
    });
  });
});

describe("WARDEN_ALERT_WEBHOOKS", () => {
  it("reads a JSON list or format=url pairs, with per-format repeat defaults", () => {
    expect(parseWebhooks(undefined)).toEqual([]);
    expect(parseWebhooks(" ")).toEqual([]);
    expect(
      parseWebhooks("alertmanager=http://am:9093/api/v2/alerts, https://hooks.example/warden"),
    ).toEqual([
      {
        name: "alertmanager-1",
        url: "http://am:9093/api/v2/alerts",
        format: "alertmanager",
        repeatMs: 60_000,
        headers: {},
      },
      {
        name: "json-2",
        url: "https://hooks.example/warden",
        format: "json",
        repeatMs: 14_400_000,
        headers: {},
      },
    ]);
    expect(
      parseWebhooks(
        '[{"name":"chat","url":"https://x.example/h","format":"json","repeatMs":60000,"headers":{"authorization":"Bearer t"}}]',
      ),
    ).toEqual([
      {
        name: "chat",
        url: "https://x.example/h",
        format: "json",
        repeatMs: 60_000,
        headers: { authorization: "Bearer t" },
      },
    ]);
  });

  it("refuses bad configuration with a message naming the entry, and so does the env", () => {
    expect(() => parseWebhooks("ftp://x")).toThrow(WebhookConfigError);
    expect(() => parseWebhooks("pager=http://x")).toThrow(/format/);
    expect(() => parseWebhooks("[{")).toThrow(/not valid JSON/);
    expect(() => parseWebhooks('[{"url":"http://a"},{"url":"http://b","name":"json-1"}]')).toThrow(
      /unique/,
    );
    expect(() => parseWebhooks('[{"url":"http://a","extra":1}]')).toThrow(WebhookConfigError);
    const base = { DATABASE_URL: "mysql://root@127.0.0.1/w", REDIS_URL: "redis://127.0.0.1" };
    expect(() => loadEnv({ ...base, WARDEN_ALERT_WEBHOOKS: "ftp://x" })).toThrow(
      /WARDEN_ALERT_WEBHOOKS/,
    );
    expect(loadEnv({ ...base, WARDEN_ALERT_WEBHOOKS: "json=http://127.0.0.1:9/h" })).toMatchObject({
      WARDEN_ALERT_EVALUATE_MS: 10_000,
    });
  });
});
