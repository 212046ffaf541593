import {
  InvalidArgumentError,
  NotHolderError,
  UnknownResourceError,
  WaitCancelledError,
} from "@warden/contract";
import { acquireInputSchema } from "@warden/contract/wire";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TenantPrincipal } from "../src/auth/principal.js";
import { AppLabels, MAX_APP_LABELS, OTHER_APP, UNNAMED_APP } from "../src/metrics/app-labels.js";
import { BoundChildren } from "../src/metrics/bound-children.js";
import type { LockCaller } from "../src/usecases/index.js";
import {
  registerResource,
  startHarness,
  uid,
  type Harness,
  type TenantHandle,
} from "./support/harness.js";

let h: Harness;
let tenant: TenantHandle;
let other: TenantHandle;
let resource: string;

beforeAll(async () => {
  h = await startHarness();
  tenant = await h.tenant();
  other = await h.tenant();
  resource = await registerResource(tenant);
});
afterAll(() => h?.close());

async function callerOf(handle: TenantHandle, clientId: string | null): Promise<LockCaller> {
  const principal = await h.services.apiKeys.resolve(handle.key);
  if (!principal) throw new Error("expected the tenant's principal");
  return { principal, clientId };
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error("expected a rejection");
    },
    (error: unknown) => error,
  );
}

describe("services.lockUseCases, as every transport calls them", () => {
  it("acquire, inspect, extend and release with contract-shaped inputs and replies", async () => {
    const { lockUseCases } = h.services;
    const caller = await callerOf(tenant, "uc-client");
    const key = { resource, businessKey: `uc-${uid()}` };
    const signal = new AbortController().signal;
    const grant = await lockUseCases.acquire(
      caller,
      acquireInputSchema.parse({ ...key, ownerId: "task" }),
      signal,
    );
    if (!grant.granted) throw new Error("expected a grant");
    expect(grant).toMatchObject({ tier: "redis", currentTier: "redis", reentry: 1 });
    expect(grant.maxRenewals).toBeNull();

    const refused = await lockUseCases.acquire(
      await callerOf(tenant, "uc-other"),
      { ...key, ownerId: "task" },
      signal,
    );
    expect(refused).toMatchObject({
      granted: false,
      holder: { clientId: "uc-client", ownerId: "task" },
    });

    const inspected = await lockUseCases.inspect(caller, key);
    expect(inspected.lease?.lockId).toBe(grant.lockId);
    const extended = await lockUseCases.extend(caller, {
      ...key,
      lockId: grant.lockId,
      tier: grant.tier,
      leaseMs: 9_000,
    });
    expect(extended).toMatchObject({ lockId: grant.lockId, currentTier: "redis" });
    expect(extended.ttlMs).toBeGreaterThan(8_000);
    const released = await lockUseCases.release(caller, {
      ...key,
      lockId: grant.lockId,
      tier: grant.tier,
    });
    expect(released).toEqual({ released: true, reentry: 0, currentTier: "redis" });
    const again = await rejection(
      lockUseCases.release(caller, { ...key, lockId: grant.lockId, tier: grant.tier }),
    );
    expect(again).toBeInstanceOf(NotHolderError);
    expect((again as NotHolderError).details).toEqual({ lockId: grant.lockId, reason: "expired" });
  });

  it("refuses a caller without a clientId, or with one that is not canonical-safe", async () => {
    const { lockUseCases } = h.services;
    const key = { resource, businessKey: `uc-${uid()}`, ownerId: "task" };
    const signal = new AbortController().signal;
    for (const clientId of [null, "", "sur\ud800", "line\nbreak", "x".repeat(129)]) {
      const error = await rejection(
        lockUseCases.acquire(await callerOf(tenant, clientId), key, signal),
      );
      expect(error, String(clientId)).toBeInstanceOf(InvalidArgumentError);
      expect((error as InvalidArgumentError).details.field).toBe("clientId");
    }
    // Nothing was granted by any of them.
    expect((await lockUseCases.inspect(await callerOf(tenant, "c"), key)).lease).toBeNull();
  });

  it("holds a decomposed clientId under its canonical (NFC) form", async () => {
    const { lockUseCases } = h.services;
    const key = { resource, businessKey: `uc-${uid()}` };
    const signal = new AbortController().signal;
    const grant = await lockUseCases.acquire(
      await callerOf(tenant, "caf\u0065\u0301"),
      { ...key, ownerId: "task" },
      signal,
    );
    if (!grant.granted) throw new Error("expected a grant");
    // The same client spelled precomposed re-enters: one holder, one form.
    const again = await lockUseCases.acquire(
      await callerOf(tenant, "caf\u00e9"),
      { ...key, ownerId: "task" },
      signal,
    );
    expect(again).toMatchObject({ granted: true, lockId: grant.lockId, reentry: 2 });
    const lease = (await lockUseCases.inspect(await callerOf(tenant, "c"), key)).lease;
    expect(lease?.holder.clientId).toBe("caf\u00e9");
  });

  it("takes a business key in one form: decomposed and precomposed are one lock", async () => {
    const businessKey = `caf\u0065\u0301-${uid()}`;
    const grant = await tenant
      .caller({ clientId: "nfc-a" })
      .lock.acquire({ resource, businessKey, ownerId: "task" });
    if (!grant.granted) throw new Error("expected a grant");
    const precomposed = businessKey.normalize("NFC");
    expect(precomposed).not.toBe(businessKey);
    const other = await tenant
      .caller({ clientId: "nfc-b" })
      .lock.acquire({ resource, businessKey: precomposed, ownerId: "task" });
    expect(other).toMatchObject({ granted: false, holder: { clientId: "nfc-a" } });
    // Released under either spelling.
    const released = await tenant
      .caller({ clientId: "nfc-a" })
      .lock.release({ resource, businessKey: precomposed, lockId: grant.lockId, tier: grant.tier });
    expect(released.released).toBe(true);
  });

  it("releases a grant whose caller went away while it was being made (decision 0216)", async () => {
    const { lockUseCases } = h.services;
    const key = { resource, businessKey: `uc-${uid()}`, ownerId: "task" };
    const gone = await callerOf(tenant, "uc-gone");
    const connection = new AbortController();
    const acquiring = lockUseCases.acquire(gone, key, connection.signal);
    // The connection closes with the store's answer still on its way.
    connection.abort();
    expect(await rejection(acquiring)).toBeInstanceOf(WaitCancelledError);
    // The key is free now, not held by nobody for the lease.
    const observer = await callerOf(tenant, "uc-observer");
    expect((await lockUseCases.inspect(observer, key)).lease).toBeNull();
    const next = await lockUseCases.acquire(
      await callerOf(tenant, "uc-next"),
      key,
      new AbortController().signal,
    );
    expect(next.granted).toBe(true);
  });

  it("undoes only the re-entry a gone caller was granted, not the hold it already had", async () => {
    const { lockUseCases } = h.services;
    const key = { resource, businessKey: `uc-${uid()}`, ownerId: "task" };
    const holder = await callerOf(tenant, "uc-holder");
    const first = await lockUseCases.acquire(holder, key, new AbortController().signal);
    if (!first.granted) throw new Error("expected a grant");
    const connection = new AbortController();
    const reentering = lockUseCases.acquire(holder, key, connection.signal);
    connection.abort();
    expect(await rejection(reentering)).toBeInstanceOf(WaitCancelledError);
    const lease = (await lockUseCases.inspect(holder, key)).lease;
    expect(lease).toMatchObject({ lockId: first.lockId, reentry: 1 });
  });

  it("answers another tenant's resource as unknown", async () => {
    const error = await rejection(
      h.services.lockUseCases.inspect(await callerOf(other, "c"), {
        resource,
        businessKey: "k",
      }),
    );
    expect(error).toBeInstanceOf(UnknownResourceError);
  });
});

describe("lock metrics", () => {
  it("carry the calling application (the API key's name) as `app`", async () => {
    const caller = await callerOf(tenant, "metrics-client");
    const key = { resource, businessKey: `m-${uid()}` };
    const grant = await h.services.lockUseCases.acquire(
      caller,
      { ...key, ownerId: "task" },
      new AbortController().signal,
    );
    if (!grant.granted) throw new Error("expected a grant");
    await h.services.lockUseCases.release(caller, { ...key, lockId: grant.lockId, tier: "redis" });
    const text = await h.services.metrics.text();
    // The harness names every key "test".
    expect(text).toMatch(
      new RegExp(
        `warden_acquire_total\\{resource="${resource}",tier="redis",outcome="granted",app="test"\\} \\d+`,
      ),
    );
    expect(text).toContain(
      `warden_release_total{resource="${resource}",outcome="released",app="test"}`,
    );
  });

  it("bound the app label's cardinality", async () => {
    const labels = new AppLabels();
    const { keyName: _ignored, ...base } = (await callerOf(tenant, "c")).principal;
    const principal = (keyName?: string): TenantPrincipal =>
      keyName === undefined ? base : { ...base, keyName };
    const seen = new Set<string>();
    for (let i = 0; i < MAX_APP_LABELS * 3; i += 1) seen.add(labels.of(principal(`app-${i}`)));
    expect(seen.size).toBe(MAX_APP_LABELS + 1);
    expect(seen.has(OTHER_APP)).toBe(true);
    // The first ones keep their names, for good.
    expect(labels.of(principal("app-0"))).toBe("app-0");
    expect(labels.of(principal(`app-${MAX_APP_LABELS}`))).toBe(OTHER_APP);
    expect(labels.of(principal())).toBe(UNNAMED_APP);
    expect(new AppLabels().of(principal("evil\nname"))).toBe("evil name");
  });

  it("reuse one pre-bound child per label tuple", () => {
    let bound = 0;
    const children = new BoundChildren((values) => ({ values, id: (bound += 1) }));
    const first = children.get("r", "redis", "granted", "app");
    expect(children.get("r", "redis", "granted", "app")).toBe(first);
    expect(children.get("r", "redis", "refused", "app")).not.toBe(first);
    expect(children.size).toBe(2);
    expect(bound).toBe(2);
  });
});
