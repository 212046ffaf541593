import type { Services } from "../context.js";
import {
  rwAcquireInputSchema,
  rwExtendInputSchema,
  rwReleaseInputSchema,
} from "../schemas/rwlock.js";
import {
  semaphoreAcquireInputSchema,
  semaphoreExtendInputSchema,
  semaphoreReleaseInputSchema,
} from "../schemas/semaphore.js";
import { MAX_SEMAPHORE_PERMITS } from "../schemas/resource-policy.js";
import type { LockCaller } from "../usecases/index.js";
import type { RwUseCases } from "../usecases/rw-usecases.js";
import type { SemaphoreUseCases } from "../usecases/semaphore-usecases.js";
import { plainAcquire, plainExtend, plainRelease, plainSemaphoreAcquire } from "./fast-inputs.js";
import { notServed } from "../errors/not-served.js";

/*
 * The hot coordination calls of the lock socket (semaphore and read-write lock acquire,
 * release and extend), run straight on the use cases the tRPC routers call instead of
 * through `callTRPCProcedure` (docs/decisions/0193). The router's procedure for each path
 * is a `tenantProcedure` mutation that parses its input with one of the schemas below and
 * calls one use case; a direct call does the same with the same schema objects and the
 * same use case, after the same gate (a tenant API key, one token of the tenant's request
 * quota), so its reply and its error shape are the procedure's. Any other path, or a call
 * that is not plainly one of these (a `query` type, extra tuple elements), keeps going
 * through tRPC.
 */

/** One call the lock socket runs without tRPC: the router's input schema and use case. */
export interface DirectCall {
  /** The router's zod schema for the path: throws its ZodError on a bad input. */
  readonly parse: (input: unknown) => unknown;
  /** The router's resolver body: the use case with the connection's caller and abort signal. */
  readonly run: (
    services: Services,
    caller: LockCaller,
    input: unknown,
    signal: AbortSignal,
  ) => Promise<unknown>;
}

// The routers' own refusals when a server was started without the primitive.
function semaphores(services: Services): SemaphoreUseCases {
  const ops = services.semaphoreUseCases;
  if (!ops) throw notServed("semaphores");
  return ops;
}

function rwLocks(services: Services): RwUseCases {
  const ops = services.rwUseCases;
  if (!ops) throw notServed("read-write locks");
  return ops;
}

/**
 * A table entry: `schema` parses the input the way the router does, `run` gets its output.
 * `plain` answers first for an input that is plainly valid, with the object the schema
 * would return (fast-inputs.ts; tests hold it to the schema), and null to ask the schema.
 */
function direct<T>(
  schema: { parse: (input: unknown) => T },
  plain: (input: unknown) => T | null,
  run: (services: Services, caller: LockCaller, input: T, signal: AbortSignal) => Promise<unknown>,
): DirectCall {
  return {
    parse: (input) => plain(input) ?? schema.parse(input),
    run: (services, caller, input, signal) => run(services, caller, input as T, signal),
  };
}

/** Path → what its tRPC procedure does; every entry is a mutation. */
const DIRECT_CALLS: ReadonlyMap<string, DirectCall> = new Map<string, DirectCall>([
  [
    "semaphore.acquire",
    direct(
      semaphoreAcquireInputSchema,
      (input) => plainSemaphoreAcquire(input, MAX_SEMAPHORE_PERMITS),
      (services, caller, input, signal) => semaphores(services).acquire(caller, input, signal),
    ),
  ],
  [
    "semaphore.release",
    direct(semaphoreReleaseInputSchema, plainRelease, (services, caller, input) =>
      semaphores(services).release(caller, input),
    ),
  ],
  [
    "semaphore.extend",
    direct(semaphoreExtendInputSchema, plainExtend, (services, caller, input) =>
      semaphores(services).extend(caller, input),
    ),
  ],
  [
    "rwlock.acquireRead",
    direct(rwAcquireInputSchema, plainAcquire, (services, caller, input, signal) =>
      rwLocks(services).acquire("read", caller, input, signal),
    ),
  ],
  [
    "rwlock.acquireWrite",
    direct(rwAcquireInputSchema, plainAcquire, (services, caller, input, signal) =>
      rwLocks(services).acquire("write", caller, input, signal),
    ),
  ],
  [
    "rwlock.release",
    direct(rwReleaseInputSchema, plainRelease, (services, caller, input) =>
      rwLocks(services).release(caller, input),
    ),
  ],
  [
    "rwlock.extend",
    direct(rwExtendInputSchema, plainExtend, (services, caller, input) =>
      rwLocks(services).extend(caller, input),
    ),
  ],
]);

/** The paths served directly (tests compare each with its tRPC procedure). */
export const DIRECT_CALL_PATHS: readonly string[] = [...DIRECT_CALLS.keys()];

/**
 * The direct call a `call` command's input `[type, path, input]` names, or null when it
 * must go through tRPC: only a three-element tuple of type `mutation` and a path of the
 * table (anything else is answered by tRPC exactly as before, errors included).
 */
export function directCallOf(raw: unknown): DirectCall | null {
  if (!Array.isArray(raw) || raw.length !== 3 || raw[0] !== "mutation") return null;
  const path: unknown = raw[1];
  return typeof path === "string" ? (DIRECT_CALLS.get(path) ?? null) : null;
}

/**
 * The refusal of a tenant over its request-rate quota, worded as the tRPC gate words it
 * (the reply's message is part of the error shape the SDK sees).
 */
export function quotaMessage(tenantId: string, waitMs: number): string {
  return `tenant ${tenantId} is over its request-rate quota; nothing was done — retry in ${waitMs} ms`;
}
