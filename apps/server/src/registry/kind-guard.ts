import { InvalidArgumentError } from "@warden/contract";
import type { Principal } from "../auth/principal.js";
import type { ResourceKind } from "../schemas/resource-policy.js";
import type { ResourceRegistry } from "./resource-registry.js";
import type { ResourceView } from "./resource-view.js";

/** The registry reads an operation of one resource kind makes. */
export type KindRegistry = Pick<
  ResourceRegistry,
  "resolve" | "get" | "resolveCached" | "getCached"
>;

const HOW: Record<ResourceKind, string> = {
  mutex: "use the lock calls (warden.acquire, withLock, lock.*)",
  semaphore: "use the semaphore calls (warden.semaphore(resource, key), semaphore.*)",
  rwlock: "use the read-write lock calls (warden.rwLock(resource, key), rwlock.*)",
};

/** The typed refusal of an operation of another kind: INVALID_ARGUMENT naming `kind`. */
export function wrongKind(resource: ResourceView, wanted: ResourceKind): InvalidArgumentError {
  return new InvalidArgumentError(
    "kind",
    `${resource.name} is a ${resource.kind} resource, not a ${wanted}: ${HOW[resource.kind]}`,
  );
}

/**
 * The registry as the operations of one kind see it (docs/decisions/0161): a resource of
 * another kind is refused with INVALID_ARGUMENT (`details.field` = `kind`) before any store
 * is touched, so a mutex call never changes a semaphore's state and back. Unknown, retired
 * (for `resolve`) and other tenants' resources stay UNKNOWN_RESOURCE, checked first.
 */
export function registryOfKind(registry: KindRegistry, kind: ResourceKind): KindRegistry {
  const check = (resource: ResourceView): ResourceView => {
    if (resource.kind !== kind) throw wrongKind(resource, kind);
    return resource;
  };
  const checkCached = (resource: ResourceView | undefined) =>
    resource === undefined ? undefined : check(resource);
  return {
    resolve: async (name: string, principal: Principal) =>
      check(await registry.resolve(name, principal)),
    get: async (name: string, principal: Principal) => check(await registry.get(name, principal)),
    resolveCached: (name: string, principal: Principal) =>
      checkCached(registry.resolveCached(name, principal)),
    getCached: (name: string, principal: Principal) =>
      checkCached(registry.getCached(name, principal)),
  };
}
