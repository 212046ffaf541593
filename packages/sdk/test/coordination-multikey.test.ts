import { createHash, randomBytes } from "node:crypto";
import { createTRPCClient, httpLink } from "@trpc/client";
import type { AppRouter } from "@warden/server";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
  ErrorCode,
  InvalidArgumentError,
  LeaseLostError,
  LockTimeoutError,
  MAX_KEYS_PER_SET,
  UnknownResourceError,
  createWarden,
  type Warden,
} from "../src/index.js";
import { startStack, uid, type Stack } from "./support/stack.js";
import { delay, until } from "./support/until.js";

let stack: Stack;

beforeAll(async () => {
  stack = await startStack();
});

afterAll(async () => {
  await stack?.close();
});

/** The rejection of `promise` (fails the test if it resolves). */
function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error("expected a rejection");
    },
    (error: unknown) => error,
  );
}

/** Every key of `keys` that somebody holds now. */
async function heldKeys(warden: Warden, resource: string, keys: readonly string[]) {
  const infos = await Promise.all(keys.map((key) => warden.inspect(resource, key)));
  return keys.filter((_, i) => infos[i] !== null);
}

describe("warden.acquireAll", () => {
  test("takes every key in canonical order, one owner, a fence per key; release frees all", async () => {
    const resource = await stack.resource("multi");
    const warden = stack.client();
    const other = stack.client();
    const set = await warden.acquireAll(resource, ["c", "a", "b"]);
    expect(set.businessKeys).toEqual(["a", "b", "c"]);
    expect(set.held).toBe(true);
    expect(new Set(set.locks.map((lock) => lock.ownerId))).toEqual(new Set([set.ownerId]));
    for (const key of ["a", "b", "c"]) {
      const info = await other.inspect(resource, key);
      expect(info?.lockId).toBe(set.lock(key).lockId);
      expect(info?.fence).toBe(set.fence(key));
      expect(set.fences.get(key)).toBe(info?.fence);
    }
    expect(() => set.fence("d")).toThrow(InvalidArgumentError);

    // Another caller's overlapping set waits; release() frees every member together.
    const waiting = other.acquireAll(resource, ["b", "d"], { waitMs: 10_000 });
    await delay(150);
    expect(await heldKeys(other, resource, ["d"])).toEqual([]);
    await set.release();
    expect(set.held).toBe(false);
    const next = await waiting;
    expect(BigInt(next.fence("b")!)).toBeGreaterThan(BigInt(set.fence("b")!));
    expect(await heldKeys(other, resource, ["a", "c"])).toEqual([]);
    await next.release();
    await set.release(); // idempotent
    expect(await heldKeys(other, resource, ["a", "b", "c", "d"])).toEqual([]);
  });

  test("all or nothing: one key held elsewhere → timeout after waitMs, nothing taken, others free", async () => {
    const resource = await stack.resource("multi-aon");
    const holder = stack.client();
    const warden = stack.client();
    const blocker = await holder.acquire(resource, "m");
    const keys = ["z", "a", "m", "q"];
    const error = await failure(warden.acquireAll(resource, keys, { waitMs: 400 }));
    expect(error).toBeInstanceOf(LockTimeoutError);
    expect((error as LockTimeoutError).waitMs).toBe(400); // the set's deadline, not a member's rest
    // The keys before "m" in canonical order were taken and released; those after never were.
    expect(await heldKeys(warden, resource, keys)).toEqual(["m"]);
    expect((await warden.inspect(resource, "m"))?.lockId).toBe(blocker.lockId);
    expect(await warden.waiters(resource, "m")).toEqual([]);
    // The free keys are really free: another client takes them at once.
    const rest = await holder.acquireAll(resource, ["a", "q", "z"], { waitMs: 0 });
    expect(rest.held).toBe(true);
    await rest.release();

    // waitMs: 0 is an all-or-nothing try.
    await expect(warden.acquireAll(resource, keys, { waitMs: 0 })).rejects.toBeInstanceOf(
      LockTimeoutError,
    );
    expect(await heldKeys(warden, resource, keys)).toEqual(["m"]);

    // Freed within the wait: granted.
    setTimeout(() => void blocker.release(), 200);
    const all = await warden.acquireAll(resource, keys, { waitMs: 10_000 });
    expect(all.businessKeys).toEqual(["a", "m", "q", "z"]);
    await all.release();
  });

  test("the caller's signal ends the wait: it rejects with the reason and nothing is held", async () => {
    const resource = await stack.resource("multi-cancel");
    const holder = stack.client();
    const warden = stack.client();
    const blocker = await holder.acquire(resource, "k2");
    const controller = new AbortController();
    const reason = new Error("request went away");
    setTimeout(() => controller.abort(reason), 200);
    await expect(
      warden.acquireAll(resource, ["k1", "k2", "k3"], {
        waitMs: 20_000,
        signal: controller.signal,
      }),
    ).rejects.toBe(reason);
    expect(await heldKeys(warden, resource, ["k1", "k2", "k3"])).toEqual(["k2"]);
    await blocker.release();
  });

  test("overlapping sets asked in opposite orders never deadlock (many rounds, two clients)", async () => {
    const resource = await stack.resource("multi-order");
    const [first, second] = [stack.client(), stack.client()];
    const up = ["k1", "k2", "k3", "k4", "k5", "k6"];
    const down = ["k0", "k6", "k5", "k4", "k3"]; // overlaps k3..k6, given the other way round
    const holding = new Set<string>();
    const overlaps: string[] = [];
    const rounds = 25;
    const run = async (warden: Warden, keys: string[], who: string) => {
      let done = 0;
      for (let round = 0; round < rounds; round++) {
        // A deadlock would show as a LockTimeoutError here, never as a hang.
        const set = await warden.acquireAll(resource, keys, { waitMs: 20_000 });
        for (const key of set.businessKeys) {
          if (holding.has(key)) overlaps.push(`${who}:${key}`);
          holding.add(key);
        }
        await delay(round % 3);
        for (const key of set.businessKeys) holding.delete(key);
        await set.release();
        done++;
      }
      return done;
    };
    const counts = await Promise.all([
      run(first, up, "first"),
      run(second, down, "second"),
      run(first, [...down].reverse(), "first-again"),
    ]);
    expect(counts).toEqual([rounds, rounds, rounds]);
    expect(overlaps).toEqual([]);
    expect(await heldKeys(first, resource, ["k0", ...up])).toEqual([]);
  });

  test("the set's signal aborts when one member is force-released; extend and release act on all", async () => {
    const resource = await stack.resource("multi-loss", { defaultLeaseMs: 1_500 });
    const warden = stack.client();
    const set = await warden.acquireAll(resource, ["x", "y", "z"]);
    await set.extend(20_000);
    for (const key of set.businessKeys) {
      expect((await warden.inspect(resource, key))!.ttlMs).toBeGreaterThan(10_000);
    }
    const victim = set.lock("y");
    await stack.server().services.locks.forceRelease({
      resource,
      businessKey: "y",
      lockId: victim.lockId,
    });
    // The watchdog learns it at the next renewal (extend now asks at once).
    await expect(set.extend()).rejects.toBeInstanceOf(LeaseLostError);
    await until(() => set.signal.aborted, 10_000);
    expect(set.signal.reason).toBeInstanceOf(LeaseLostError);
    expect((set.signal.reason as LeaseLostError).lockId).toBe(victim.lockId);
    expect(set.held).toBe(false);
    expect(set.lock("x").held).toBe(true);
    await expect(set.extend()).rejects.toBeInstanceOf(LeaseLostError);
    await set.release();
    expect(await heldKeys(warden, resource, ["x", "y", "z"])).toEqual([]);
  });

  test("a member lost while the set waits for the rest: LeaseLostError, nothing held", async () => {
    const resource = await stack.resource("multi-lost-wait", { defaultLeaseMs: 1_500 });
    const holder = stack.client();
    const warden = stack.client();
    const blocker = await holder.acquire(resource, "b");
    const pending = warden.acquireAll(resource, ["a", "b"], { waitMs: 20_000 });
    const taken = await until(() => warden.inspect(resource, "a"), 10_000);
    await stack.server().services.locks.forceRelease({
      resource,
      businessKey: "a",
      lockId: taken.lockId,
    });
    await expect(pending).rejects.toBeInstanceOf(LeaseLostError);
    expect(await heldKeys(warden, resource, ["a", "b"])).toEqual(["b"]);
    expect(await warden.waiters(resource, "b")).toEqual([]);
    await blocker.release();
  });

  describe("bad input is a typed INVALID_ARGUMENT (or UNKNOWN_RESOURCE) and takes nothing", () => {
    const cases: Array<[string, unknown, string]> = [
      ["an empty list", [], "businessKeys"],
      ["a key named twice", ["a", "b", "a"], "businessKeys[2]"],
      // "é" composed and decomposed are one key after normalization, as acquire sees it.
      ["a key named twice in two Unicode forms", ["\u00e9", "b", "e\u0301"], "businessKeys[2]"],
      [
        "more than 64 keys",
        Array.from({ length: MAX_KEYS_PER_SET + 1 }, (_, i) => `k${i}`),
        "businessKeys",
      ],
      ["an invalid key", ["a", ""], "businessKeys[1]"],
      ["a key that is not a string", ["a", 7], "businessKeys[1]"],
      ["not an array", "a,b", "businessKeys"],
    ];
    test.each(cases)("%s", async (_, keys, field) => {
      const resource = await stack.resource("multi-bad");
      const warden = stack.client();
      const error = (await failure(
        warden.acquireAll(resource, keys as string[]),
      )) as InvalidArgumentError;
      expect(error).toBeInstanceOf(InvalidArgumentError);
      expect(error.code).toBe(ErrorCode.InvalidArgument);
      expect(error.details.field).toBe(field);
      const named = Array.isArray(keys)
        ? keys.filter((k): k is string => typeof k === "string" && k !== "")
        : [];
      expect(await heldKeys(warden, resource, named.slice(0, 8))).toEqual([]);
    });

    test("64 keys are allowed", async () => {
      const resource = await stack.resource("multi-64");
      const warden = stack.client();
      const keys = Array.from({ length: MAX_KEYS_PER_SET }, (_, i) => `k${i}`);
      const set = await warden.acquireAll(resource, keys);
      expect(set.locks).toHaveLength(64);
      await set.release();
      expect(await heldKeys(warden, resource, keys)).toEqual([]);
    });

    test("bad options are refused before anything is sent", async () => {
      const resource = await stack.resource("multi-opts");
      const warden = stack.client();
      const error = (await failure(
        warden.acquireAll(resource, ["a"], { waitMs: -1 }),
      )) as InvalidArgumentError;
      expect(error).toBeInstanceOf(InvalidArgumentError);
      expect(error.details.field).toBe("waitMs");
      expect(await heldKeys(warden, resource, ["a"])).toEqual([]);
    });

    test("an unknown resource, and another tenant's resource, are UNKNOWN_RESOURCE", async () => {
      const warden = stack.client();
      await expect(warden.acquireAll(`nope:${uid()}`, ["a", "b"])).rejects.toBeInstanceOf(
        UnknownResourceError,
      );
      // A resource of another tenant: the keys of a set belong to the caller's own tenant,
      // so the set is refused exactly as for an unknown resource, and nothing is taken.
      const foreign = await otherTenantResource();
      const error = await failure(warden.acquireAll(foreign.resource, ["a", "b"]));
      expect(error).toBeInstanceOf(UnknownResourceError);
      expect(await heldKeys(foreign.client, foreign.resource, ["a", "b"])).toEqual([]);
      await foreign.client.close();
    });
  });
});

/** A second tenant with its own key and a resource; its client sees its own locks. */
async function otherTenantResource(): Promise<{ resource: string; client: Warden }> {
  const prisma = stack.server().services.prisma;
  const tenantId = `sdk-other-${uid()}`;
  const apiKey = `wdn_${randomBytes(32).toString("base64url")}`;
  await prisma.tenant.create({
    data: { id: tenantId, name: tenantId, requestsPerSecond: 100_000 },
  });
  await prisma.apiKey.create({
    data: {
      id: randomBytes(12).toString("hex"),
      tenantId,
      name: "other tenant",
      prefix: apiKey.slice(0, 12),
      hash: createHash("sha256").update(apiKey, "utf8").digest("hex"),
      scopes: "lock,admin",
    },
  });
  const client = createWarden({ url: stack.url, apiKey, requestTimeoutMs: 3_000 });
  // The same name the caller would use: registered in the other tenant only.
  const resource = `theirs:${uid()}`;
  const admin = createTRPCClient<AppRouter>({
    links: [
      httpLink({
        url: `${stack.url}/trpc`,
        headers: { authorization: `Bearer ${apiKey}`, "x-warden-client-id": "other-admin" },
      }),
    ],
  });
  await admin.resource.create.mutate({
    name: resource,
    defaultLeaseMs: 5_000,
    maxLeaseMs: 60_000,
    maxRenewals: null,
    expectedHoldMs: null,
    degrade: true,
    localFallback: "deny",
    fair: false,
    waitReplicas: 0,
    description: "other tenant",
  });
  return { resource, client };
}
