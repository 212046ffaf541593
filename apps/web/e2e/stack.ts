/**
 * The running Warden the e2e drives: URLs, an operator login, a tenant API key for the
 * lock client, and hooks that stop and start Redis and MariaDB. `startLocalStack()`
 * makes one from private servers; `externalStackFromEnv()` takes one the lead started.
 */
export interface E2eStack {
  /** Console origin, e.g. http://127.0.0.1:3100 */
  readonly webUrl: string;
  /** Server's tRPC endpoint, e.g. http://127.0.0.1:4100/trpc */
  readonly apiUrl: string;
  readonly operator: { readonly username: string; readonly password: string };
  /** A tenant API key for the lock client, and the tenant it belongs to. */
  readonly tenant: { readonly id: string; readonly apiKey: string };
  stopRedis(): Promise<void>;
  startRedis(): Promise<void>;
  stopMariaDb(): Promise<void>;
  startMariaDb(): Promise<void>;
  /** Stops whatever this stack started; a no-op for an external stack. */
  close(): Promise<void>;
}
