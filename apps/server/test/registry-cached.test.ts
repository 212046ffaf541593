import { InvalidArgumentError, UnknownResourceError } from "@warden/contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TenantPrincipal } from "../src/auth/principal.js";
import { registryOfKind } from "../src/registry/kind-guard.js";
import { registerResource, startHarness, uid, type Harness } from "./support/harness.js";

// The lock path asks the registry without a promise while its cached answer is fresh
// (`resolveCached`, `getCached`); these answers must be exactly `resolve`'s and `get`'s.

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h?.close());

function principal(tenantId: string, resourcePrefix?: string): TenantPrincipal {
  return {
    kind: "tenant",
    tenantId,
    keyId: `k-${uid()}`,
    scopes: ["lock"],
    requestsPerSecond: 1_000,
    ...(resourcePrefix === undefined ? {} : { resourcePrefix }),
  };
}

describe("the registry's cached answers", () => {
  it("answer nothing until the resource has been read, then what resolve and get answered", async () => {
    const tenant = await h.tenant();
    const name = await registerResource(tenant);
    const fresh = `res:${uid()}`;
    const registry = h.services.registry;
    const own = principal(tenant.id);
    // Never read by this instance: the caller must go to resolve.
    expect(registry.resolveCached(fresh, own)).toBeUndefined();
    await expect(registry.resolve(fresh, own)).rejects.toBeInstanceOf(UnknownResourceError);
    // An unknown name is cached as unknown: the same typed refusal, with no promise.
    expect(() => registry.resolveCached(fresh, own)).toThrow(UnknownResourceError);
    expect(() => registry.getCached(fresh, own)).toThrow(UnknownResourceError);

    const resolved = await registry.resolve(name, own);
    expect(registry.resolveCached(name, own)).toBe(resolved);
    expect(registry.getCached(name, own)).toBe(resolved);
  });

  it("refuse another tenant's resource exactly as an unknown one", async () => {
    const owner = await h.tenant();
    const other = await h.tenant();
    const name = await registerResource(owner);
    const registry = h.services.registry;
    await registry.resolve(name, principal(owner.id));
    for (const foreign of [principal(other.id), principal(owner.id, "elsewhere:")]) {
      await expect(registry.resolve(name, foreign)).rejects.toBeInstanceOf(UnknownResourceError);
      expect(() => registry.resolveCached(name, foreign)).toThrow(UnknownResourceError);
      expect(() => registry.getCached(name, foreign)).toThrow(UnknownResourceError);
    }
  });

  it("refuse a retired resource for use but still return it for reads and releases", async () => {
    const tenant = await h.tenant();
    const name = await registerResource(tenant);
    const registry = h.services.registry;
    const own = principal(tenant.id);
    await registry.resolve(name, own);
    await tenant.caller().resource.retire({ name });
    await expect(registry.resolve(name, own)).rejects.toBeInstanceOf(UnknownResourceError);
    expect(() => registry.resolveCached(name, own)).toThrow(UnknownResourceError);
    const retired = registry.getCached(name, own);
    expect(retired?.retiredAt).not.toBeNull();
    expect(retired).toBe(await registry.get(name, own));
  });

  it("keep the kind guard: another kind's resource is INVALID_ARGUMENT on field kind", async () => {
    const tenant = await h.tenant();
    const name = await registerResource(tenant, { kind: "semaphore", permits: 3 });
    const own = principal(tenant.id);
    const mutexes = registryOfKind(h.services.registry, "mutex");
    await expect(mutexes.resolve(name, own)).rejects.toBeInstanceOf(InvalidArgumentError);
    for (const cached of [
      () => mutexes.resolveCached(name, own),
      () => mutexes.getCached(name, own),
    ]) {
      let thrown: unknown;
      try {
        cached();
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(InvalidArgumentError);
      expect((thrown as InvalidArgumentError).details).toMatchObject({ field: "kind" });
    }
    const semaphores = registryOfKind(h.services.registry, "semaphore");
    expect(semaphores.resolveCached(name, own)?.kind).toBe("semaphore");
  });
});
