import { initTRPC } from "@trpc/server";
import { ZodError, z } from "zod";
import { UnauthorizedError } from "@warden/core";
import { actorOf, roleAtLeast, type OperatorRole, type Principal } from "./auth/principal.js";
import { originAllowed } from "./auth/origin-check.js";
import type { Context } from "./context.js";
import { ForbiddenError } from "./errors/forbidden-error.js";
import { QuotaExceededError } from "./errors/quota-exceeded-error.js";
import { toTRPCError, wardenCodeOf } from "./errors/to-trpc-error.js";

const t = initTRPC.context<Context>().create({
  errorFormatter({ shape, error }) {
    const cause = error.cause;
    return {
      ...shape,
      data: {
        ...shape.data,
        // Stack traces stay in the logs.
        stack: undefined,
        /** Warden's own error code, for the SDK's typed errors. */
        wardenCode: wardenCodeOf(cause),
        /** Per-field messages of an invalid input, for the console's forms. */
        fieldErrors: cause instanceof ZodError ? z.flattenError(cause).fieldErrors : null,
        retryAfterMs: cause instanceof QuotaExceededError ? cause.retryAfterMs : null,
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

// Domain errors become tRPC codes here, for every procedure (errors/to-trpc-error.ts).
const mapErrors = t.middleware(async ({ next }) => {
  const result = await next();
  if (
    !result.ok &&
    !(result.error.cause instanceof ZodError) &&
    wardenCodeOf(result.error.cause) !== null
  ) {
    throw toTRPCError(result.error.cause);
  }
  return result;
});

// Counted so that a graceful shutdown waits for calls in progress (not subscriptions).
const countInflight = t.middleware(async ({ ctx, type, next }) => {
  if (type === "subscription") return next();
  const end = ctx.services.inflight.begin();
  try {
    return await next();
  } finally {
    end();
  }
});

/** Anyone: health of the API, login, first-run bootstrap. */
export const publicProcedure = t.procedure.use(mapErrors).use(countInflight);

async function resolvePrincipal(
  ctx: Context,
): Promise<{ principal: Principal; viaCookie: boolean }> {
  const { apiKey, sessionToken } = ctx.request;
  // A presented key is authoritative: a bad key never falls back to a cookie.
  if (apiKey !== null) {
    const principal = await ctx.services.apiKeys.resolve(apiKey);
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
 * A tenant (API key) or an operator (session cookie). Tenants spend their request-rate
 * quota here; cookie-authenticated mutations must come from an allowed Origin (CSRF:
 * SameSite=Strict is the first wall, this is the second).
 */
export const authedProcedure = publicProcedure.use(async ({ ctx, type, next }) => {
  const { principal, viaCookie } = await resolvePrincipal(ctx);
  if (principal.kind === "tenant") {
    const rate = principal.requestsPerSecond;
    const waitMs = ctx.services.limiter.take(`tenant:${principal.tenantId}`, rate, rate);
    if (waitMs > 0) {
      ctx.services.metrics.quotaRefusals.inc({ tenant: principal.tenantId });
      throw new QuotaExceededError(principal.tenantId, waitMs);
    }
  }
  if (viaCookie && type === "mutation") {
    const { origin, host } = ctx.request;
    if (!originAllowed(origin, host, ctx.services.config.consoleOrigins)) {
      throw new ForbiddenError("cross-origin request refused");
    }
  }
  return next({ ctx: { principal, actor: actorOf(principal) } });
});

/** SDK calls: a tenant API key only. */
export const tenantProcedure = authedProcedure.use(({ ctx, next }) => {
  if (ctx.principal.kind !== "tenant") throw new ForbiddenError("this call needs a tenant API key");
  return next({ ctx: { principal: ctx.principal } });
});

/** Console calls that need at least `role`. */
export function roleProcedure(role: OperatorRole) {
  return authedProcedure.use(({ ctx, next }) => {
    const principal = ctx.principal;
    if (principal.kind !== "operator" || !roleAtLeast(principal.role, role)) {
      throw new ForbiddenError(`this call needs the ${role} role`);
    }
    return next({ ctx: { principal } });
  });
}

/** Registry edits: a tenant's own API key (infrastructure as code) or an operator+. */
export const editorProcedure = authedProcedure.use(({ ctx, next }) => {
  const principal = ctx.principal;
  if (principal.kind === "operator" && !roleAtLeast(principal.role, "operator")) {
    throw new ForbiddenError("this call needs the operator role");
  }
  return next();
});
