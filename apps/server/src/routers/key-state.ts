import { InvalidArgumentError } from "@warden/contract";
import { businessKeySchema, resourceNameSchema } from "@warden/contract/wire";
import { z } from "zod";
import type { Principal, TenantPrincipal } from "../auth/principal.js";
import type { TieredLocks } from "../locks/tiered-locks-port.js";
import type { ResourceView } from "../registry/resource-view.js";
import type { RwGrantInfo } from "../schemas/rwlock.js";
import type { PermitInfo } from "../schemas/semaphore.js";
import { authedProcedure, router } from "../trpc.js";
import { notServed } from "../errors/not-served.js";

/** Most keys one `keyState.keys` call inspects. */
export const MAX_KEY_STATE_KEYS = 50;

/** keyState.keys: some keys of one resource. */
export const keyStateInputSchema = z.object({
  resource: resourceNameSchema,
  businessKeys: z.array(businessKeySchema).min(1).max(MAX_KEY_STATE_KEYS),
});

/** A mutex key: its live lease, or the lock-delay that holds it back (docs/decisions/0175). */
export interface MutexKeyState {
  readonly businessKey: string;
  readonly lease: Awaited<ReturnType<TieredLocks["inspect"]>>;
  /** While a lock-delay holds the free key back: until when (store clock) and how long is left. */
  readonly lockDelay: { readonly until: number; readonly remainingMs: number } | null;
}

/** A semaphore key: its live permits (docs/decisions/0161). */
export interface SemaphoreKeyState {
  readonly businessKey: string;
  readonly inUse: number;
  readonly holders: readonly PermitInfo[];
}

/** An rwlock key: its writer or readers, read generation and waiting writers (decision 0185). */
export interface RwKeyState {
  readonly businessKey: string;
  readonly writer: RwGrantInfo | null;
  /** Oldest grant first. */
  readonly readers: RwGrantInfo[];
  readonly readFence: string | null;
  /** Writers whose intent currently stops new readers (writer preference). */
  readonly waitingWriters: number;
}

// The semaphore and rwlock use cases answer a tenant's SDK and take a tenant caller; they
// only check with it that the resource is visible. registry.get has already checked that for the real
// principal (an operator sees every tenant's resources, a tenant key its own), so an
// operator's read is made as the owning tenant's, for this inspect only.
function readerOf(principal: Principal, resource: ResourceView): TenantPrincipal {
  if (principal.kind === "tenant") return principal;
  const owner: TenantPrincipal = {
    kind: "tenant",
    tenantId: resource.tenantId,
    keyId: "console-read",
    scopes: ["lock"],
    requestsPerSecond: 0,
  };
  return owner;
}

/**
 * What the console shows per key (docs/decisions/0177): read-only, with any principal that may
 * see the resource (an operator of any role, or the tenant's own API key). `lock.inspect`,
 * `semaphore.inspect` and `rwlock.inspect` answer tenant API keys only.
 */
export const keyStateRouter = router({
  /**
   * The live state of up to 50 keys of one resource, in the order asked (duplicates once):
   * a mutex key's lease or lock-delay, a semaphore key's permits in use and their holders,
   * an rwlock key's writer, readers, read fence and waiting writers (docs/decisions/0185).
   * Unknown resources and other tenants' are UNKNOWN_RESOURCE alike.
   */
  keys: authedProcedure.input(keyStateInputSchema).query(async ({ ctx, input }) => {
    const { services } = ctx;
    const resource = await services.registry.get(input.resource, ctx.principal);
    const businessKeys = [...new Set(input.businessKeys)];
    const currentTier = services.locks.tier;
    if (resource.kind === "semaphore") {
      const ops = services.semaphoreUseCases;
      if (!ops) throw notServed("semaphores");
      const caller = { principal: readerOf(ctx.principal, resource), clientId: null };
      const keys: SemaphoreKeyState[] = await Promise.all(
        businessKeys.map(async (businessKey) => {
          const view = await ops.inspect(caller, { resource: resource.name, businessKey });
          return { businessKey, inUse: view.inUse, holders: view.holders };
        }),
      );
      return {
        kind: "semaphore" as const,
        totalPermits: resource.permits ?? 0,
        lockDelayMs: resource.lockDelayMs,
        keys,
        currentTier,
      };
    }
    if (resource.kind === "rwlock") {
      const rw = services.rwUseCases;
      if (!rw) throw notServed("read-write locks");
      const caller = { principal: readerOf(ctx.principal, resource), clientId: null };
      const keys: RwKeyState[] = await Promise.all(
        businessKeys.map(async (businessKey) => {
          const view = await rw.inspect(caller, { resource: resource.name, businessKey });
          return {
            businessKey,
            writer: view.writer,
            readers: view.readers,
            readFence: view.readFence,
            waitingWriters: view.waitingWriters,
          };
        }),
      );
      return {
        kind: "rwlock" as const,
        totalPermits: null,
        lockDelayMs: resource.lockDelayMs,
        writerPreference: resource.writerPreference,
        keys,
        currentTier,
      };
    }
    if (resource.kind !== "mutex") {
      throw new InvalidArgumentError(
        "kind",
        `${resource.name} is a ${String(resource.kind)} resource`,
      );
    }
    const keys: MutexKeyState[] = await Promise.all(
      businessKeys.map(async (businessKey) => {
        const key = { resource: resource.name, businessKey };
        const lease = await services.locks.inspect(key);
        if (lease) return { businessKey, lease, lockDelay: null };
        const delay = await services.locks.inspectDelay(key);
        return {
          businessKey,
          lease: null,
          lockDelay: delay ? { until: delay.lockDelayUntil, remainingMs: delay.remainingMs } : null,
        };
      }),
    );
    return {
      kind: "mutex" as const,
      totalPermits: null,
      lockDelayMs: resource.lockDelayMs,
      keys,
      currentTier,
    };
  }),
});
