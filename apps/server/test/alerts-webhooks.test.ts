import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { pino } from "pino";
import { Registry } from "prom-client";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { AlertEvaluator, type AlertEvaluatorOptions } from "../src/alerts/alert-evaluator.js";
import { AlertMetrics } from "../src/alerts/alert-metrics.js";
import { AlertStore, StaleEvaluatorError } from "../src/alerts/alert-store.js";
import type { AlertRecord } from "../src/alerts/alert-types.js";
import type { WebhookConfig } from "../src/alerts/webhook-config.js";
import { registerResource, startHarness, uid, type Harness } from "./support/harness.js";

/** A loopback HTTP receiver that records every POST and answers `status`. */
interface Receiver {
  readonly url: string;
  readonly bodies: { path: string; body: unknown }[];
  status: number;
  close(): Promise<void>;
}

async function startReceiver(): Promise<Receiver> {
  const bodies: { path: string; body: unknown }[] = [];
  const state = { status: 200 };
  const read = async (request: IncomingMessage) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    return JSON.parse(Buffer.concat(chunks).toString("utf8")) as unknown;
  };
  const server: Server = createServer((request, response) => {
    void read(request).then((body) => {
      bodies.push({ path: request.url ?? "", body });
      response.writeHead(state.status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    bodies,
    get status() {
      return state.status;
    },
    set status(value: number) {
      state.status = value;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function eventually<T>(read: () => Promise<T> | T, ok: (value: T) => boolean, ms = 10_000) {
  const deadline = Date.now() + ms;
  let last: T | undefined;
  while (Date.now() < deadline) {
    last = await read();
    if (ok(last)) return last;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`not true within ${ms} ms; last: ${JSON.stringify(last)}`);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface AmAlert {
  labels: Record<string, string>;
  annotations: Record<string, string>;
  startsAt: string;
  endsAt: string;
  generatorURL?: string;
}
interface JsonAlertBody {
  source: string;
  alerts: { id: string; status: string; resource: string | null; endsAt: string | null }[];
}

/** Alertmanager alerts about `resource` in the receiver's POSTs, one entry per POST. */
function amPosts(receiver: Receiver, resource: string): AmAlert[][] {
  return receiver.bodies
    .flatMap(({ body }) => (Array.isArray(body) ? [body as AmAlert[]] : []))
    .map((body) => body.filter((a) => a.labels.resource === resource))
    .filter((alerts) => alerts.length > 0);
}
function jsonPosts(receiver: Receiver, resource: string) {
  return receiver.bodies
    .flatMap(({ body }) => (Array.isArray(body) ? [] : [body as JsonAlertBody]))
    .map((body) => body.alerts.filter((a) => a.resource === resource))
    .filter((alerts) => alerts.length > 0);
}

let a: Harness;
let b: Harness;
const evaluators: AlertEvaluator[] = [];
const receivers: Receiver[] = [];

beforeAll(async () => {
  a = await startHarness({ fleet: true });
  b = await startHarness({ fleet: true, shareWith: a });
});
afterEach(async () => {
  await Promise.all(evaluators.splice(0).map((e) => e.close()));
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});
afterAll(async () => {
  await b?.close();
  await a?.close();
});

function evaluator(
  on: Harness,
  webhooks: WebhookConfig[],
  extra: Partial<AlertEvaluatorOptions> = {},
): { evaluator: AlertEvaluator; registry: Registry } {
  const registry = new Registry();
  const made = new AlertEvaluator({
    instanceId: `alerts-${uid()}`,
    locks: on.services.locks,
    prisma: on.prisma,
    holds: on.services.liveHolds,
    spool: () => ({ events: 0, full: false }),
    metrics: new AlertMetrics(registry),
    logger: pino({ level: "silent" }),
    webhooks,
    consoleUrl: "http://console.test/",
    evaluateEveryMs: 200,
    leaseMs: 1_500,
    retry: { attempts: 3, baseMs: 50, maxMs: 200, timeoutMs: 1_000 },
    ...extra,
  });
  evaluators.push(made);
  made.start();
  return { evaluator: made, registry };
}

function hook(receiver: Receiver, name: string, format: WebhookConfig["format"]): WebhookConfig {
  return { name, url: `${receiver.url}/api/v2/alerts`, format, repeatMs: 3_600_000, headers: {} };
}

async function deliveries(registry: Registry, webhook: string) {
  const metric = registry.getSingleMetric("warden_alert_deliveries_total");
  const values = (await metric!.get()).values;
  const count = (outcome: string) =>
    values.find((v) => v.labels.webhook === webhook && v.labels.outcome === outcome)?.value ?? 0;
  return { delivered: count("delivered"), retried: count("retried"), failed: count("failed") };
}

/** A resource whose holds alert after 3 × 100 ms, and a lock held on it. */
async function longHold(on: Harness) {
  const tenant = await on.tenant();
  const resource = await registerResource(tenant, { expectedHoldMs: 100, maxLeaseMs: 30_000 });
  const key = { resource, businessKey: `k-${uid()}` };
  const grant = await tenant.caller().lock.acquire({ ...key, ownerId: "slow", leaseMs: 20_000 });
  if (!grant.granted) throw new Error("expected a grant");
  const release = () =>
    tenant.caller().lock.release({ ...key, lockId: grant.lockId, tier: grant.tier });
  return { tenant, resource, grant, release };
}

it("a long hold is announced once in each format, and its end once as a resolve", async () => {
  const receiver = await startReceiver();
  receivers.push(receiver);
  const { registry } = evaluator(a, [
    hook(receiver, "am", "alertmanager"),
    { ...hook(receiver, "generic", "json"), url: `${receiver.url}/generic` },
  ]);
  const { tenant, resource, grant, release } = await longHold(a);

  await eventually(
    () => [amPosts(receiver, resource).length, jsonPosts(receiver, resource).length],
    ([am, json]) => am === 1 && json === 1,
  );
  const [firing] = amPosts(receiver, resource)[0]!;
  expect(firing!.labels).toMatchObject({
    alertname: "WardenLongHolds",
    resource,
    severity: "ticket",
    tenant: tenant.id,
    source: "warden-server",
  });
  expect(firing!.annotations.summary).toContain(resource);
  expect(Date.parse(firing!.startsAt)).toBeLessThanOrEqual(Date.now());
  expect(Date.parse(firing!.endsAt)).toBeGreaterThan(Date.now()); // still firing
  expect(firing!.generatorURL).toBe(
    `http://console.test/resources/${encodeURIComponent(resource)}`,
  );
  expect(jsonPosts(receiver, resource)[0]).toEqual([
    expect.objectContaining({ id: `long-hold:${grant.lockId}`, status: "firing", endsAt: null }),
  ]);
  expect(receiver.bodies.find((p) => p.path === "/generic")?.body).toMatchObject({
    source: "warden",
    version: 1,
  });

  // Several evaluations later, still one notification per format (no repeat within 1 h).
  await sleep(1_000);
  expect(amPosts(receiver, resource)).toHaveLength(1);
  expect(jsonPosts(receiver, resource)).toHaveLength(1);

  // The console's view: the owner sees it, another tenant does not.
  const mine = await tenant.caller().alert.list();
  expect(mine.alerts.map((alert) => alert.id)).toContain(`long-hold:${grant.lockId}`);
  expect(mine.deliveries).toEqual([]);
  const stranger = await a.tenant();
  expect((await stranger.caller().alert.list()).alerts).toEqual([]);

  await release();
  await eventually(
    () => [amPosts(receiver, resource).length, jsonPosts(receiver, resource).length],
    ([am, json]) => am === 2 && json === 2,
  );
  const [resolved] = amPosts(receiver, resource)[1]!;
  expect(Date.parse(resolved!.endsAt)).toBeLessThanOrEqual(Date.now());
  expect(jsonPosts(receiver, resource)[1]).toEqual([
    expect.objectContaining({ status: "resolved", endsAt: expect.any(String) as unknown }),
  ]);
  await sleep(800);
  expect(amPosts(receiver, resource)).toHaveLength(2);

  const operator = await a.operator("viewer");
  const view = await eventually(
    () => operator.caller().alert.list(),
    (list) =>
      list.alerts.some(
        (alert) => alert.id === `long-hold:${grant.lockId}` && alert.status === "resolved",
      ),
  );
  expect(view.deliveries).toEqual(
    expect.arrayContaining([
      expect.objectContaining({ webhook: "am", lastOutcome: "delivered" }),
      expect.objectContaining({ webhook: "generic", lastOutcome: "delivered" }),
    ]),
  );
  expect(view.evaluator?.holder).toMatch(/^warden-server:alerts-/);
  expect(await deliveries(registry, "am")).toEqual({ delivered: 2, retried: 0, failed: 0 });
});

it("a receiver that fails is retried a bounded number of times, the failure is counted and shown, and sent again after a cool-down", async () => {
  const failing = await startReceiver();
  failing.status = 503;
  const down = await startReceiver();
  const downUrl = down.url;
  await down.close(); // nothing listens there any more
  receivers.push(failing);
  const { registry } = evaluator(
    a,
    [
      hook(failing, "flaky", "json"),
      {
        name: "gone",
        url: `${downUrl}/hook`,
        format: "alertmanager",
        repeatMs: 3_600_000,
        headers: {},
      },
    ],
    { failureCooldownMs: 5_000 },
  );
  const { resource, release } = await longHold(a);
  try {
    await eventually(
      () => deliveries(registry, "gone"),
      (counts) => counts.failed === 1,
    );
    await eventually(
      () => deliveries(registry, "flaky"),
      (counts) => counts.failed === 1,
    );
    // Three attempts each: two retried, one given up.
    expect(await deliveries(registry, "flaky")).toEqual({ delivered: 0, retried: 2, failed: 1 });
    expect(await deliveries(registry, "gone")).toEqual({ delivered: 0, retried: 2, failed: 1 });
    expect(jsonPosts(failing, resource), JSON.stringify(failing.bodies)).toHaveLength(3);
    const operator = await a.operator("viewer");
    const view = await eventually(
      () => operator.caller().alert.list(),
      (list) => list.deliveries.filter((d) => d.lastOutcome === "failed").length === 2,
    );
    const gone = view.deliveries.find((d) => d.webhook === "gone");
    expect(gone).toMatchObject({ lastOutcome: "failed", format: "alertmanager" });
    expect(gone?.lastError).toMatch(/ECONNREFUSED|fetch failed/);
    expect(view.deliveries.find((d) => d.webhook === "flaky")?.lastError).toBe("HTTP 503");
    // Given up: left alone for the cool-down, not retried at every evaluation…
    await sleep(800);
    expect(jsonPosts(failing, resource)).toHaveLength(3);
    // …then sent again: a receiver that is back gets what is still due.
    failing.status = 200;
    await eventually(
      () => deliveries(registry, "flaky"),
      (counts) => counts.delivered === 1,
    );
    expect(jsonPosts(failing, resource)).toHaveLength(4);
    expect(jsonPosts(failing, resource)[3]).toEqual([
      expect.objectContaining({ status: "firing" }),
    ]);
  } finally {
    await release();
  }
});

it("two instances: exactly one evaluates; when it dies the other takes over without repeating", async () => {
  const receiver = await startReceiver();
  receivers.push(receiver);
  const hooks = [hook(receiver, "am", "alertmanager")];
  const first = evaluator(a, hooks);
  const second = evaluator(b, hooks);
  const actives = () => [first.evaluator.active, second.evaluator.active];
  await eventually(actives, (states) => states.filter(Boolean).length === 1);
  // Stays exactly one over several renewals.
  for (let i = 0; i < 10; i += 1) {
    await sleep(200);
    expect(actives().filter(Boolean)).toHaveLength(1);
  }
  const [leader, follower] = first.evaluator.active ? [first, second] : [second, first];
  const { resource, release } = await longHold(a);
  await eventually(
    () => amPosts(receiver, resource).length,
    (n) => n === 1,
  );
  // Stored as told, so the next evaluator does not announce it again.
  await eventually(
    () => a.prisma.alertState.findMany({ where: { resource } }),
    (rows) => rows.length === 1 && rows[0]!.notifiedStatus === "firing",
  );
  // A crash: the lease is left to lapse.
  await leader.evaluator.close({ release: false });
  expect(leader.evaluator.active).toBe(false);
  await eventually(() => follower.evaluator.active, Boolean, 8_000);
  const gauge = await follower.registry.getSingleMetric("warden_alert_evaluator")!.get();
  expect(gauge.values[0]?.value).toBe(1);
  await sleep(800);
  expect(amPosts(receiver, resource)).toHaveLength(1);
  await release();
  await eventually(
    () => amPosts(receiver, resource).length,
    (n) => n === 2,
  );
  expect(Date.parse(amPosts(receiver, resource)[1]![0]!.endsAt)).toBeLessThanOrEqual(Date.now());
});

it("writes are fenced by the evaluator lock: an older fence is refused and its evaluator stops", async () => {
  const store = new AlertStore(a.prisma);
  const record = (summary: string): AlertRecord => ({
    id: `fence-test:${uid()}`,
    kind: "tier",
    severity: "warning",
    tenantId: null,
    resource: null,
    labels: {},
    summary,
    detail: "",
    href: "/tier",
    startsAt: 1,
    status: "firing",
    endsAt: null,
    updatedAt: 2,
    notifiedStatus: null,
    notifiedAt: null,
  });
  const first = record("newer");
  const top = 2 ** 52;
  try {
    await store.save([first], [], { fence: String(top), holder: "newer" });
    await expect(
      store.save([{ ...first, summary: "older" }], [], { fence: String(top - 1), holder: "older" }),
    ).rejects.toThrow(StaleEvaluatorError);
    const row = await a.prisma.alertState.findUnique({ where: { id: first.id } });
    expect(row?.summary).toBe("newer");

    // An evaluator whose grant is older than the stored fence writes nothing and stops.
    const receiver = await startReceiver();
    receivers.push(receiver);
    // Its term can be shorter than a poll (granted, evaluates, refused, stops): read its log.
    const logLines: string[] = [];
    const logger = pino({ level: "info" }, { write: (line: string) => void logLines.push(line) });
    evaluator(a, [], { logger });
    const { resource, release } = await longHold(a);
    try {
      await eventually(
        () => logLines.some((line) => line.includes("evaluates alerts for the fleet")),
        Boolean,
      );
      await eventually(() => logLines.some((line) => line.includes("evaluation stopped")), Boolean);
      expect(await a.prisma.alertState.findMany({ where: { resource } })).toEqual([]);
    } finally {
      await release();
    }
  } finally {
    await a.prisma.alertEvaluatorFence.deleteMany({});
    await a.prisma.alertState.deleteMany({ where: { id: first.id } });
  }
});
