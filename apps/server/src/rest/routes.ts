import { InvalidArgumentError, type ErrorCode } from "@warden/contract";
import { tierSchema } from "@warden/contract/wire";
import { ZodError, z } from "zod";
import type { Services } from "../context.js";
import type { LockCaller } from "../usecases/index.js";
import type { SemaphoreUseCases } from "../usecases/semaphore-usecases.js";
import type { RwUseCases } from "../usecases/rw-usecases.js";
import { actorOf } from "../auth/principal.js";
import type { ResourceKind } from "../schemas/resource-policy.js";
import { requestRevokeInputSchema } from "../usecases/request-revoke.js";
import {
  acquireBodySchema,
  acquireReplySchema,
  cancelWaitReplySchema,
  extendBodySchema,
  extendReplySchema,
  holderSchema,
  inspectReplySchema,
  paramSchemas,
  releaseBodySchema,
  releaseReplySchema,
  rwAcquireBodySchema,
  rwAcquireReplySchema,
  rwExtendBodySchema,
  rwExtendReplySchema,
  rwInspectReplySchema,
  rwReleaseBodySchema,
  rwReleaseReplySchema,
  rwTryBodySchema,
  semaphoreAcquireBodySchema,
  semaphoreAcquireReplySchema,
  semaphoreExtendBodySchema,
  semaphoreExtendReplySchema,
  semaphoreInspectReplySchema,
  semaphoreReleaseBodySchema,
  semaphoreReleaseReplySchema,
  semaphoreTryBodySchema,
  tryBodySchema,
  waitersReplySchema,
  type RestOnlyCode,
} from "./schemas.js";
import { notServed } from "../errors/not-served.js";

/** POST /v1/locks/{resource}/revoke-request (docs/decisions/0176). */
const revokeRequestBodySchema = requestRevokeInputSchema.omit({ resource: true }).strict();
const revokeRequestReplySchema = z.object({
  requested: z.literal(true),
  lockId: z.string(),
  fence: z.string().nullable(),
  holder: holderSchema,
  currentTier: tierSchema,
});

/** What a route's handler gets: an authenticated caller and the request's parts. */
export interface RouteCall {
  readonly services: Services;
  readonly caller: LockCaller;
  /** Decoded path parameters, by the template's names. */
  readonly params: Readonly<Record<string, string>>;
  readonly query: URLSearchParams;
  /** The parsed JSON body (POST), else undefined. */
  readonly body: unknown;
  /** Aborted when the client goes away: ends a waiting acquire. */
  readonly signal: AbortSignal;
}

/** A query parameter of a route. */
export interface QueryParam {
  readonly name: keyof typeof paramSchemas;
  readonly required: boolean;
  readonly description: string;
}

/** One operation of the HTTP/JSON lock API; the OpenAPI document is built from these. */
export interface Route {
  readonly method: "GET" | "POST" | "DELETE";
  /** Template such as `/v1/locks/{resource}/acquire`; each `{name}` is one path segment. */
  readonly path: string;
  readonly operationId: string;
  readonly summary: string;
  readonly description: string;
  /** Whether the call needs `x-warden-client-id` (the holder's SDK instance). */
  readonly clientId: "required" | "optional";
  readonly query: readonly QueryParam[];
  readonly body: { readonly id: string; readonly schema: z.ZodType } | null;
  readonly reply: { readonly id: string; readonly schema: z.ZodType; readonly description: string };
  /** The typed errors this operation may answer besides the ones every call may. */
  readonly errors: readonly (ErrorCode | RestOnlyCode)[];
  run(call: RouteCall): Promise<unknown>;
}

/** Errors every authenticated operation may answer. */
export const COMMON_ERRORS: readonly (ErrorCode | RestOnlyCode)[] = [
  "INVALID_ARGUMENT",
  "UNAUTHORIZED",
  "FORBIDDEN",
  "QUOTA_EXCEEDED",
  "INTERNAL",
];

/** Parses with a contract schema; the first issue becomes INVALID_ARGUMENT naming the field. */
export function parseWith<S extends z.ZodType>(
  schema: S,
  value: unknown,
  field?: string,
): z.output<S> {
  try {
    return schema.parse(value);
  } catch (error) {
    if (!(error instanceof ZodError)) throw error;
    const issue = error.issues[0];
    if (issue?.code === "unrecognized_keys") {
      throw new InvalidArgumentError(
        String(issue.keys[0]),
        "is not a field of this request (names are camelCase, e.g. leaseMs)",
      );
    }
    const path = issue && issue.path.length > 0 ? issue.path.map(String).join(".") : null;
    throw new InvalidArgumentError(field ?? path ?? "body", issue?.message ?? "invalid input");
  }
}

function resourceOf(call: RouteCall): string {
  return parseWith(paramSchemas.resource, call.params["resource"], "resource");
}

function businessKeyQuery(call: RouteCall, required: boolean): string | undefined {
  const raw = call.query.get("businessKey");
  if (raw === null && !required) return undefined;
  return parseWith(paramSchemas.businessKey, raw ?? undefined, "businessKey");
}

/** The semaphore use cases; a server started without semaphores refuses their calls. */
function semaphoresOf(call: RouteCall): SemaphoreUseCases {
  const ops = call.services.semaphoreUseCases;
  if (!ops) throw notServed("semaphores");
  return ops;
}

/** The read-write lock use cases; a server started without them refuses their calls. */
function rwLocksOf(call: RouteCall): RwUseCases {
  const ops = call.services.rwUseCases;
  if (!ops) throw notServed("read-write locks");
  return ops;
}

const businessKeyParam = (required: boolean, description: string): QueryParam => ({
  name: "businessKey",
  required,
  description,
});

/** Where each kind's waits are listed over HTTP (the lock route also lists a semaphore's). */
const WAITERS_PATH: Record<ResourceKind, string> = {
  mutex: "/v1/locks/{resource}/waiters",
  semaphore: "/v1/semaphores/{resource}/waiters",
  rwlock: "/v1/rwlocks/{resource}/waiters",
};

/**
 * The waiters of `resource` across the fleet (`LockService.listWaiters`), after the kind
 * check: `kinds` are the resources the route lists, any other is INVALID_ARGUMENT on `kind`
 * naming the route that lists it. A semaphore's or an rwlock's waits are not in a store
 * queue the mutex's order could read: they are listed by arrival (`byArrival`).
 */
async function waitersOf(call: RouteCall, route: string, kinds: readonly ResourceKind[]) {
  const { services, caller } = call;
  const resource = await services.registry.get(resourceOf(call), caller.principal);
  if (!kinds.includes(resource.kind)) {
    throw new InvalidArgumentError(
      "kind",
      `${resource.name} is a ${resource.kind} resource, not listed by ${route}: use ${WAITERS_PATH[resource.kind]}`,
    );
  }
  const byArrival = resource.kind !== "mutex";
  return {
    fair: resource.fair,
    waiters: await services.lockService.listWaiters(
      byArrival ? { ...resource, fair: false } : resource,
      businessKeyQuery(call, false),
    ),
    currentTier: services.locks.tier,
  };
}

/** The read-write acquire routes: `/read`, `/write` (waiting up to waitMs) and their tries. */
function rwAcquireRoutes(mode: "read" | "write"): Route[] {
  const Mode = mode === "read" ? "Read" : "Write";
  const what =
    mode === "read"
      ? "a read grant of the key, shared with the key's other readers (readers of one generation " +
        "share a fence)"
      : "the key's one write grant (its fence is larger than every fence granted on the key before it)";
  const refusal =
    "a 200 with `granted: false`, `reason` (`write-held`, `read-held`, or `writer-waiting` when a " +
    "waiting writer stops new readers), the blocking `holders` and `retryAfterMs`";
  return [
    {
      method: "POST",
      path: `/v1/rwlocks/{resource}/${mode}`,
      operationId: `rwlock${Mode}`,
      summary: `Acquire a ${mode} lock, waiting up to waitMs`,
      description:
        `For a resource of kind \`rwlock\`: grants ${what} to this caller (x-warden-client-id) and ` +
        "ownerId, or waits server-side up to `waitMs` (0, the default, answers at once) and is woken " +
        `when a grant of the key is released. A refusal without waiting is ${refusal}. A wait that ` +
        "runs out is 423 LOCK_TIMEOUT. " +
        (mode === "write"
          ? "While it waits, a writer stops new readers on a resource with `writerPreference`. "
          : "") +
        "While it waits it is listed by GET /v1/rwlocks/{resource}/waiters, and a server shutting " +
        "down ends it with 503 WAIT_CANCELLED (call another instance); a `waitId` names it so " +
        "`DELETE /v1/waits/{waitId}` can withdraw it (409 WAIT_CANCELLED). " +
        "The same holder acquiring again in the same mode re-enters (`reentered`, same lockId). A " +
        "mutex or semaphore resource is 400 INVALID_ARGUMENT on `kind`. Keep `lockId` and `tier` " +
        "for release and extend; pass `fence` to the protected resource.",
      clientId: "required",
      query: [],
      body: { id: "RwAcquireBody", schema: rwAcquireBodySchema },
      reply: {
        id: "RwAcquireReply",
        schema: rwAcquireReplySchema,
        description: "granted (`granted: true`), or refused at once (`granted: false`)",
      },
      errors: [
        "UNKNOWN_RESOURCE",
        "LOCK_TIMEOUT",
        "WAIT_CANCELLED",
        "LOCK_UNAVAILABLE",
        "OUTCOME_UNKNOWN",
        "REPLICATION_TIMEOUT",
      ],
      run: (call) =>
        rwLocksOf(call).acquire(
          mode,
          call.caller,
          { resource: resourceOf(call), ...parseWith(rwAcquireBodySchema, call.body) },
          call.signal,
        ),
    },
    {
      method: "POST",
      path: `/v1/rwlocks/{resource}/try-${mode}`,
      operationId: `rwlockTry${Mode}`,
      summary: `Try to acquire a ${mode} lock once, without waiting`,
      description:
        `A ${mode} acquire with \`waitMs: 0\`: a grant, or ${refusal}.` +
        (mode === "write" ? " A refused try does not stop new readers." : ""),
      clientId: "required",
      query: [],
      body: { id: "RwTryBody", schema: rwTryBodySchema },
      reply: {
        id: "RwAcquireReply",
        schema: rwAcquireReplySchema,
        description: "granted (`granted: true`), or refused (`granted: false`)",
      },
      errors: ["UNKNOWN_RESOURCE", "LOCK_UNAVAILABLE", "OUTCOME_UNKNOWN", "REPLICATION_TIMEOUT"],
      run: (call) =>
        rwLocksOf(call).acquire(
          mode,
          call.caller,
          { resource: resourceOf(call), ...parseWith(rwTryBodySchema, call.body), waitMs: 0 },
          call.signal,
        ),
    },
  ];
}

/** The read-write lock routes (docs/decisions/0180). */
const RW_ROUTES: readonly Route[] = [
  ...rwAcquireRoutes("read"),
  ...rwAcquireRoutes("write"),
  {
    method: "POST",
    path: "/v1/rwlocks/{resource}/release",
    operationId: "rwlockRelease",
    summary: "Release a read or write grant",
    description:
      "Releases one entry of the grant `lockId` (`tier` is the grant's) and wakes the key's waiters; " +
      "`released` is true once the grant is gone, false while re-entries remain. A grant that " +
      "expired, was released already or is unknown (another tenant's lockId too) answers 409 " +
      "NOT_HOLDER.",
    clientId: "optional",
    query: [],
    body: { id: "RwReleaseBody", schema: rwReleaseBodySchema },
    reply: {
      id: "RwReleaseReply",
      schema: rwReleaseReplySchema,
      description: "released, with the grant's mode and fence",
    },
    errors: ["UNKNOWN_RESOURCE", "NOT_HOLDER", "LOCK_UNAVAILABLE", "OUTCOME_UNKNOWN"],
    run: (call) =>
      rwLocksOf(call).release(call.caller, {
        resource: resourceOf(call),
        ...parseWith(rwReleaseBodySchema, call.body),
      }),
  },
  {
    method: "POST",
    path: "/v1/rwlocks/{resource}/extend",
    operationId: "rwlockExtend",
    summary: "Extend (renew) a read or write grant's lease",
    description:
      "Sets the remaining lease of grant `lockId` to `leaseMs` from now (default: the resource's " +
      "defaultLeaseMs; at most its maxLeaseMs). Renew well before `ttlMs` runs out. A lost grant " +
      "answers 409 NOT_HOLDER; past the resource's maxRenewals, 409 LEASE_LOST (the lease runs out).",
    clientId: "optional",
    query: [],
    body: { id: "RwExtendBody", schema: rwExtendBodySchema },
    reply: {
      id: "RwExtendReply",
      schema: rwExtendReplySchema,
      description: "the grant as renewed",
    },
    errors: ["UNKNOWN_RESOURCE", "NOT_HOLDER", "LEASE_LOST", "LOCK_UNAVAILABLE", "OUTCOME_UNKNOWN"],
    run: (call) =>
      rwLocksOf(call).extend(call.caller, {
        resource: resourceOf(call),
        ...parseWith(rwExtendBodySchema, call.body),
      }),
  },
  {
    method: "GET",
    path: "/v1/rwlocks/{resource}",
    operationId: "rwlockInspect",
    summary: "Inspect a read-write lock key",
    description:
      "The key's live writer and readers (oldest first), the fence the current read generation " +
      "shares, how many waiting writers currently stop new readers, the resource's " +
      "`writerPreference`, and the tier that answered (`tier: null` when nothing is live).",
    clientId: "optional",
    query: [businessKeyParam(true, "the business key (URL-encoded)")],
    body: null,
    reply: {
      id: "RwInspectReply",
      schema: rwInspectReplySchema,
      description: "the key's writer, readers and waiting writers",
    },
    errors: ["UNKNOWN_RESOURCE", "LOCK_UNAVAILABLE"],
    run: (call) =>
      rwLocksOf(call).inspect(call.caller, {
        resource: resourceOf(call),
        businessKey: businessKeyQuery(call, true)!,
      }),
  },
  {
    method: "GET",
    path: "/v1/rwlocks/{resource}/waiters",
    operationId: "rwlockWaiters",
    summary: "List the waiting read and write acquires of a read-write lock or one key",
    description:
      "Read and write acquires waiting on any server instance of the fleet, the same list from " +
      "every instance, by when they began; `position` 0 began first. The order is not a queue: a " +
      "release wakes the key's waits, and a waiting writer holds new readers back on a resource " +
      "with `writerPreference` (inspect's `waitingWriters`). A mutex or semaphore resource is 400 " +
      "INVALID_ARGUMENT on `kind`.",
    clientId: "optional",
    query: [businessKeyParam(false, "only this business key (URL-encoded)")],
    body: null,
    reply: { id: "WaitersReply", schema: waitersReplySchema, description: "the waiters" },
    errors: ["UNKNOWN_RESOURCE"],
    run: (call) => waitersOf(call, "/v1/rwlocks/{resource}/waiters", ["rwlock"]),
  },
];

/**
 * The routes. Resource names (letters, digits, `:._-`, never `.` or `..` alone) are path
 * segments; business keys, which may hold any text including `/`, travel in the JSON body
 * or the `businessKey` query parameter (docs/decisions/0120-http-json-lock-api.md).
 */
export const ROUTES: readonly Route[] = [
  {
    method: "POST",
    path: "/v1/locks/{resource}/acquire",
    operationId: "acquire",
    summary: "Acquire a lock, waiting up to waitMs",
    description:
      "Grants the key to this caller (x-warden-client-id) and ownerId, or waits server-side up to " +
      "`waitMs` (0, the default, answers at once) and is woken when the holder releases. A refusal " +
      "without waiting is a 200 with `granted: false` and the holder; a wait that runs out is 423 " +
      "LOCK_TIMEOUT. Send `waitId` to be able to withdraw the wait with DELETE /v1/waits/{waitId}. " +
      "The same holder acquiring again re-enters (`reentry` counts). Keep `lockId`, `fence` and `tier`: " +
      "release and extend need `lockId` and `tier`; pass `fence` to the protected resource.",
    clientId: "required",
    query: [],
    body: { id: "AcquireBody", schema: acquireBodySchema },
    reply: {
      id: "AcquireReply",
      schema: acquireReplySchema,
      description: "granted (`granted: true`), or refused at once (`granted: false`)",
    },
    errors: [
      "UNKNOWN_RESOURCE",
      "LOCK_TIMEOUT",
      "WAIT_CANCELLED",
      "LOCK_UNAVAILABLE",
      "OUTCOME_UNKNOWN",
      "REPLICATION_TIMEOUT",
    ],
    run: (call) =>
      call.services.lockUseCases.acquire(
        call.caller,
        { resource: resourceOf(call), ...parseWith(acquireBodySchema, call.body) },
        call.signal,
      ),
  },
  {
    method: "POST",
    path: "/v1/locks/{resource}/try",
    operationId: "tryAcquire",
    summary: "Try to acquire a lock once, without waiting",
    description:
      "An acquire with `waitMs: 0`: a grant, or a 200 with `granted: false` naming the holder and its " +
      "remaining `ttlMs`.",
    clientId: "required",
    query: [],
    body: { id: "TryBody", schema: tryBodySchema },
    reply: {
      id: "AcquireReply",
      schema: acquireReplySchema,
      description: "granted (`granted: true`), or refused (`granted: false`)",
    },
    errors: ["UNKNOWN_RESOURCE", "LOCK_UNAVAILABLE", "OUTCOME_UNKNOWN", "REPLICATION_TIMEOUT"],
    run: (call) =>
      call.services.lockUseCases.acquire(
        call.caller,
        { resource: resourceOf(call), ...parseWith(tryBodySchema, call.body), waitMs: 0 },
        call.signal,
      ),
  },
  {
    method: "POST",
    path: "/v1/locks/{resource}/release",
    operationId: "release",
    summary: "Release a lock",
    description:
      "Releases one entry of the grant `lockId` (`tier` is the grant's). `released` is true when the " +
      "key is free, false while re-entries remain. A lease that expired, was force-released or is held " +
      "under another lockId answers 409 NOT_HOLDER (`details.reason`: `expired` or `other-holder`).",
    clientId: "optional",
    query: [],
    body: { id: "ReleaseBody", schema: releaseBodySchema },
    reply: { id: "ReleaseReply", schema: releaseReplySchema, description: "released" },
    errors: ["UNKNOWN_RESOURCE", "NOT_HOLDER", "LOCK_UNAVAILABLE", "OUTCOME_UNKNOWN"],
    run: (call) =>
      call.services.lockUseCases.release(call.caller, {
        resource: resourceOf(call),
        ...parseWith(releaseBodySchema, call.body),
      }),
  },
  {
    method: "POST",
    path: "/v1/locks/{resource}/extend",
    operationId: "extend",
    summary: "Extend (renew) a lock's lease",
    description:
      "Sets the remaining lease of grant `lockId` to `leaseMs` from now (default: the resource's " +
      "defaultLeaseMs; at most its maxLeaseMs). Renew well before `ttlMs` runs out. A lost lease " +
      "answers 409 NOT_HOLDER; past the resource's maxRenewals, 409 LEASE_LOST.",
    clientId: "optional",
    query: [],
    body: { id: "ExtendBody", schema: extendBodySchema },
    reply: { id: "ExtendReply", schema: extendReplySchema, description: "the lease as renewed" },
    errors: ["UNKNOWN_RESOURCE", "NOT_HOLDER", "LEASE_LOST", "LOCK_UNAVAILABLE", "OUTCOME_UNKNOWN"],
    run: (call) =>
      call.services.lockUseCases.extend(call.caller, {
        resource: resourceOf(call),
        ...parseWith(extendBodySchema, call.body),
      }),
  },
  {
    method: "GET",
    path: "/v1/locks/{resource}",
    operationId: "inspect",
    summary: "Inspect a lock",
    description:
      "The live lease of one key in any reachable tier, or `lease: null` when it is free.",
    clientId: "optional",
    query: [businessKeyParam(true, "the business key (URL-encoded)")],
    body: null,
    reply: { id: "InspectReply", schema: inspectReplySchema, description: "the lease, or null" },
    errors: ["UNKNOWN_RESOURCE", "LOCK_UNAVAILABLE"],
    run: (call) =>
      call.services.lockUseCases.inspect(call.caller, {
        resource: resourceOf(call),
        businessKey: businessKeyQuery(call, true)!,
      }),
  },
  {
    method: "GET",
    path: "/v1/locks/{resource}/waiters",
    operationId: "waiters",
    summary: "List the waiters of a resource or one key",
    description:
      "Acquires waiting on any server instance of the fleet, the same list from every instance: " +
      "for a fair resource in the store's queue order, otherwise by when they began; `position` 0 " +
      "is next. A fair place whose waiter this instance has not heard of yet has empty " +
      "`clientId` and `ownerId` and `since` 0. A semaphore's waiting acquires are listed by when " +
      "they began (as by GET /v1/semaphores/{resource}/waiters). A read-write lock resource is 400 " +
      "INVALID_ARGUMENT on `kind`: its waits are listed by GET /v1/rwlocks/{resource}/waiters.",
    clientId: "optional",
    query: [businessKeyParam(false, "only this business key (URL-encoded)")],
    body: null,
    reply: { id: "WaitersReply", schema: waitersReplySchema, description: "the waiters" },
    errors: ["UNKNOWN_RESOURCE"],
    run: (call) => waitersOf(call, "/v1/locks/{resource}/waiters", ["mutex", "semaphore"]),
  },
  {
    method: "POST",
    path: "/v1/locks/{resource}/revoke-request",
    operationId: "requestRevoke",
    summary: "Ask a lock's holder to release it",
    description:
      "Cooperative revocation: the holder of the key's live lease (or of grant `lockId`) is told, on " +
      "whichever server instance its SDK is connected to, that `reason` asks it to let go; the SDK " +
      "runs its `lock.onRevokeRequested` listeners. Only a request: the lease is untouched. Audited " +
      "as `revoke-requested`. No live lease (or none with `lockId`) answers 409 NOT_HOLDER and " +
      "nothing is audited or sent.",
    clientId: "optional",
    query: [],
    body: { id: "RevokeRequestBody", schema: revokeRequestBodySchema },
    reply: {
      id: "RevokeRequestReply",
      schema: revokeRequestReplySchema,
      description: "the grant asked to let go and its holder",
    },
    errors: ["UNKNOWN_RESOURCE", "NOT_HOLDER", "LOCK_UNAVAILABLE"],
    run: (call) =>
      call.services.requestRevoke(
        { principal: call.caller.principal, actor: actorOf(call.caller.principal) },
        { resource: resourceOf(call), ...parseWith(revokeRequestBodySchema, call.body) },
      ),
  },
  {
    method: "POST",
    path: "/v1/semaphores/{resource}/acquire",
    operationId: "semaphoreAcquire",
    summary: "Acquire semaphore permits, waiting up to waitMs",
    description:
      "For a resource of kind `semaphore`: grants `permits` (default 1) of the key's total to this " +
      "caller (x-warden-client-id) and ownerId, or waits server-side up to `waitMs` (0, the default, " +
      "answers at once) and is woken when a permit of the key is released. Every acquire is a new " +
      "grant with its own `lockId` and `fence` (no re-entry). A refusal without waiting is a 200 with " +
      "`granted: false`, `inUse` and `retryAfterMs`; a wait that runs out is 423 LOCK_TIMEOUT. A " +
      "mutex resource is 400 INVALID_ARGUMENT on `kind`. Keep `lockId` and `tier` for release and extend. " +
      "A `waitId` names the wait so `DELETE /v1/waits/{waitId}` can withdraw it (409 WAIT_CANCELLED).",
    clientId: "required",
    query: [],
    body: { id: "SemaphoreAcquireBody", schema: semaphoreAcquireBodySchema },
    reply: {
      id: "SemaphoreAcquireReply",
      schema: semaphoreAcquireReplySchema,
      description: "granted (`granted: true`), or refused at once (`granted: false`)",
    },
    errors: [
      "UNKNOWN_RESOURCE",
      "LOCK_TIMEOUT",
      "WAIT_CANCELLED",
      "LOCK_UNAVAILABLE",
      "OUTCOME_UNKNOWN",
      "REPLICATION_TIMEOUT",
    ],
    run: (call) =>
      semaphoresOf(call).acquire(
        call.caller,
        { resource: resourceOf(call), ...parseWith(semaphoreAcquireBodySchema, call.body) },
        call.signal,
      ),
  },
  {
    method: "POST",
    path: "/v1/semaphores/{resource}/try",
    operationId: "semaphoreTryAcquire",
    summary: "Try to acquire semaphore permits once, without waiting",
    description:
      "A semaphore acquire with `waitMs: 0`: a grant, or a 200 with `granted: false` saying how many " +
      "permits are in use, whether earlier fair waiters go first (`queued`) and when enough permits " +
      "lapse if nobody releases (`retryAfterMs`, 0 when unknown).",
    clientId: "required",
    query: [],
    body: { id: "SemaphoreTryBody", schema: semaphoreTryBodySchema },
    reply: {
      id: "SemaphoreAcquireReply",
      schema: semaphoreAcquireReplySchema,
      description: "granted (`granted: true`), or refused (`granted: false`)",
    },
    errors: ["UNKNOWN_RESOURCE", "LOCK_UNAVAILABLE", "OUTCOME_UNKNOWN", "REPLICATION_TIMEOUT"],
    run: (call) =>
      semaphoresOf(call).acquire(
        call.caller,
        { resource: resourceOf(call), ...parseWith(semaphoreTryBodySchema, call.body), waitMs: 0 },
        call.signal,
      ),
  },
  {
    method: "POST",
    path: "/v1/semaphores/{resource}/release",
    operationId: "semaphoreRelease",
    summary: "Release a permit grant",
    description:
      "Releases the permit grant `lockId` (`tier` is the grant's) and wakes the key's waiters. A grant " +
      "that expired, was released already or is unknown (another tenant's lockId too) answers 409 " +
      "NOT_HOLDER.",
    clientId: "optional",
    query: [],
    body: { id: "SemaphoreReleaseBody", schema: semaphoreReleaseBodySchema },
    reply: {
      id: "SemaphoreReleaseReply",
      schema: semaphoreReleaseReplySchema,
      description: "the permit grant as it was",
    },
    errors: ["UNKNOWN_RESOURCE", "NOT_HOLDER", "LOCK_UNAVAILABLE", "OUTCOME_UNKNOWN"],
    run: (call) =>
      semaphoresOf(call).release(call.caller, {
        resource: resourceOf(call),
        ...parseWith(semaphoreReleaseBodySchema, call.body),
      }),
  },
  {
    method: "POST",
    path: "/v1/semaphores/{resource}/extend",
    operationId: "semaphoreExtend",
    summary: "Extend (renew) a permit grant's lease",
    description:
      "Sets the remaining lease of permit grant `lockId` to `leaseMs` from now (default: the " +
      "resource's defaultLeaseMs; at most its maxLeaseMs). A lost grant answers 409 NOT_HOLDER; past " +
      "the resource's maxRenewals, 409 LEASE_LOST (the lease runs out); a grant made on a tier the " +
      "fleet has left, 503 LOCK_UNAVAILABLE.",
    clientId: "optional",
    query: [],
    body: { id: "SemaphoreExtendBody", schema: semaphoreExtendBodySchema },
    reply: {
      id: "SemaphoreExtendReply",
      schema: semaphoreExtendReplySchema,
      description: "the permit grant as renewed",
    },
    errors: ["UNKNOWN_RESOURCE", "NOT_HOLDER", "LEASE_LOST", "LOCK_UNAVAILABLE", "OUTCOME_UNKNOWN"],
    run: (call) =>
      semaphoresOf(call).extend(call.caller, {
        resource: resourceOf(call),
        ...parseWith(semaphoreExtendBodySchema, call.body),
      }),
  },
  {
    method: "GET",
    path: "/v1/semaphores/{resource}",
    operationId: "semaphoreInspect",
    summary: "Inspect a semaphore key",
    description:
      "The live permit grants of one key on every reachable tier, soonest expiry first, the permits " +
      "in use and the resource's total.",
    clientId: "optional",
    query: [businessKeyParam(true, "the business key (URL-encoded)")],
    body: null,
    reply: {
      id: "SemaphoreInspectReply",
      schema: semaphoreInspectReplySchema,
      description: "the live permit grants",
    },
    errors: ["UNKNOWN_RESOURCE", "LOCK_UNAVAILABLE"],
    run: (call) =>
      semaphoresOf(call).inspect(call.caller, {
        resource: resourceOf(call),
        businessKey: businessKeyQuery(call, true)!,
      }),
  },
  {
    method: "GET",
    path: "/v1/semaphores/{resource}/waiters",
    operationId: "semaphoreWaiters",
    summary: "List the waiting permit acquires of a semaphore or one key",
    description:
      "Semaphore acquires waiting on any server instance of the fleet, the same list from every " +
      "instance, by when they began (a fair semaphore serves them in that order); `position` 0 is " +
      "next. A mutex or read-write lock resource is 400 INVALID_ARGUMENT on `kind`.",
    clientId: "optional",
    query: [businessKeyParam(false, "only this business key (URL-encoded)")],
    body: null,
    reply: { id: "WaitersReply", schema: waitersReplySchema, description: "the waiters" },
    errors: ["UNKNOWN_RESOURCE"],
    run: (call) => waitersOf(call, "/v1/semaphores/{resource}/waiters", ["semaphore"]),
  },
  ...RW_ROUTES,
  {
    method: "DELETE",
    path: "/v1/waits/{waitId}",
    operationId: "cancelWait",
    summary: "Withdraw a waiting acquire",
    description:
      "Ends the acquire (lock, semaphore permits or read-write grant) sent with this `waitId` on " +
      "whichever server instance runs it (it answers 409 " +
      "WAIT_CANCELLED) and gives up its place in a fair key's queue. `cancelled` is false when there " +
      "is no such wait: it ended already, never existed, or is another tenant's.",
    clientId: "optional",
    query: [],
    body: null,
    reply: {
      id: "CancelWaitReply",
      schema: cancelWaitReplySchema,
      description: "whether a wait ended",
    },
    errors: [],
    run: (call) =>
      call.services.lockUseCases.cancelWait(call.caller, {
        waitId: parseWith(paramSchemas.waitId, call.params["waitId"], "waitId"),
      }),
  },
];
