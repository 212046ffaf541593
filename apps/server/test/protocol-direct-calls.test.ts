import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { generateApiKey } from "../src/auth/api-key.js";
import type { HttpServerHandle } from "../src/http/server.js";
import { DIRECT_CALL_PATHS } from "../src/protocol/direct-calls.js";
import { LOCK_SUBPROTOCOL } from "../src/protocol/wire.js";
import {
  startHarness,
  uid,
  type Harness,
  type OperatorHandle,
  type TenantHandle,
} from "./support/harness.js";
import { serveHarness } from "./support/lock-client.js";

// The lock socket runs the hot semaphore and read-write lock calls on their use cases
// without tRPC (docs/decisions/0193). Each of them must answer exactly as its tRPC procedure
// does: here every path is sent over the lock socket and, with the same input and the same
// credentials, to the tRPC HTTP endpoint of the same server, and the replies are compared —
// grants (volatile fields normalised), refusals and error shapes (byte for byte). Real
// server, Redis and MariaDB.

let h: Harness;
let http: HttpServerHandle;
let tenant: TenantHandle;
let other: TenantHandle;
/** A second API key of `tenant` with the `lock` scope only. */
let lockOnlyKey: string;
let operator: OperatorHandle;
let sem: string;
let rw: string;
let foreignSem: string;
let foreignRw: string;

const CLIENT = "direct-client";
const POLICY = {
  defaultLeaseMs: 5_000,
  maxLeaseMs: 30_000,
  maxRenewals: null,
  expectedHoldMs: null,
  degrade: true,
  localFallback: "deny",
  fair: false,
  waitReplicas: 0,
  description: "direct calls test",
} as const;

async function registerSemaphore(t: TenantHandle, permits = 1): Promise<string> {
  const name = `sem:${uid()}`;
  await t.caller().resource.create({ ...POLICY, name, kind: "semaphore", permits });
  return name;
}

async function registerRw(t: TenantHandle): Promise<string> {
  const name = `rw:${uid()}`;
  await t.caller().resource.create({ ...POLICY, name, kind: "rwlock" });
  return name;
}

beforeAll(async () => {
  h = await startHarness();
  http = await serveHarness(h);
  tenant = await h.tenant();
  other = await h.tenant();
  const made = generateApiKey();
  await h.prisma.apiKey.create({
    data: {
      id: made.id,
      tenantId: tenant.id,
      name: "lock only",
      prefix: made.prefix,
      hash: made.hash,
      scopes: "lock",
    },
    select: { id: true },
  });
  lockOnlyKey = made.key;
  operator = await h.operator("admin");
  sem = await registerSemaphore(tenant);
  rw = await registerRw(tenant);
  foreignSem = await registerSemaphore(other);
  foreignRw = await registerRw(other);
});
afterAll(async () => {
  await http?.close();
  await h?.close();
});

/** A reply as both transports give it: a result, or the tRPC error shape. */
type Outcome = { ok: true; value: unknown } | { ok: false; value: ErrorShape };
interface ErrorShape {
  message: string;
  code: number;
  data: {
    code: string;
    httpStatus: number;
    path: string;
    wardenCode: string | null;
    details: Record<string, unknown> | null;
    fieldErrors: Record<string, string[]> | null;
    retryAfterMs: number | null;
  };
}

interface Credentials {
  readonly apiKey?: string;
  readonly clientId?: string;
  readonly cookie?: string;
}

/** A bare client of the batched lock protocol. */
async function connect(credentials: Credentials) {
  const headers: Record<string, string> = {};
  if (credentials.cookie !== undefined) {
    headers["cookie"] = credentials.cookie;
    headers["origin"] = "http://console.test";
  }
  const ws = new WebSocket(`${http.url.replace("http", "ws")}/trpc`, LOCK_SUBPROTOCOL, {
    headers,
  });
  const entries: Array<[number, unknown, unknown]> = [];
  ws.on("message", (data: Buffer) => {
    for (const entry of JSON.parse(data.toString("utf8")) as Array<[number, unknown, unknown]>)
      entries.push(entry);
  });
  await new Promise<void>((resolve, reject) => {
    ws.once("open", () => resolve());
    ws.once("error", reject);
  });
  const hello: Record<string, string> = { clientId: credentials.clientId ?? CLIENT };
  if (credentials.apiKey !== undefined) hello["apiKey"] = credentials.apiKey;
  ws.send(JSON.stringify({ hello }));
  let nextId = 1;
  const answerOf = async (id: number): Promise<Outcome> => {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const entry = entries.find((candidate) => candidate[0] === id);
      if (entry) {
        return entry[1] === 0
          ? { ok: true, value: entry[2] }
          : { ok: false, value: entry[2] as ErrorShape };
      }
      if (Date.now() > deadline) throw new Error(`no answer to command ${id} within 20 s`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  };
  return {
    ws,
    /** Sends `call` commands in one frame; one promise per command, by position. */
    frame(...calls: Array<[string, unknown] | [string, unknown, "query" | "mutation"]>) {
      const ids = calls.map(() => nextId++);
      ws.send(
        JSON.stringify(
          calls.map(([path, input, type], i) => [
            ids[i],
            "call",
            [type ?? "mutation", path, input],
          ]),
        ),
      );
      return ids.map((id) => answerOf(id));
    },
    /** One native command (`cancelWait`, …), its answer. */
    op(op: string, input: unknown) {
      const id = nextId++;
      ws.send(JSON.stringify([[id, op, input]]));
      return answerOf(id);
    },
    /** One `call` command, its answer. */
    call(path: string, input: unknown, type: "query" | "mutation" = "mutation") {
      return this.frame([path, input, type])[0]!;
    },
    close() {
      ws.close();
    },
  };
}

/** The same call through tRPC's HTTP endpoint, with the same credentials. */
async function viaTrpc(
  credentials: Credentials,
  path: string,
  input: unknown,
  type: "query" | "mutation" = "mutation",
): Promise<Outcome> {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    "x-warden-client-id": credentials.clientId ?? CLIENT,
  };
  if (credentials.apiKey !== undefined) headers["authorization"] = `Bearer ${credentials.apiKey}`;
  if (credentials.cookie !== undefined) {
    headers["cookie"] = credentials.cookie;
    headers["origin"] = "http://console.test";
  }
  const response =
    type === "mutation"
      ? await fetch(`${http.url}/trpc/${path}`, {
          method: "POST",
          headers,
          body: JSON.stringify(input),
        })
      : await fetch(`${http.url}/trpc/${path}?input=${encodeURIComponent(JSON.stringify(input))}`, {
          headers,
        });
  const body = (await response.json()) as { result?: { data: unknown }; error?: ErrorShape };
  if (body.error) return { ok: false, value: body.error };
  return { ok: true, value: body.result!.data };
}

const VOLATILE = new Set(["lockId", "fence", "grantedAt", "expiresAt", "ttlMs", "retryAfterMs"]);

/** A reply with its per-call values (ids, fences, clocks) replaced by their types. */
function normalised(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normalised);
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, field]) => [
      key,
      VOLATILE.has(key) && field !== null ? `<${typeof field}>` : normalised(field),
    ]),
  );
}

function grantOf(outcome: Outcome): { lockId: string; tier: string } {
  if (!outcome.ok) throw new Error(`expected a reply, got ${JSON.stringify(outcome.value)}`);
  const reply = outcome.value as { granted?: boolean; lockId: string; tier: string };
  if (reply.granted === false) throw new Error(`expected a grant, got ${JSON.stringify(reply)}`);
  return reply;
}

function errorOf(outcome: Outcome): ErrorShape {
  if (outcome.ok) throw new Error(`expected an error, got ${JSON.stringify(outcome.value)}`);
  return outcome.value;
}

/** Waits until `check` holds (at most `limitMs`), else fails. */
async function until(check: () => boolean | Promise<boolean>, limitMs = 10_000): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const creds = (): Credentials => ({ apiKey: tenant.key });

/** The live grants of a key as the tenant's tRPC caller sees them (none left over). */
async function semaphoreHolders(resource: string, businessKey: string) {
  return (await tenant.caller().semaphore.inspect({ resource, businessKey })).holders;
}

async function rwHolders(resource: string, businessKey: string) {
  const seen = await tenant.caller().rwlock.inspect({ resource, businessKey });
  return [...seen.readers, ...(seen.writer ? [seen.writer] : [])];
}

interface Primitive {
  readonly name: string;
  readonly resource: () => string;
  readonly foreign: () => string;
  readonly acquire: string;
  readonly release: string;
  readonly extend: string;
  readonly holders: (resource: string, businessKey: string) => Promise<unknown[]>;
}

const PRIMITIVES: Primitive[] = [
  {
    name: "semaphore",
    resource: () => sem,
    foreign: () => foreignSem,
    acquire: "semaphore.acquire",
    release: "semaphore.release",
    extend: "semaphore.extend",
    holders: semaphoreHolders,
  },
  {
    name: "read lock",
    resource: () => rw,
    foreign: () => foreignRw,
    acquire: "rwlock.acquireRead",
    release: "rwlock.release",
    extend: "rwlock.extend",
    holders: rwHolders,
  },
  {
    name: "write lock",
    resource: () => rw,
    foreign: () => foreignRw,
    acquire: "rwlock.acquireWrite",
    release: "rwlock.release",
    extend: "rwlock.extend",
    holders: rwHolders,
  },
];

describe("direct coordination calls on the lock socket", () => {
  it("serves exactly the hot semaphore and read-write lock mutations", () => {
    expect([...DIRECT_CALL_PATHS].sort()).toEqual(
      [
        "rwlock.acquireRead",
        "rwlock.acquireWrite",
        "rwlock.extend",
        "rwlock.release",
        "semaphore.acquire",
        "semaphore.extend",
        "semaphore.release",
      ].sort(),
    );
  });

  for (const p of PRIMITIVES) {
    describe(p.name, () => {
      it("grants, refuses, extends and releases as tRPC does", async () => {
        const socket = await connect(creds());
        const resource = p.resource();
        const viaSocket = `s-${uid()}`;
        const viaHttp = `h-${uid()}`;
        const acquire = (businessKey: string, ownerId = "o1") => ({
          resource,
          businessKey,
          ownerId,
          leaseMs: 10_000,
        });

        const [s1, h1] = [
          await socket.call(p.acquire, acquire(viaSocket)),
          await viaTrpc(creds(), p.acquire, acquire(viaHttp)),
        ];
        expect(normalised(s1)).toEqual(normalised(h1));
        expect((s1.value as { granted: boolean }).granted).toBe(true);
        const sGrant = grantOf(s1);
        const hGrant = grantOf(h1);

        // A second owner's try is refused alike (the semaphore has one permit; a writer
        // excludes everyone; readers share, so a write try is the refused one there).
        const refusedPath = p.acquire === "rwlock.acquireRead" ? "rwlock.acquireWrite" : p.acquire;
        const s2 = await socket.call(refusedPath, acquire(viaSocket, "o2"));
        const h2 = await viaTrpc(creds(), refusedPath, acquire(viaHttp, "o2"));
        expect(normalised(s2)).toEqual(normalised(h2));
        expect((s2.value as { granted: boolean }).granted).toBe(false);

        const extend = (businessKey: string, grant: { lockId: string; tier: string }) => ({
          resource,
          businessKey,
          lockId: grant.lockId,
          tier: grant.tier,
          leaseMs: 20_000,
        });
        const s3 = await socket.call(p.extend, extend(viaSocket, sGrant));
        const h3 = await viaTrpc(creds(), p.extend, extend(viaHttp, hGrant));
        expect(normalised(s3)).toEqual(normalised(h3));
        expect(s3.ok).toBe(true);

        const release = (businessKey: string, grant: { lockId: string; tier: string }) => ({
          resource,
          businessKey,
          lockId: grant.lockId,
          tier: grant.tier,
        });
        const s4 = await socket.call(p.release, release(viaSocket, sGrant));
        const h4 = await viaTrpc(creds(), p.release, release(viaHttp, hGrant));
        expect(normalised(s4)).toEqual(normalised(h4));
        expect(s4.ok).toBe(true);

        // Released twice: the same NOT_HOLDER-like refusal, byte for byte.
        const s5 = await socket.call(p.release, release(viaSocket, sGrant));
        const h5 = await viaTrpc(creds(), p.release, release(viaSocket, sGrant));
        expect(s5).toEqual(h5);
        // Extending a released grant: the same refusal.
        const s6 = await socket.call(p.extend, extend(viaSocket, sGrant));
        const h6 = await viaTrpc(creds(), p.extend, extend(viaSocket, sGrant));
        expect(s6).toEqual(h6);
        expect(errorOf(s6).data.wardenCode).not.toBeNull();

        expect(await p.holders(resource, viaSocket)).toEqual([]);
        expect(await p.holders(resource, viaHttp)).toEqual([]);
        socket.close();
      });

      it("refuses invalid inputs with the same typed error, changing nothing", async () => {
        const socket = await connect(creds());
        const resource = p.resource();
        const businessKey = `bad-${uid()}`;
        const valid = { resource, businessKey, ownerId: "o" };
        const lease = { resource, businessKey, lockId: "A".repeat(22), tier: "redis" };
        const cases: Array<[string, unknown]> = [
          [p.acquire, { ...valid, businessKey: "" }],
          [p.acquire, { ...valid, businessKey: "a\u0007b" }],
          [p.acquire, { ...valid, ownerId: "\ud800" }],
          [p.acquire, { ...valid, ownerId: "x".repeat(200) }],
          [p.acquire, { ...valid, leaseMs: -1 }],
          [p.acquire, { ...valid, leaseMs: 1.5 }],
          [p.acquire, { ...valid, waitMs: "10" }],
          [p.acquire, { ...valid, resource: "bad name!" }],
          [p.acquire, { resource }],
          [p.acquire, null],
          [p.acquire, "text"],
          [p.acquire, [valid]],
          [p.release, { ...lease, lockId: "short" }],
          [p.release, { ...lease, tier: "disk" }],
          [p.release, { ...lease, businessKey: "\u0000" }],
          [p.extend, { ...lease, leaseMs: 0 }],
          [p.extend, { ...lease, leaseMs: 10_000_000_000 }],
          [p.extend, {}],
        ];
        if (p.acquire === "semaphore.acquire") {
          cases.push(
            [p.acquire, { ...valid, permits: 0 }],
            [p.acquire, { ...valid, permits: 2.5 }],
            // Valid for the schema, more than the resource's total: the use case's refusal.
            [p.acquire, { ...valid, permits: 2 }],
          );
        }
        const fromSocket = await Promise.all(socket.frame(...cases));
        for (const [index, [path, input]] of cases.entries()) {
          const expected = await viaTrpc(creds(), path, input);
          expect(fromSocket[index], `${path} ${JSON.stringify(input)}`).toEqual(expected);
          const error = errorOf(fromSocket[index]!);
          expect(error.data.wardenCode).toBe("INVALID_ARGUMENT");
        }
        expect(await p.holders(resource, businessKey)).toEqual([]);
        socket.close();
      });

      it("answers a foreign tenant's resource exactly as an unknown one", async () => {
        const socket = await connect(creds());
        const unknown = `${p.resource().split(":")[0]}:none-${uid()}`;
        const foreign = p.foreign();
        const lease = { businessKey: "k", lockId: "A".repeat(22), tier: "redis" };
        for (const [path, input] of [
          [p.acquire, { businessKey: "k", ownerId: "o" }],
          [p.release, lease],
          [p.extend, lease],
        ] as const) {
          const sForeign = await socket.call(path, { ...input, resource: foreign });
          const sUnknown = await socket.call(path, { ...input, resource: unknown });
          const hForeign = await viaTrpc(creds(), path, { ...input, resource: foreign });
          expect(sForeign).toEqual(hForeign);
          expect(errorOf(sForeign).data.wardenCode).toBe("UNKNOWN_RESOURCE");
          const named = (outcome: Outcome, name: string) =>
            JSON.parse(JSON.stringify(outcome).replaceAll(name, "<resource>")) as unknown;
          expect(named(sForeign, foreign)).toEqual(named(sUnknown, unknown));
        }
        // The other tenant's key was not touched.
        expect(await otherHolders(p, foreign, "k")).toEqual([]);
        socket.close();
      });

      it("wakes a waiting acquire on a release, answering it as tRPC does", async () => {
        const holder = await connect(creds());
        const waiter = await connect({ apiKey: tenant.key, clientId: "waiter" });
        const resource = p.resource();
        const run = async (key: string, waitVia: (input: unknown) => Promise<Outcome>) => {
          // A writer blocks both modes; the semaphore has one permit.
          const blocking = p.name === "semaphore" ? p.acquire : "rwlock.acquireWrite";
          const held = grantOf(
            await holder.call(blocking, { resource, businessKey: key, ownerId: "first" }),
          );
          const waiting = waitVia({
            resource,
            businessKey: key,
            ownerId: "second",
            waitMs: 15_000,
          });
          await until(() => h.services.waiters.list(resource, key).length === 1, 10_000);
          const released = await holder.call(p.release, {
            resource,
            businessKey: key,
            lockId: held.lockId,
            tier: held.tier,
          });
          expect(released.ok).toBe(true);
          const woken = await waiting;
          const grant = grantOf(woken);
          await holder.call(p.release, {
            resource,
            businessKey: key,
            lockId: grant.lockId,
            tier: grant.tier,
          });
          return woken;
        };
        const fromSocket = await run(`w-${uid()}`, (input) => waiter.call(p.acquire, input));
        const fromTrpc = await run(`w-${uid()}`, (input) =>
          viaTrpc({ apiKey: tenant.key, clientId: "waiter" }, p.acquire, input),
        );
        expect(normalised(fromSocket)).toEqual(normalised(fromTrpc));
        expect(fromSocket.value).toMatchObject({ granted: true, holder: { clientId: "waiter" } });
        holder.close();
        waiter.close();
      });

      it("ends a wait withdrawn by cancelWait with the same WAIT_CANCELLED as tRPC", async () => {
        const holder = await connect(creds());
        const waiter = await connect({ apiKey: tenant.key, clientId: "canceller" });
        const resource = p.resource();
        const blocking = p.name === "semaphore" ? p.acquire : "rwlock.acquireWrite";
        const waitId = `wait-${uid()}`;
        const run = async (key: string, waitVia: (input: unknown) => Promise<Outcome>) => {
          const held = grantOf(
            await holder.call(blocking, { resource, businessKey: key, ownerId: "first" }),
          );
          const waiting = waitVia({
            resource,
            businessKey: key,
            ownerId: "second",
            waitMs: 15_000,
            waitId,
          });
          await until(() => h.services.waiters.list(resource, key).length === 1, 10_000);
          const cancelled = await holder.op("cancelWait", { waitId });
          expect(cancelled).toMatchObject({ ok: true, value: { cancelled: true } });
          const ended = await waiting;
          await until(() => h.services.waiters.list(resource, key).length === 0, 10_000);
          await holder.call(p.release, {
            resource,
            businessKey: key,
            lockId: held.lockId,
            tier: held.tier,
          });
          expect(await p.holders(resource, key)).toEqual([]);
          return ended;
        };
        const fromSocket = await run(`x-${uid()}`, (input) => waiter.call(p.acquire, input));
        const fromTrpc = await run(`x-${uid()}`, (input) =>
          viaTrpc({ apiKey: tenant.key, clientId: "canceller" }, p.acquire, input),
        );
        expect(fromSocket).toEqual(fromTrpc);
        expect(errorOf(fromSocket).data).toMatchObject({
          wardenCode: "WAIT_CANCELLED",
          details: { waitId },
        });
        holder.close();
        waiter.close();
      });

      it("ends a wait when its socket closes: it leaves the queue and is never granted", async () => {
        const holder = await connect(creds());
        const waiter = await connect({ apiKey: tenant.key, clientId: "closer" });
        const resource = p.resource();
        const key = `c-${uid()}`;
        const blocking = p.name === "semaphore" ? p.acquire : "rwlock.acquireWrite";
        const held = grantOf(
          await holder.call(blocking, { resource, businessKey: key, ownerId: "first" }),
        );
        void waiter.call(p.acquire, {
          resource,
          businessKey: key,
          ownerId: "gone",
          waitMs: 15_000,
        });
        await until(() => h.services.waiters.list(resource, key).length === 1, 10_000);
        waiter.close();
        await until(() => h.services.waiters.list(resource, key).length === 0, 10_000);
        const released = await holder.call(p.release, {
          resource,
          businessKey: key,
          lockId: held.lockId,
          tier: held.tier,
        });
        expect(released.ok).toBe(true);
        await new Promise((resolve) => setTimeout(resolve, 300));
        expect(await p.holders(resource, key)).toEqual([]);
        holder.close();
      });
    });
  }

  it("serves a lock-scoped key as tRPC does, and refuses a console session and unknown keys alike", async () => {
    const resource = sem;
    const key = `scope-${uid()}`;
    const lockKey = { apiKey: lockOnlyKey };
    const socket = await connect(lockKey);
    const s1 = await socket.call("semaphore.acquire", { resource, businessKey: key, ownerId: "o" });
    const h1 = await viaTrpc(lockKey, "semaphore.acquire", {
      resource,
      businessKey: `${key}-h`,
      ownerId: "o",
    });
    expect(normalised(s1)).toEqual(normalised(h1));
    expect(s1.ok).toBe(true);
    for (const [businessKey, grant] of [
      [key, grantOf(s1)],
      [`${key}-h`, grantOf(h1)],
    ] as const) {
      const released = await socket.call("semaphore.release", {
        resource,
        businessKey,
        lockId: grant.lockId,
        tier: grant.tier,
      });
      expect(released.ok).toBe(true);
    }
    socket.close();

    const session = { cookie: `warden_session=${operator.sessionToken}` };
    const asOperator = await connect(session);
    const unknownKey = { apiKey: "wdn_unknown_key_that_is_not_stored" };
    const asUnknown = await connect(unknownKey);
    for (const path of DIRECT_CALL_PATHS) {
      const input = {
        resource: rw,
        businessKey: "k",
        ownerId: "o",
        lockId: "A".repeat(22),
        tier: "redis",
      };
      const sOperator = await asOperator.call(path, input);
      expect(sOperator).toEqual(await viaTrpc(session, path, input));
      expect(errorOf(sOperator).data.wardenCode).toMatch(/FORBIDDEN|UNAUTHORIZED/);
      const sUnknown = await asUnknown.call(path, input);
      expect(sUnknown).toEqual(await viaTrpc(unknownKey, path, input));
      expect(errorOf(sUnknown).data.wardenCode).toBe("UNAUTHORIZED");
    }
    asOperator.close();
    asUnknown.close();
  });

  it("spends one quota token a call and refuses past the quota as tRPC does, changing nothing", async () => {
    const slow = await h.tenant(undefined, 1);
    const resource = await registerSemaphore(slow, 10);
    const credentials = { apiKey: slow.key };
    const principal = (await h.services.apiKeys.resolve(slow.key))!;
    const holders = async (businessKey: string) =>
      (
        await h.services.semaphoreUseCases!.inspect(
          { principal, clientId: CLIENT },
          { resource, businessKey },
        )
      ).holders;
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const socket = await connect(credentials);
    // One frame of more calls than the quota has tokens: the first are served, the rest
    // refused before anything is read.
    const keys = Array.from({ length: 6 }, (_, i) => `q-${i}-${uid()}`);
    const answers = await Promise.all(
      socket.frame(
        ...keys.map(
          (businessKey) =>
            ["semaphore.acquire", { resource, businessKey, ownerId: "o" }] as [string, unknown],
        ),
      ),
    );
    const refused = answers.filter((answer) => !answer.ok);
    expect(refused.length).toBeGreaterThan(0);
    expect(answers[0]!.ok).toBe(true);
    for (const [index, answer] of answers.entries()) {
      expect(await holders(keys[index]!)).toHaveLength(answer.ok ? 1 : 0);
    }
    // The same burst through tRPC's HTTP endpoint, after the bucket refilled.
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    let fromTrpc: Outcome | null = null;
    for (let i = 0; i < 6 && fromTrpc === null; i++) {
      const answer = await viaTrpc(credentials, "semaphore.acquire", {
        resource,
        businessKey: `qh-${i}-${uid()}`,
        ownerId: "o",
      });
      if (!answer.ok) fromTrpc = answer;
    }
    expect(fromTrpc).not.toBeNull();
    const error = errorOf(refused[0]!);
    expect(error.data.wardenCode).toBe("QUOTA_EXCEEDED");
    expect(error.data.retryAfterMs).toBeGreaterThan(0);
    expect(error.data.details).toEqual({ retryAfterMs: error.data.retryAfterMs });
    expect(error.message).toBe(
      `tenant ${slow.id} is over its request-rate quota; nothing was done — retry in ${error.data.retryAfterMs} ms`,
    );
    // Equal but for the wait (a number of ms, in the message too).
    const shapeOf = (outcome: Outcome) =>
      normalised(JSON.parse(JSON.stringify(outcome).replace(/\d+ ms/g, "<n> ms")));
    expect(shapeOf(refused[0]!)).toEqual(shapeOf(fromTrpc!));
    socket.close();
  });

  it("still runs every other path through tRPC (inspect, a query type for a mutation path)", async () => {
    const socket = await connect(creds());
    const key = { resource: sem, businessKey: `i-${uid()}` };
    const s1 = await socket.call("semaphore.inspect", key, "query");
    expect(s1).toEqual(await viaTrpc(creds(), "semaphore.inspect", key, "query"));
    expect(s1.ok).toBe(true);
    const s2 = await socket.call("semaphore.acquire", { ...key, ownerId: "o" }, "query");
    expect(errorOf(s2).data.code).toBe("NOT_FOUND");
    expect(await semaphoreHolders(sem, key.businessKey)).toEqual([]);
    socket.close();
  });

  it("writes the audit rows and metrics of the direct calls", async () => {
    const socket = await connect(creds());
    const registry = h.services.metrics.registry;
    const count = async (name: string, labels: Record<string, string>) => {
      const metric = registry.getSingleMetric(name);
      if (!metric) return 0;
      const { values } = await metric.get();
      return values
        .filter((sample) =>
          Object.entries(labels).every(([label, value]) => sample.labels[label] === value),
        )
        .reduce((sum, sample) => sum + sample.value, 0);
    };
    const semBefore = await count("warden_semaphore_acquires_total", {
      resource: sem,
      outcome: "granted",
    });
    const semReleasedBefore = await count("warden_semaphore_releases_total", {
      resource: sem,
      outcome: "released",
    });
    const rwBefore = await count("warden_rwlock_acquires_total", {
      resource: rw,
      mode: "read",
      outcome: "granted",
    });
    const key = `a-${uid()}`;
    const permit = grantOf(
      await socket.call("semaphore.acquire", { resource: sem, businessKey: key, ownerId: "o" }),
    );
    const read = grantOf(
      await socket.call("rwlock.acquireRead", { resource: rw, businessKey: key, ownerId: "o" }),
    );
    expect(
      (await socket.call("semaphore.release", { resource: sem, businessKey: key, ...permit })).ok,
    ).toBe(true);
    expect(
      (await socket.call("rwlock.release", { resource: rw, businessKey: key, ...read })).ok,
    ).toBe(true);

    expect(
      await count("warden_semaphore_acquires_total", { resource: sem, outcome: "granted" }),
    ).toBe(semBefore + 1);
    expect(
      await count("warden_semaphore_releases_total", { resource: sem, outcome: "released" }),
    ).toBe(semReleasedBefore + 1);
    expect(
      await count("warden_rwlock_acquires_total", {
        resource: rw,
        mode: "read",
        outcome: "granted",
      }),
    ).toBe(rwBefore + 1);

    // A permit grant and a read grant are one hold row each (decisions 0196 and 0199), read
    // back as their grant and release.
    const stepsOf = async (lockId: string, count: number) => {
      let steps: string[] = [];
      await until(async () => {
        const found = await tenant.caller().event.search({ lockId });
        steps = found.events.map((event) => `${event.type}:${event.tenantId}`).sort();
        return steps.length >= count;
      }, 20_000);
      return steps;
    };
    expect(await stepsOf(permit.lockId, 2)).toEqual(
      [`permit-grant:${tenant.id}`, `permit-release:${tenant.id}`].sort(),
    );
    expect(await stepsOf(read.lockId, 2)).toEqual(
      [`rwlock-grant:${tenant.id}`, `rwlock-release:${tenant.id}`].sort(),
    );
    socket.close();
  });
});

/** The other tenant's live grants of its own key (nothing a refused call could have made). */
async function otherHolders(p: Primitive, resource: string, businessKey: string) {
  if (p.name === "semaphore") {
    return (await other.caller().semaphore.inspect({ resource, businessKey })).holders;
  }
  const seen = await other.caller().rwlock.inspect({ resource, businessKey });
  return [...seen.readers, ...(seen.writer ? [seen.writer] : [])];
}
