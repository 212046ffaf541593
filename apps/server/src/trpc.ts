import { initTRPC } from "@trpc/server";
import { ZodError, z } from "zod";
import { UnauthorizedError, toWire, type WireError } from "@warden/contract";
import { actorOf, roleAtLeast, type OperatorRole, type Principal } from "./auth/principal.js";
import { originAllowed } from "./auth/origin-check.js";
import type { Context } from "./context.js";
import { ForbiddenError } from "./errors/forbidden-error.js";
import { QuotaExceededError } from "./errors/quota-exceeded-error.js";
import { toTRPCError, wardenCodeOf } from "./errors/to-trpc-error.js";

// Zod's first issue as the contract's INVALID_ARGUMENT details: the input path names the field.
function invalidInputOf(error: ZodError): WireError<"INVALID_ARGUMENT"> {
  const issue = error.issues[0];
  const field = issue && issue.path.length > 0 ? issue.path.map(String).join(".") : "input";
  const reason = issue?.message ?? "invalid input";
  return { code: "INVALID_ARGUMENT", details: { field, reason }, message: `${field}: ${reason}` };
}

const t = initTRPC.context<Context>().create({
  errorFormatter({ shape, error }) {
    const cause = error.cause;
    const wire = cause instanceof ZodError ? invalidInputOf(cause) : toWire(cause);
    const details: Readonly<Record<string, unknown>> | null = wire?.details ?? null;
    const retryAfterMs = details?.["retryAfterMs"];
    // An internal error's own message (a driver's, a query dump) never leaves the server:
    // it is logged there. An invalid input reads "<field>: <reason>", not zod's JSON.
    const message =
      shape.data.code === "INTERNAL_SERVER_ERROR"
        ? "internal error; the server logged the details"
        : cause instanceof ZodError && wire !== null
          ? wire.message
          : shape.message;
    return {
      ...shape,
      message,
      data: {
        ...shape.data,
        // Stack traces stay in the logs.
        stack: undefined,
        /** Warden's error code: with `details`, what the SDK and the console rebuild the
         * typed error from (the contract's `fromWire`); never parse the message. */
        wardenCode: wire?.code ?? null,
        /** The code's typed details (`ErrorDetailsByCode` in @warden/contract). */
        details,
        /** Per-field messages of an invalid input, for the console's forms. */
        fieldErrors: cause instanceof ZodError ? z.flattenError(cause).fieldErrors : null,
        retryAfterMs: typeof retryAfterMs === "number" ? retryAfterMs : null,
      },
    };
  },
  sse: {
    ping: { enabled: true, intervalMs: 15_000 },
    client: { reconnectAfterInactivityMs: 45_000 },
  },
});

/** Builds routers. */
export const router = t.router;

/** Builds a server-side caller of a router (tests, the CLI). */
export const createCallerFactory = t.createCallerFactory;

/**
 * Domain errors become tRPC codes here, for every procedure (errors/to-trpc-error.ts): an
 * error returned by the procedure, or one thrown by the gate itself.
 */
function mapped(cause: unknown): unknown {
  return !(cause instanceof ZodError) && wardenCodeOf(cause) !== null ? toTRPCError(cause) : cause;
}

interface MiddlewareResult {
  readonly ok: boolean;
  readonly error?: { readonly cause?: unknown };
}

function mapResult<R extends MiddlewareResult>(result: R): R {
  if (!result.ok) {
    const error = mapped(result.error?.cause);
    if (error !== result.error?.cause) throw error;
  }
  return result;
}

/**
 * Runs one gated call: counted so that a graceful shutdown waits for calls in progress
 * (not subscriptions), with its domain errors mapped. Every procedure has exactly one
 * middleware built on this: tRPC copies the call's options twice per middleware level,
 * which on the SDK's hot path cost more than the checks themselves.
 */
async function gated<R extends MiddlewareResult>(
  ctx: Context,
  type: string,
  run: () => Promise<R>,
): Promise<R> {
  const end = type === "subscription" ? null : ctx.services.inflight.begin();
  try {
    return mapResult(await run());
  } catch (error) {
    throw mapped(error);
  } finally {
    end?.();
  }
}

/** Anyone: health of the API, login, first-run bootstrap. */
export const publicProcedure = t.procedure.use(({ ctx, type, next }) =>
  gated(ctx, type, () => next()),
);

async function resolvePrincipal(
  ctx: Context,
): Promise<{ principal: Principal; viaCookie: boolean }> {
  const { apiKey, sessionToken } = ctx.request;
  // A presented key is authoritative: a bad key never falls back to a cookie.
  if (apiKey !== null) {
    const principal = await ctx.services.apiKeys.resolve(apiKey, ctx.request.ip);
    if (!principal) throw new UnauthorizedError("unknown or revoked API key");
    return { principal, viaCookie: false };
  }
  if (sessionToken !== null) {
    const principal = await ctx.services.sessions.resolve(sessionToken);
    if (!principal) throw new UnauthorizedError("session expired or revoked; log in again");
    return { principal, viaCookie: true };
  }
  throw new UnauthorizedError("send an API key (Authorization: Bearer) or log in");
}

/**
 * Authenticates a call: a tenant (API key) or an operator (session cookie). Tenants spend
 * their request-rate quota here; cookie-authenticated mutations must come from an allowed
 * Origin (CSRF: SameSite=Strict is the first wall, this is the second).
 */
async function authenticate(ctx: Context, type: string): Promise<Principal> {
  const { principal, viaCookie } = await resolvePrincipal(ctx);
  if (principal.kind === "tenant") {
    const rate = principal.requestsPerSecond;
    const waitMs = ctx.services.limiter.take(`tenant:${principal.tenantId}`, rate, rate);
    if (waitMs > 0) {
      ctx.services.metrics.quotaRefusals.inc({ tenant: principal.tenantId });
      throw new QuotaExceededError(
        waitMs,
        `tenant ${principal.tenantId} is over its request-rate quota; nothing was done — retry in ${waitMs} ms`,
      );
    }
  }
  if (viaCookie && type === "mutation") {
    const { origin, host } = ctx.request;
    if (!originAllowed(origin, host, ctx.services.config.consoleOrigins)) {
      throw new ForbiddenError("cross-origin request refused");
    }
  }
  return principal;
}

/** A tenant (API key) or an operator (session cookie). */
export const authedProcedure = t.procedure.use(({ ctx, type, next }) =>
  gated(ctx, type, async () => {
    const principal = await authenticate(ctx, type);
    return next({ ctx: { principal, actor: actorOf(principal) } });
  }),
);

/** SDK calls: a tenant API key only. */
export const tenantProcedure = t.procedure.use(({ ctx, type, next }) =>
  gated(ctx, type, async () => {
    const principal = await authenticate(ctx, type);
    if (principal.kind !== "tenant") throw new ForbiddenError("this call needs a tenant API key");
    return next({ ctx: { principal, actor: actorOf(principal) } });
  }),
);

/** Console calls that need at least `role`. */
export function roleProcedure(role: OperatorRole) {
  return t.procedure.use(({ ctx, type, next }) =>
    gated(ctx, type, async () => {
      const principal = await authenticate(ctx, type);
      if (principal.kind !== "operator" || !roleAtLeast(principal.role, role)) {
        throw new ForbiddenError(`this call needs the ${role} role`);
      }
      return next({ ctx: { principal, actor: actorOf(principal) } });
    }),
  );
}

/** Registry edits: a tenant's own API key (infrastructure as code) or an operator+. */
export const editorProcedure = t.procedure.use(({ ctx, type, next }) =>
  gated(ctx, type, async () => {
    const principal = await authenticate(ctx, type);
    if (principal.kind === "operator" && !roleAtLeast(principal.role, "operator")) {
      throw new ForbiddenError("this call needs the operator role");
    }
    return next({ ctx: { principal, actor: actorOf(principal) } });
  }),
);
