import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { migrate } from "@warden/db";
import { createWarden, type Warden } from "@warden/sdk";
import { startMariaDb, type MariaDbServer } from "@warden/testkit";
import type { GuardMode } from "../checker/run-facts.js";
import { createLedger } from "../ledger/ledger-schema.js";
import type { EventLog } from "../log/event-log.js";
import { bundleWorker } from "../procs/bundle-worker.js";
import { ProxyControl } from "../proxy/proxy-control.js";
import type { ProxyRoute } from "../proxy/proxy-protocol.js";
import { SERVER_COUNT } from "../schedule/build-schedule.js";
import type { RedisVariant } from "../schedule/fault-kinds.js";
import { redisRoutes, redisServerEnv, startChaosRedis, type ChaosRedis } from "./chaos-redis.js";
import { FaketimeClock, libfaketimePath } from "./faketime.js";
import { Observer } from "./observer.js";
import { STACK_SETTINGS } from "./stack-settings.js";
import { createChaosTenant, registerResources, type ChaosResources } from "./tenant.js";
import { WardenServer } from "./warden-server.js";
import { WorkerFleet } from "./worker-fleet.js";
import { freePort } from "@warden/testkit";

/** Everything a chaos run started, for the nemesis to hit and the run to stop. */
export interface Stack {
  readonly runDir: string;
  readonly events: EventLog;
  /** The sentinel group or the Redis Cluster under the servers. */
  readonly redis: ChaosRedis;
  /** Warden's database: the one the faults take down. */
  readonly wardenDb: MariaDbServer;
  /** The ledger's own MariaDB, never faulted. */
  readonly ledgerDb: MariaDbServer;
  readonly proxy: ProxyControl;
  readonly servers: readonly WardenServer[];
  readonly faketime: FaketimeClock;
  readonly fakedServer: WardenServer;
  readonly apiKey: string;
  readonly resources: ChaosResources;
  /** The resources' `waitReplicas`. */
  readonly waitReplicas: number;
  readonly fleet: WorkerFleet;
  readonly observer: Observer;
  /** The nemesis' own SDK client (server a), never falling back to local locks itself. */
  readonly probe: Warden;
}

/** What {@link startStack} needs from the run. */
export interface StackOptions {
  readonly runDir: string;
  readonly events: EventLog;
  readonly guard: GuardMode;
  readonly seed: number;
  readonly redis: RedisVariant;
  /** The resources' `waitReplicas`. */
  readonly waitReplicas: number;
  /** Index of the server that runs under libfaketime. */
  readonly fakedServer: number;
}

const addr = (host: string, port: number) => `${host}:${port}`;

/**
 * startMariaDb, tried twice: on a loaded two-core box mariadb-install-db has been seen to
 * fail once (the testkit cleans up a failed start).
 */
async function startMariaDbRetrying(): Promise<MariaDbServer> {
  try {
    return await startMariaDb();
  } catch {
    return startMariaDb();
  }
}

function proxyRoutes(redis: ChaosRedis, wardenDb: MariaDbServer): ProxyRoute[] {
  return [
    ...redisRoutes(redis),
    { name: "warden-db", group: "db", host: wardenDb.host, port: wardenDb.port },
  ];
}

/** Server ids: `a`, `b`, `c`… */
const serverId = (i: number) => String.fromCharCode(97 + i);

/**
 * Starts the stack in dependency order: Redis (sentinel group or cluster) and both MariaDBs
 * (in parallel), migrations and the ledger, the fault proxies, the tenant,
 * {@link SERVER_COUNT} servers whose Redis and database traffic goes through the proxies,
 * the resources, eight workers (spread over the servers) and the observer. A failure half-way leaves the pieces to the caller's teardown.
 */
export async function startStack(
  options: StackOptions,
  started: (stack: Partial<Stack>) => void,
): Promise<Stack> {
  const { runDir, events } = options;
  const partial: { -readonly [K in keyof Stack]?: Stack[K] } = { runDir, events };
  started(partial);
  const library = libfaketimePath();
  const [redis, wardenDb, ledgerDb, workerEntry] = await Promise.all([
    startChaosRedis(options.redis),
    startMariaDbRetrying(),
    startMariaDbRetrying(),
    bundleWorker(join(runDir, "worker.mjs")),
  ]);
  Object.assign(partial, { redis, wardenDb, ledgerDb });
  const phase = (name: string) => events.record({ src: "orchestrator", ev: "phase", phase: name });
  phase(`redis ${options.redis} and both MariaDBs up`);
  await migrate(wardenDb.url);
  await createLedger(
    ledgerDb.url,
    [...STACK_SETTINGS.accounts, STACK_SETTINGS.leaderAccount, ...STACK_SETTINGS.semaphoreSlots],
    STACK_SETTINGS.initialBalance,
  );
  const routes = proxyRoutes(redis, wardenDb);
  const proxy = await ProxyControl.start(routes, join(runDir, "proxy.log"));
  partial.proxy = proxy;
  const nat = Object.fromEntries(
    routes.map((r) => [addr(r.host, r.port), addr("127.0.0.1", proxy.ports[r.name]!)]),
  );
  const tenant = await createChaosTenant(wardenDb.url);
  const faketime = new FaketimeClock(runDir, library);
  await faketime.set(0);
  const servers = await Promise.all(
    Array.from({ length: SERVER_COUNT }, (_, i) => serverId(i)).map(async (id, i) => {
      const spoolDir = join(runDir, `spool-${id}`);
      await mkdir(spoolDir, { recursive: true });
      return new WardenServer({
        id,
        port: await freePort(),
        runDir,
        events,
        env: {
          DATABASE_URL: wardenDb.url,
          ...redisServerEnv(redis),
          WARDEN_HOST: "127.0.0.1",
          WARDEN_LOG_LEVEL: "info",
          WARDEN_AUDIT_SPOOL_DIR: spoolDir,
          WARDEN_TIER_PROBE_INTERVAL_MS: String(STACK_SETTINGS.probeIntervalMs),
          WARDEN_TIER_FAILURES_TO_DEGRADE: String(STACK_SETTINGS.failuresToDegrade),
          WARDEN_TIER_SUCCESSES_TO_RECOVER: String(STACK_SETTINGS.successesToRecover),
          WARDEN_SHUTDOWN_GRACE_MS: "2000",
          WARDEN_CHAOS_NAT: JSON.stringify(nat),
          ...(i === options.fakedServer ? faketime.env() : {}),
        },
      });
    }),
  );
  partial.servers = servers;
  phase("migrated; proxies up; starting the servers");
  await Promise.all(servers.map((server) => server.start()));
  phase("servers up; starting the workers");
  const resources = await registerResources(
    servers[0]!.url,
    tenant.apiKey,
    STACK_SETTINGS.leaseMs,
    STACK_SETTINGS.semaphorePermits,
    options.waitReplicas,
  );
  const fleet = new WorkerFleet({
    entry: workerEntry,
    serverUrls: servers.map((s) => s.url),
    apiKey: tenant.apiKey,
    ledgerUrl: ledgerDb.url,
    resource: resources.ledger,
    accounts: STACK_SETTINGS.accounts,
    firstLeader: STACK_SETTINGS.workers,
    leaderAccount: STACK_SETTINGS.leaderAccount,
    firstSemaphore: STACK_SETTINGS.workers + STACK_SETTINGS.leaderCandidates,
    semaphoreResource: resources.semaphore,
    semaphoreKey: STACK_SETTINGS.semaphoreKey,
    semaphoreSlots: STACK_SETTINGS.semaphoreSlots,
    guard: options.guard,
    seed: options.seed,
    runDir,
    events,
  });
  partial.fleet = fleet;
  await fleet.start(
    STACK_SETTINGS.workers + STACK_SETTINGS.leaderCandidates + STACK_SETTINGS.semaphoreHolders,
  );
  const observer = new Observer(servers, events);
  observer.start();
  partial.observer = observer;
  const probe = createWarden({
    url: servers[0]!.url,
    apiKey: tenant.apiKey,
    clientId: "chaos-nemesis",
    requestTimeoutMs: 3_000,
    localFallback: false,
  });
  partial.probe = probe;
  return {
    runDir,
    events,
    redis,
    wardenDb,
    ledgerDb,
    proxy,
    servers,
    faketime,
    fakedServer: servers[options.fakedServer]!,
    apiKey: tenant.apiKey,
    resources,
    waitReplicas: options.waitReplicas,
    fleet,
    observer,
    probe,
  };
}
