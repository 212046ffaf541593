// Several real server instances (startServer, as main.ts runs it) on one Redis and one
// database, with a round-robin TCP proxy in front, and tRPC clients that open a fresh TCP
// connection per call so the proxy spreads calls the way a balancer spreads connections.
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { request } from "node:http";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createTRPCClient, httpLink } from "@trpc/client";
import { migrate } from "@warden/db";
import {
  createTestDatabase,
  freePort,
  startRedis,
  startRoundRobinProxy,
  trackChild,
  untrackChild,
  type RoundRobinProxy,
  type StandaloneRedis,
  type TestDatabase,
} from "@warden/testkit";
import { generateApiKey } from "../../src/auth/api-key.js";
import { loadEnv } from "../../src/env.js";
import type { AppRouter } from "../../src/routers/_app.js";
import { startServer, type RunningServer } from "../../src/start-server.js";
import { uid } from "./harness.js";

export type FleetClient = ReturnType<typeof createTRPCClient<AppRouter>>;

/** A fetch for tRPC that never reuses a connection: each call is a new TCP connection. */
export function freshConnectionFetch(
  url: string | URL | Request,
  init?: RequestInit,
): Promise<Response> {
  return new Promise((resolve, reject) => {
    const headers = Object.fromEntries(new Headers(init?.headers).entries());
    const outgoing = request(
      url instanceof Request ? url.url : url.toString(),
      { method: init?.method ?? "GET", headers, agent: false, signal: init?.signal ?? undefined },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("error", reject);
        res.on("end", () => {
          const out = new Headers();
          for (const [name, value] of Object.entries(res.headers)) {
            if (typeof value === "string") out.set(name, value);
          }
          resolve(new Response(Buffer.concat(chunks), { status: res.statusCode, headers: out }));
        });
      },
    );
    outgoing.on("error", reject);
    outgoing.end(typeof init?.body === "string" ? init.body : undefined);
  });
}

/** A tRPC client of `baseUrl` (an instance or the proxy) acting as SDK client `clientId`. */
export function fleetClient(baseUrl: string, apiKey: string, clientId: string): FleetClient {
  return createTRPCClient<AppRouter>({
    links: [
      httpLink({
        url: `${baseUrl}/trpc`,
        headers: { authorization: `Bearer ${apiKey}`, "x-warden-client-id": clientId },
        fetch: freshConnectionFetch,
      }),
    ],
  });
}

/** One instance slot: its env stays (same port, spool and id) across restarts. */
export interface FleetInstance {
  readonly name: string;
  readonly port: number;
  readonly url: string;
  server: RunningServer | null;
}

export interface Fleet {
  readonly redis: StandaloneRedis;
  readonly db: TestDatabase;
  readonly instances: FleetInstance[];
  readonly proxy: RoundRobinProxy;
  /** Starts instance `index` again (after stop), on its port. */
  start(index: number): Promise<void>;
  /** Graceful stop of instance `index`. */
  stop(index: number): Promise<void>;
  /** A tenant with an API key (`lock` and `admin` scopes) and its requests-per-second. */
  tenant(requestsPerSecond?: number): Promise<{ id: string; key: string }>;
  close(): Promise<void>;
}

/**
 * Starts `count` server instances at the same moment on a fresh Redis and a freshly
 * migrated database (each bootstraps the same admin, as a deployment does), and a proxy.
 */
export async function startFleet(
  count: number,
  extraEnv: Readonly<Record<string, string>> = {},
): Promise<Fleet> {
  const redis = await startRedis();
  const db = await createTestDatabase();
  await migrate(db.url);
  const spool = await mkdtemp(join(tmpdir(), "warden-fleet-"));
  const instances: FleetInstance[] = [];
  for (let i = 0; i < count; i += 1) {
    const port = await freePort();
    instances.push({
      name: `i${i}-${uid()}`,
      port,
      url: `http://127.0.0.1:${port}`,
      server: null,
    });
  }
  const envOf = (instance: FleetInstance) =>
    loadEnv({
      DATABASE_URL: db.url,
      REDIS_URL: redis.url,
      WARDEN_HOST: "127.0.0.1",
      WARDEN_PORT: String(instance.port),
      WARDEN_LOG_LEVEL: "fatal",
      WARDEN_AUDIT_SPOOL_DIR: join(spool, instance.name),
      WARDEN_INSTANCE_ID: instance.name,
      WARDEN_SHUTDOWN_GRACE_MS: "1000",
      WARDEN_ADMIN_USER: "fleet-admin",
      WARDEN_ADMIN_PASSWORD: "a long enough admin password",
      ...extraEnv,
    });
  const start = async (index: number) => {
    const instance = instances[index]!;
    instance.server = await startServer(envOf(instance));
  };
  const stop = async (index: number) => {
    const instance = instances[index]!;
    const server = instance.server;
    instance.server = null;
    await server?.stop();
  };
  const started = await Promise.allSettled(instances.map((_, index) => start(index)));
  const proxy = await startRoundRobinProxy(
    instances.map((instance) => ({ host: "127.0.0.1", port: instance.port })),
  );
  const fleet: Fleet = {
    redis,
    db,
    instances,
    proxy,
    start,
    stop,
    async tenant(requestsPerSecond = 100_000) {
      const prisma = instances.find((instance) => instance.server)!.server!.services.prisma;
      const id = `t-${uid()}`;
      await prisma.tenant.create({
        data: { id, name: id, requestsPerSecond },
        select: { id: true },
      });
      const made = generateApiKey();
      await prisma.apiKey.create({
        data: {
          id: made.id,
          tenantId: id,
          name: "fleet",
          prefix: made.prefix,
          hash: made.hash,
          scopes: "lock,admin",
        },
        select: { id: true },
      });
      return { id, key: made.key };
    },
    async close() {
      await proxy.stop();
      await Promise.allSettled(instances.map((_, index) => stop(index)));
      await redis.stop();
      await db.drop();
      await rm(spool, { recursive: true, force: true });
    },
  };
  const failed = started.find((result) => result.status === "rejected");
  if (failed) {
    await fleet.close();
    throw failed.reason;
  }
  return fleet;
}

/** Polls `check` every 25 ms until it returns true, at most `limitMs`; false if it never did. */
export async function eventually(
  check: () => Promise<boolean>,
  limitMs = 10_000,
): Promise<boolean> {
  const until = performance.now() + limitMs;
  while (performance.now() < until) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return check();
}

/** What a {@link runLockLoad} saw. */
export interface LoadReport {
  grants: number;
  /** Failed calls (instance down, wait cancelled by a shutdown, timeouts), all retried. */
  errors: number;
  /** A grant while another worker still held the key (must stay empty). */
  readonly doubleGrants: string[];
  /** A grant whose fence was not above the key's previous one (must stay empty). */
  readonly fenceRegressions: string[];
  /**
   * Grants whose release never got through, or was refused while the grant was still
   * there (must stay empty). A release refused because an earlier try of it went through
   * (its reply lost with a killed instance) is not lost.
   */
  readonly lostReleases: string[];
}

function isTransportFailure(error: unknown): boolean {
  const data = (error as { data?: { httpStatus?: number } } | null)?.data;
  // No tRPC error body (connection refused or reset), or an instance that is shutting down.
  return data?.httpStatus === undefined || data.httpStatus === 503 || data.httpStatus === 499;
}

/**
 * `workers` SDK-like clients lock random keys of `resource` through `baseUrl` until `stop`
 * says so: acquire (waiting up to 2 s), note the grant in a ledger, hold 10 ms, release,
 * retrying a release whose instance went away (bounded). Every call is a new connection.
 */
export async function runLockLoad(options: {
  readonly baseUrl: string;
  readonly apiKey: string;
  readonly resource: string;
  readonly keys: readonly string[];
  readonly workers: number;
  readonly stop: () => boolean;
}): Promise<LoadReport> {
  const report: LoadReport = {
    grants: 0,
    errors: 0,
    doubleGrants: [],
    fenceRegressions: [],
    lostReleases: [],
  };
  const held = new Map<string, string>();
  const lastFence = new Map<string, bigint>();
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  const worker = async (index: number) => {
    const client = fleetClient(options.baseUrl, options.apiKey, `load-${index}`);
    for (let round = 0; round < 100_000 && !options.stop(); round += 1) {
      // One owner per attempt: a grant whose reply died with an instance is never re-entered.
      const ownerId = `load-${index}-${round}`;
      const businessKey = options.keys[round % options.keys.length]!;
      const key = { resource: options.resource, businessKey };
      let grant;
      try {
        grant = await client.lock.acquire.mutate({
          ...key,
          ownerId,
          leaseMs: 5_000,
          waitMs: 2_000,
        });
      } catch {
        report.errors += 1;
        await sleep(20);
        continue;
      }
      if (!grant.granted) continue;
      const other = held.get(businessKey);
      if (other !== undefined) report.doubleGrants.push(`${businessKey}: ${ownerId} and ${other}`);
      held.set(businessKey, ownerId);
      const fence = BigInt(grant.fence!);
      const last = lastFence.get(businessKey);
      if (last !== undefined && fence <= last) {
        report.fenceRegressions.push(`${businessKey}: ${fence} after ${last}`);
      }
      lastFence.set(businessKey, fence);
      report.grants += 1;
      await sleep(10);
      held.delete(businessKey);
      let released = false;
      for (let attempt = 0; attempt < 50 && !released; attempt += 1) {
        try {
          await client.lock.release.mutate({ ...key, lockId: grant.lockId, tier: grant.tier });
          released = true;
        } catch (error) {
          if (!isTransportFailure(error)) {
            // Refused after an earlier try died with its instance: that try may have
            // released it already. Lost only if the grant is still there.
            const now = await client.lock.inspect.query(key).catch(() => null);
            released = now !== null && now.lease?.lockId !== grant.lockId;
            break;
          }
          await sleep(100);
        }
      }
      if (!released) report.lostReleases.push(`${businessKey}: ${grant.lockId}`);
    }
  };
  await Promise.all(Array.from({ length: options.workers }, (_, index) => worker(index)));
  return report;
}

/** A server instance in its own process (main.ts through tsx), to kill with SIGKILL. */
export interface ChildInstance {
  readonly port: number;
  readonly url: string;
  readonly pid: number;
  /** SIGKILL: no drain, no leaveQueue, no release; resolves once the process is gone. */
  kill9(): Promise<void>;
}

const REPO_ROOT = fileURLToPath(new URL("../../../../", import.meta.url));

/**
 * Starts `apps/server/src/main.ts` as a deployment runs it, on the fleet's Redis and
 * database and a free port, and resolves once it answers /readyz (bounded: compiling the
 * server through tsx on a busy machine takes a while).
 */
export async function startChildInstance(
  fleet: Fleet,
  readyWithinMs = 90_000,
): Promise<ChildInstance> {
  const port = await freePort();
  const spool = await mkdtemp(join(tmpdir(), "warden-child-"));
  const child: ChildProcess = spawn(
    process.execPath,
    ["--import", "tsx", join(REPO_ROOT, "apps/server/src/main.ts")],
    {
      cwd: REPO_ROOT,
      stdio: ["ignore", "ignore", "pipe"],
      env: {
        PATH: process.env.PATH,
        DATABASE_URL: fleet.db.url,
        REDIS_URL: fleet.redis.url,
        WARDEN_HOST: "127.0.0.1",
        WARDEN_PORT: String(port),
        WARDEN_INSTANCE_ID: `child-${uid()}`,
        WARDEN_LOG_LEVEL: "fatal",
        WARDEN_AUDIT_SPOOL_DIR: spool,
        WARDEN_SHUTDOWN_GRACE_MS: "1000",
      },
    },
  );
  if (child.pid !== undefined) trackChild(child.pid, "warden server (fleet test)", spool);
  let stderr = "";
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const exited = once(child, "exit");
  const url = `http://127.0.0.1:${port}`;
  const kill9 = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGKILL");
      await exited;
    }
    if (child.pid !== undefined) untrackChild(child.pid);
    await rm(spool, { recursive: true, force: true });
  };
  const ready = await eventually(
    () =>
      child.exitCode !== null
        ? Promise.resolve(true)
        : fetch(`${url}/readyz`).then(
            (response) => response.ok,
            () => false,
          ),
    readyWithinMs,
  );
  if (!ready || child.exitCode !== null) {
    await kill9();
    throw new Error(`the child instance did not become ready: ${stderr.slice(-2_000)}`);
  }
  return { port, url, pid: child.pid!, kill9 };
}
