import {
  InvalidArgumentError,
  LockTimeoutError,
  validateLeaseMs,
  type Tier,
} from "@warden/contract";
import type { ClientContext } from "../client/client-context.js";
import { abortedAfter, withdrawableQuery } from "../acquire/withdrawable-wait.js";
import { newOwnerId } from "../owner/owner-scope.js";
import { monotonicNow } from "../time/monotonic.js";
import type { RemoteGrantRef } from "../remote/release-remote.js";
import type { ApiClient, CallOptions } from "../transport/api-client.js";
import type { GrantFacts } from "./held-grant.js";

const DEFAULT_WAIT_MS = 10_000;
const MAX_WAIT_MS = 300_000;

/** The options a semaphore's and a read-write lock's acquires share. */
export interface GrantWaitOptions {
  readonly waitMs?: number;
  readonly leaseMs?: number;
  readonly ownerId?: string;
  readonly signal?: AbortSignal;
}

/**
 * Checks the shared acquire options: `waitMs` defaults to 10 s, `leaseMs` to the
 * resource's default, `ownerId` to a new random id.
 *
 * @throws InvalidArgumentError - `waitMs` or `leaseMs` out of range.
 */
export function checkWaitOptions(options: GrantWaitOptions): {
  waitMs: number;
  leaseMs: number | undefined;
  ownerId: string;
} {
  const waitMs = options.waitMs ?? DEFAULT_WAIT_MS;
  if (!Number.isInteger(waitMs) || waitMs < 0 || waitMs > MAX_WAIT_MS) {
    throw new InvalidArgumentError("waitMs", `must be an integer in 0..${MAX_WAIT_MS}`);
  }
  const leaseMs = options.leaseMs === undefined ? undefined : validateLeaseMs(options.leaseMs);
  return { waitMs, leaseMs, ownerId: options.ownerId ?? newOwnerId() };
}

/**
 * A blocking acquire's grant.
 *
 * @throws LockTimeoutError - there was none: not granted within `waitMs`.
 */
export function grantedWithin<G>(grant: G | null, waitMs: number | undefined): G {
  if (grant === null) throw new LockTimeoutError(waitMs ?? DEFAULT_WAIT_MS);
  return grant;
}

/** An acquire's reply: a refusal, or a grant with at least these parts. */
type AcquireReply =
  | { readonly granted: false }
  | {
      readonly granted: true;
      readonly lockId: string;
      readonly fence: string | null;
      readonly tier: Tier;
      readonly ttlMs: number;
      readonly expiresAt: number;
      readonly maxRenewals: number | null;
    };

/** The granted replies among `T`. */
type Granted<T extends AcquireReply> = Extract<T, { readonly granted: true }>;

function isGranted<T extends AcquireReply>(reply: T): reply is Granted<T> {
  return reply.granted;
}

/** What every kind of acquire sends; `waitId` when `signal` may withdraw the wait. */
interface AcquireInput {
  readonly resource: string;
  readonly businessKey: string;
  readonly ownerId: string;
  readonly waitMs: number;
  readonly leaseMs?: number;
  readonly waitId?: string;
}

/** One acquire of a semaphore permit or read-write grant, as {@link requestGrant} sends it. */
export interface GrantRequest<E extends object, T extends AcquireReply, G> {
  /** Telemetry and error context name of the acquire, e.g. `semaphore.acquire`. */
  readonly operation: string;
  readonly resource: string;
  readonly businessKey: string;
  readonly ownerId: string;
  /** What this kind of acquire sends besides the key, owner, wait and lease (`permits`). */
  readonly extra: E;
  readonly waitMs: number;
  /** Lease asked for; undefined = the resource's default. */
  readonly leaseMs: number | undefined;
  readonly signal: AbortSignal | undefined;
  /** Sends the acquire; `call`'s timeout already covers the server-side wait. */
  send(api: ApiClient, input: AcquireInput & E, call: CallOptions): Promise<T>;
  /** Renews the grant once by call: the confirmation after a long wait. */
  renew(
    ctx: ClientContext,
    grant: RemoteGrantRef,
    leaseMs: number | undefined,
  ): Promise<{ readonly ttlMs: number; readonly expiresAt: number }>;
  /** The held grant, from what was granted. */
  hold(facts: GrantFacts, reply: Granted<T>): G;
}

/**
 * Sends one acquire, waiting server-side up to `waitMs` (an abort of `signal` withdraws the
 * wait), and makes the held grant; null when the server did not grant it.
 */
export async function requestGrant<
  E extends object,
  T extends AcquireReply,
  G extends { release(): Promise<unknown> },
>(ctx: ClientContext, request: GrantRequest<E, T, G>): Promise<G | null> {
  const { resource, businessKey, ownerId, waitMs, leaseMs } = request;
  const input = {
    resource,
    businessKey,
    ownerId,
    ...request.extra,
    waitMs,
    ...(leaseMs === undefined ? {} : { leaseMs }),
  };
  // close() waits for this acquire to settle (a grant that arrives is released).
  const end = ctx.acquiring.begin(resource, businessKey, ownerId);
  try {
    return await grantOnce(ctx, request, input);
  } finally {
    end();
  }
}

async function grantOnce<
  E extends object,
  T extends AcquireReply,
  G extends { release(): Promise<unknown> },
>(ctx: ClientContext, request: GrantRequest<E, T, G>, input: AcquireInput & E): Promise<G | null> {
  const { resource, businessKey, ownerId, leaseMs, signal, waitMs } = request;
  const sentAt = monotonicNow();
  const reply = await withdrawableQuery(
    ctx,
    { waitMs, signal },
    (waitId) => (api, call) =>
      request.send(api, waitId === undefined ? input : { ...input, waitId }, {
        timeoutMs: call.timeoutMs + waitMs,
      }),
    request.operation,
    resource,
  );
  if (!isGranted(reply)) return null;
  let start = { sentAt, ttlMs: reply.ttlMs, expiresAt: reply.expiresAt };
  if (!signal?.aborted && !ctx.closing && monotonicNow() - sentAt > reply.ttlMs / 3) {
    // A grant after a long wait: the lease counted from when the request was sent could
    // already look expired. One renewal, sent now, says how long it really has.
    const renewAt = monotonicNow();
    const grant = { resource, businessKey, lockId: reply.lockId, tier: reply.tier };
    const renewed = await request.renew(ctx, grant, leaseMs);
    start = { sentAt: renewAt, ttlMs: renewed.ttlMs, expiresAt: renewed.expiresAt };
  }
  const held = request.hold(
    {
      resource,
      businessKey,
      ownerId,
      lockId: reply.lockId,
      fence: reply.fence,
      tier: reply.tier,
      ttlMs: start.ttlMs,
      expiresAt: start.expiresAt,
      maxRenewals: reply.maxRenewals,
      leaseMs,
      sentAt: start.sentAt,
    },
    reply,
  );
  abortedAfter(ctx, signal, held);
  return held;
}
