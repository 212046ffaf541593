import type { Env } from "./env.js";

/** The settings routers and middleware read at request time. */
export interface ServerConfig {
  readonly instanceId: string;
  /** Origins allowed for cookie-authenticated mutations besides the server's own host. */
  readonly consoleOrigins: readonly string[];
  readonly cookieSecure: boolean;
  /** Operator session lifetime, in ms. */
  readonly sessionTtlMs: number;
  /** Login attempts per user and per address per minute. */
  readonly loginAttemptsPerMinute: number;
}

/** The request-time settings from the validated environment. */
export function serverConfigOf(env: Env): ServerConfig {
  return {
    instanceId: env.WARDEN_INSTANCE_ID,
    consoleOrigins: env.WARDEN_CONSOLE_ORIGINS,
    cookieSecure: env.WARDEN_COOKIE_SECURE,
    sessionTtlMs: env.WARDEN_SESSION_TTL_MS,
    loginAttemptsPerMinute: env.WARDEN_LOGIN_ATTEMPTS_PER_MINUTE,
  };
}
