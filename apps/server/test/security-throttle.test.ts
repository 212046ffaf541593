import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clientAddress } from "../src/auth/client-address.js";
import { createContextInner, type RequestMeta } from "../src/context.js";
import { startHttpServer, type HttpServerHandle } from "../src/http/server.js";
import { RateLimiter } from "../src/quota/rate-limiter.js";
import { RedisBuckets } from "../src/quota/redis-buckets.js";
import { createCaller } from "../src/routers/_app.js";
import { expectCode } from "./support/expect-trpc.js";
import { eventually } from "./support/fleet.js";
import { startHarness, uid, type Harness } from "./support/harness.js";

// Issue 18, findings 5, 6 and 9 (guessed keys), and issue 14's "quotas and login throttle
// are per instance": one canonical login name, throttles per (name, client address) behind
// a trusted proxy plus a global ceiling, all in Redis so a second instance sees them.

const PASSWORD = "correct horse battery staple";

let h: Harness;
let h2: Harness;

beforeAll(async () => {
  h = await startHarness();
  h2 = await startHarness({ shareWith: h });
});
afterAll(async () => {
  await h2?.closeServices();
  await h?.close();
});

function login(harness: Harness, ip: string, username: string, password = PASSWORD) {
  return harness.anonymous({ ip }).auth.login({ username, password });
}

function addr(): string {
  return `198.51.100.${Math.floor(Math.random() * 250) + 1}-${uid()}`;
}

async function throttle(harness: Harness, ip: string, username: string): Promise<void> {
  for (let i = 0; i < 20; i += 1) {
    const error = await login(harness, ip, username, "wrong password").catch((e: unknown) => e);
    if ((error as { code?: string }).code === "TOO_MANY_REQUESTS") return;
  }
  throw new Error("never throttled");
}

describe("one canonical login name", () => {
  it("spellings that a folding collation merged are other names: none logs in", async () => {
    const vera = await h.operator("viewer");
    const name = vera.username; // e.g. "viewer-1a2b3c4d"
    const variants = [
      `${name} `,
      name.toUpperCase(),
      name.replace("e", "é"),
      name.replace("e", "e\u0301"),
      name.replace("e", "É"),
    ];
    for (const variant of variants) {
      await expectCode(login(h, addr(), variant), "UNAUTHORIZED");
    }
    // The name itself still logs in.
    expect((await login(h, addr(), name)).username).toBe(name);
  });

  it("throttles the canonical name: after the limit, no spelling gets another try", async () => {
    const operator = await h.operator("viewer");
    const ip = addr();
    await throttle(h, ip, operator.username);
    await expectCode(login(h, ip, operator.username), "TOO_MANY_REQUESTS");
    await expectCode(login(h, ip, operator.username.normalize("NFD")), "TOO_MANY_REQUESTS");
  });
});

describe("login throttles per client address, fleet-wide", () => {
  it("another address still logs in the same user; the throttle holds on a second instance", async () => {
    const operator = await h.operator("viewer");
    const attacker = addr();
    await throttle(h, attacker, operator.username);
    // Same user and address on the other instance: refused there too (Redis).
    await expectCode(login(h2, attacker, operator.username), "TOO_MANY_REQUESTS");
    // The operator at their own address is not locked out.
    expect((await login(h2, addr(), operator.username)).username).toBe(operator.username);
  });

  it("has a global ceiling over every user and address", async () => {
    // A limiter of its own (Redis-backed like the fleet's, on the same Redis), so the tiny
    // ceiling drains neither the fleet's shared bucket nor, when a loaded Redis answers late,
    // the per-instance fallback bucket of the harness that later tests log in through.
    const buckets = new RedisBuckets({ mode: "standalone", url: h.redis.url });
    const limiter = new RateLimiter(buckets);
    const services = {
      ...h.services,
      limiter,
      config: { ...h.services.config, loginAttemptsGlobalPerMinute: 4 },
    };
    // Refilled in Redis only: through the limiter, a Redis answer late enough to count as
    // down would create its per-instance fallback bucket with this huge burst.
    const ceilingKey = ["w:{thr:login}:login|all"];
    // The first take may find the new connection not open yet: retried until it answers.
    await eventually(async () =>
      buckets.take(ceilingKey, [{ ratePerSecond: 1e6, burst: 1e6 }], 1).then(
        () => true,
        () => false,
      ),
    );
    const codes: string[] = [];
    // 4 tokens in Redis, and 4 more in the fallback bucket if a loaded Redis answers late
    // once: a ninth attempt at the latest is refused.
    for (let i = 0; i < 12 && !codes.includes("TOO_MANY_REQUESTS"); i += 1) {
      const error = await createCaller(createContextInner(services, { ip: addr() }))
        .auth.login({ username: `nobody-${uid()}`, password: "wrong password" })
        .catch((e: unknown) => e as { code: string });
      codes.push((error as { code: string }).code);
    }
    expect(codes).toContain("TOO_MANY_REQUESTS");
    // Refill the shared ceiling for the tests that follow.
    await buckets.take(ceilingKey, [{ ratePerSecond: 1e6, burst: 1e6 }], 1);
    await buckets.close();
  });

  it("takes the client address from a trusted proxy's X-Forwarded-For (the console)", async () => {
    const server: HttpServerHandle = await startHttpServer(
      {
        ...h.services,
        config: { ...h.services.config, trustedProxies: ["127.0.0.1", "::1"] },
      },
      { host: "127.0.0.1", port: 0, maxBodyBytes: 64 * 1024, shutdownGraceMs: 100 },
    );
    try {
      const operator = await h.operator("viewer");
      const post = (forwardedFor: string, password: string) =>
        fetch(`${server.url}/trpc/auth.login`, {
          method: "POST",
          headers: { "content-type": "application/json", "x-forwarded-for": forwardedFor },
          body: JSON.stringify({ username: operator.username, password }),
        });
      let status = 0;
      for (let i = 0; i < 30 && status !== 429; i += 1) {
        status = (await post("203.0.113.7", "wrong password")).status;
      }
      expect(status).toBe(429);
      // Everyone else behind the same console is unaffected.
      expect((await post("203.0.113.8", PASSWORD)).status).toBe(200);
    } finally {
      await server.close();
    }
  });

  it("reads X-Forwarded-For only from trusted proxies, right to left", () => {
    expect(clientAddress("10.0.0.9", "1.2.3.4", [])).toBe("10.0.0.9");
    expect(clientAddress("127.0.0.1", "1.2.3.4", ["127.0.0.1"])).toBe("1.2.3.4");
    expect(clientAddress("::ffff:127.0.0.1", "9.9.9.9, 1.2.3.4", ["127.0.0.1"])).toBe("1.2.3.4");
    expect(clientAddress("127.0.0.1", "1.2.3.4, 10.0.0.2", ["127.0.0.1", "10.0.0.2"])).toBe(
      "1.2.3.4",
    );
    expect(clientAddress("127.0.0.1", "x\nforged", ["127.0.0.1"])).toBe("invalid:127.0.0.1");
  });
});

describe("guessed API keys", () => {
  it("throttles unknown keys per address without touching other addresses or real keys", async () => {
    const tenant = await h.tenant();
    const ip = addr();
    const guess = (meta: Partial<RequestMeta>) =>
      h.anonymous({ apiKey: `wdn_guess-${uid()}`, clientId: "c", ...meta }).resource.list({});
    const codes: string[] = [];
    for (let i = 0; i < 40; i += 1) {
      codes.push(((await guess({ ip }).catch((e: unknown) => e)) as { code: string }).code);
    }
    expect(codes.slice(0, 30).every((code) => code === "UNAUTHORIZED")).toBe(true);
    expect(codes.slice(30)).toContain("TOO_MANY_REQUESTS");
    // The same address on the other instance is throttled too.
    await expectCode(
      h2.anonymous({ apiKey: `wdn_guess-${uid()}`, clientId: "c", ip }).resource.list({}),
      "TOO_MANY_REQUESTS",
    );
    await expectCode(guess({ ip: addr() }), "UNAUTHORIZED");
    // A real key from another address works.
    await tenant.caller({ ip: addr() }).resource.list({});
  });
});

describe("tenant quota", () => {
  it("holds for the fleet: two instances together admit about the rate, not twice it", async () => {
    const tenant = await h.tenant(`quota-${uid()}`, 10);
    const other = (meta: Partial<RequestMeta> = {}) =>
      createCaller(
        createContextInner(h2.services, { apiKey: tenant.key, clientId: "q2", ...meta }),
      );
    // First contact on each instance; then let the shared bucket fill up again.
    await tenant.caller().resource.list({});
    await other().resource.list({});
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    let admitted = 0;
    for (let i = 0; i < 25; i += 1) {
      for (const caller of [tenant.caller(), other()]) {
        admitted += await caller.resource.list({}).then(
          () => 1,
          () => 0,
        );
      }
    }
    // Per instance this was 2 × 10 = 20; shared, 10 plus what refills meanwhile.
    expect(admitted).toBeGreaterThanOrEqual(5);
    expect(admitted).toBeLessThanOrEqual(15);
  });

  it("falls back to per-instance limits while Redis does not answer", async () => {
    const dead = new RedisBuckets({ mode: "standalone", url: "redis://127.0.0.1:1" });
    try {
      const limiter = new RateLimiter(dead);
      const rate = [{ ratePerSecond: 1, burst: 3 }];
      const waits = [];
      for (let i = 0; i < 5; i += 1) waits.push(await limiter.takeAll(["login|x"], rate));
      expect(waits.slice(0, 3)).toEqual([0, 0, 0]);
      expect(waits[3]).toBeGreaterThan(0);
      expect(limiter.fleetWide).toBe(false);
      let refused = 0;
      for (let i = 0; i < 10; i += 1) if (limiter.take("tenant:x", 5, 5) > 0) refused += 1;
      expect(refused).toBe(5);
    } finally {
      await dead.close();
    }
  });
});
