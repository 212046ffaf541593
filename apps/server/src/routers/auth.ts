import { createHash } from "node:crypto";
import { UnauthorizedError } from "@warden/contract";
import { sessionCookie } from "../auth/cookies.js";
import type { OperatorRole } from "../auth/principal.js";
import { UNMATCHABLE_HASH, verifyPassword } from "../auth/password.js";
import { SESSION_COOKIE } from "../auth/session-auth.js";
import { limitsOf } from "../config.js";
import { LoginThrottledError } from "../errors/login-throttled-error.js";
import { bootstrapInputSchema, loginInputSchema } from "../schemas/admin.js";
import { authedProcedure, publicProcedure, router } from "../trpc.js";

/** Console login with operator sessions (httpOnly, SameSite=Strict cookie). */
export const authRouter = router({
  /**
   * Checks the password (scrypt) and sets the session cookie. Rate-limited per (username,
   * client address), per address and fleet-wide, in Redis when it answers (per instance
   * while it does not); a wrong user and a wrong password fail alike.
   */
  login: publicProcedure.input(loginInputSchema).mutation(async ({ ctx, input }) => {
    const { services, request } = ctx;
    // One canonical form for the name: NFC, compared byte for byte by the operator table
    // (utf8mb4_nopad_bin), and the same string keys the throttle: "vera ", "VERA" and
    // "vera" + U+0301 are other names, not other spellings of vera.
    const username = input.username.normalize("NFC");
    const limits = limitsOf(services.config);
    const perMinute = limits.loginAttemptsPerMinute;
    const address = request.ip ?? "unknown";
    const user = createHash("sha256").update(username, "utf8").digest("hex").slice(0, 32);
    // Per (user, address), per address (3×), and a ceiling for every login of the fleet.
    const waitMs = await services.limiter.takeAll(
      [`login|u:${user}:a:${address}`, `login|a:${address}`, "login|all"],
      [
        { ratePerSecond: perMinute / 60, burst: perMinute },
        { ratePerSecond: (perMinute * 3) / 60, burst: perMinute * 3 },
        {
          ratePerSecond: limits.loginAttemptsGlobalPerMinute / 60,
          burst: limits.loginAttemptsGlobalPerMinute,
        },
      ],
    );
    if (waitMs > 0) {
      services.metrics.loginRefusals.inc({ reason: "throttled" });
      throw new LoginThrottledError(waitMs);
    }
    const operator = await services.prisma.operator.findUnique({
      where: { username },
      select: { id: true, username: true, role: true, passwordHash: true, disabledAt: true },
    });
    const ok = await verifyPassword(input.password, operator?.passwordHash ?? UNMATCHABLE_HASH);
    if (!operator || !ok || operator.disabledAt !== null) {
      services.metrics.loginRefusals.inc({ reason: "bad-credentials" });
      throw new UnauthorizedError("wrong username or password");
    }
    const session = await services.sessions.create(operator.id, {
      ip: request.ip,
      userAgent: request.userAgent,
    });
    await services.prisma.operator.update({
      where: { id: operator.id },
      data: { lastLoginAt: new Date() },
      select: { id: true },
    });
    request.setCookie?.(
      sessionCookie(SESSION_COOKIE, session.token, {
        secure: services.config.cookieSecure,
        maxAgeMs: services.config.sessionTtlMs,
      }),
    );
    services.logger.info({ op: "login", username: operator.username }, "operator logged in");
    const role: OperatorRole = operator.role;
    return {
      username: operator.username,
      role,
      expiresAt: session.expiresAt.getTime(),
      // Returned for non-browser clients (tests, scripts) that cannot read Set-Cookie.
      sessionToken: request.setCookie === null ? session.token : null,
    };
  }),

  /** Ends the session and clears the cookie. */
  logout: authedProcedure.mutation(async ({ ctx }) => {
    const token = ctx.request.sessionToken;
    if (token !== null) await ctx.services.sessions.revoke(token);
    ctx.request.setCookie?.(
      sessionCookie(SESSION_COOKIE, "", { secure: ctx.services.config.cookieSecure, maxAgeMs: 0 }),
    );
    return { ok: true };
  }),

  /** Who is calling: an operator (name, role) or a tenant key. */
  me: authedProcedure.query(({ ctx }) => ctx.principal),

  /** Whether the server waits for its first admin (the console shows the bootstrap form). */
  bootstrapStatus: publicProcedure.query(({ ctx }) => ({ open: ctx.services.bootstrap.open })),

  /** Creates the first admin with the one-time token the server printed at startup. */
  bootstrap: publicProcedure.input(bootstrapInputSchema).mutation(async ({ ctx, input }) => {
    const ok = await ctx.services.bootstrap.claim(input.token, input.username, input.password);
    if (!ok) throw new UnauthorizedError("bootstrap token is wrong or already used");
    return { username: input.username, role: "admin" as const };
  }),
});
