import type { Env } from "./env.js";

/** The settings routers and middleware read at request time. */
export interface ServerConfig {
  readonly instanceId: string;
  /** Origins allowed for cookie-authenticated mutations besides the server's own host. */
  readonly consoleOrigins: readonly string[];
  readonly cookieSecure: boolean;
  /** Operator session lifetime, in ms. */
  readonly sessionTtlMs: number;
  /** Login attempts per (user, address) per minute. */
  readonly loginAttemptsPerMinute: number;
  /** Login attempts per minute over all users and addresses. @defaultValue 300 */
  readonly loginAttemptsGlobalPerMinute?: number;
  /** Unknown API keys one address may present per minute. @defaultValue 30 */
  readonly badApiKeysPerMinute?: number;
  /**
   * Addresses of reverse proxies (the console) whose `X-Forwarded-For` names the client.
   * @defaultValue none: the socket's peer is the client
   */
  readonly trustedProxies?: readonly string[];
  /** Open `live.events` streams per credential on this instance. @defaultValue 16 */
  readonly maxStreamsPerCredential?: number;
  /** Open WebSockets per credential on this instance. @defaultValue 128 */
  readonly maxSocketsPerCredential?: number;
  /** Subscriptions at once on one WebSocket. @defaultValue 8 */
  readonly maxSubscriptionsPerSocket?: number;
  /** Bearer token `/metrics` requires. @defaultValue none (see http/metrics-access.ts) */
  readonly metricsToken?: string | undefined;
  /** Serve `/metrics` on this address only, not on the API's port. */
  readonly metricsListen?: { readonly host: string; readonly port: number } | undefined;
}

/** The security limits of `config`, defaults filled in. */
export function limitsOf(config: ServerConfig) {
  return {
    loginAttemptsPerMinute: config.loginAttemptsPerMinute,
    loginAttemptsGlobalPerMinute: config.loginAttemptsGlobalPerMinute ?? 300,
    badApiKeysPerMinute: config.badApiKeysPerMinute ?? 30,
    trustedProxies: config.trustedProxies ?? [],
    maxStreamsPerCredential: config.maxStreamsPerCredential ?? 16,
    maxSocketsPerCredential: config.maxSocketsPerCredential ?? 128,
    maxSubscriptionsPerSocket: config.maxSubscriptionsPerSocket ?? 8,
  };
}

/** The request-time settings from the validated environment. */
export function serverConfigOf(env: Env): ServerConfig {
  return {
    instanceId: env.WARDEN_INSTANCE_ID,
    consoleOrigins: env.WARDEN_CONSOLE_ORIGINS,
    cookieSecure: env.WARDEN_COOKIE_SECURE,
    sessionTtlMs: env.WARDEN_SESSION_TTL_MS,
    loginAttemptsPerMinute: env.WARDEN_LOGIN_ATTEMPTS_PER_MINUTE,
    loginAttemptsGlobalPerMinute: env.WARDEN_LOGIN_ATTEMPTS_GLOBAL_PER_MINUTE,
    badApiKeysPerMinute: env.WARDEN_BAD_API_KEYS_PER_MINUTE,
    trustedProxies: env.WARDEN_TRUSTED_PROXIES,
    maxStreamsPerCredential: env.WARDEN_MAX_STREAMS_PER_CREDENTIAL,
    maxSocketsPerCredential: env.WARDEN_MAX_SOCKETS_PER_CREDENTIAL,
    maxSubscriptionsPerSocket: env.WARDEN_MAX_SUBSCRIPTIONS_PER_SOCKET,
    metricsToken: env.WARDEN_METRICS_TOKEN,
    metricsListen: env.WARDEN_METRICS_LISTEN,
  };
}
