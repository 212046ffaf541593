import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { SERVER_NODE_FLAGS } from "@warden/server/node-flags";
import type { CpuProfile } from "../profile/cpu-profile.js";
import type { ProfileRequest } from "../profile/inspector-profiler.js";
import { ForkedChild } from "./forked-child.js";

/** Options of {@link startServerProcess}. */
export interface ServerProcessOptions {
  readonly databaseUrl: string;
  readonly redisUrl: string;
  readonly adminUser: string;
  readonly adminPassword: string;
  /** `WARDEN_INSTANCE_ID`: distinct per instance when several share Redis and MySQL. */
  readonly instanceId?: string;
}

/** A running Warden server process. */
export interface ServerProcess {
  readonly url: string;
  readonly pid: number;
  /** Starts sampling the server's CPU (see InspectorProfiler). */
  startProfile(): Promise<void>;
  /** Stops sampling and returns the profile. */
  stopProfile(): Promise<CpuProfile>;
  /** Graceful stop (drain, flush the audit), SIGKILL after a grace period. */
  stop(): Promise<void>;
}

/** Time the server needs to compile its TypeScript through tsx and open both tiers, in ms. */
const READY_TIMEOUT_MS = 60_000;
const STOP_GRACE_MS = 20_000;

/**
 * Starts `@warden/server` in a child process on a free loopback port, with the bin's node
 * flags, configured through its env like a deployment, with an audit spool in a temp dir and
 * logs at `warn` (logging every call at `info` would measure pino, not Warden).
 */
export async function startServerProcess(options: ServerProcessOptions): Promise<ServerProcess> {
  const spoolDir = await mkdtemp(join(tmpdir(), "warden-bench-spool-"));
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    DATABASE_URL: options.databaseUrl,
    REDIS_URL: options.redisUrl,
    WARDEN_HOST: "127.0.0.1",
    WARDEN_PORT: "0",
    WARDEN_INSTANCE_ID: options.instanceId ?? "bench",
    WARDEN_LOG_LEVEL: "warn",
    WARDEN_AUDIT_SPOOL_DIR: spoolDir,
    WARDEN_ADMIN_USER: options.adminUser,
    WARDEN_ADMIN_PASSWORD: options.adminPassword,
  };
  let child: ForkedChild;
  try {
    child = await ForkedChild.fork(fileURLToPath(new URL("./server-child.ts", import.meta.url)), {
      label: "warden server",
      env,
      // The flags the `warden-server` bin runs with: the bench measures the deployed process.
      nodeFlags: SERVER_NODE_FLAGS,
      readyTimeoutMs: READY_TIMEOUT_MS,
    });
  } catch (error) {
    await rm(spoolDir, { recursive: true, force: true });
    throw error;
  }
  const url = child.info.url;
  if (typeof url !== "string") {
    await child.stop(STOP_GRACE_MS);
    throw new Error("warden server reported no url");
  }
  return {
    url,
    pid: child.pid,
    startProfile: () => child.request({ kind: "profile-start" } satisfies ProfileRequest),
    stopProfile: () => child.request({ kind: "profile-stop" } satisfies ProfileRequest),
    stop: async () => {
      await child.stop(STOP_GRACE_MS);
      await rm(spoolDir, { recursive: true, force: true });
    },
  };
}
