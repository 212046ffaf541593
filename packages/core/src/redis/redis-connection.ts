import { Cluster, Redis, type RedisOptions } from "ioredis";
import * as scripts from "./generated/lua-scripts.js";
import { writeTogetherThisTurn } from "../io/write-together.js";
import type { RedisTopology } from "./topology.js";

/** Either ioredis client; both carry Warden's commands once {@link connectRedis} returns. */
export type RedisClient = Redis | Cluster;

/**
 * Options that make a lock connection safe (docs/design.md#no-replay-no-guess): a command is sent
 * at most once. No offline queue (nothing is sent later than asked), no re-send of commands in
 * flight when a connection drops, no per-request retries. Reconnection itself is fine: only
 * commands issued after it are sent on it.
 */
const NO_REPLAY: RedisOptions = Object.freeze({
  enableOfflineQueue: false,
  autoResendUnfulfilledCommands: false,
  maxRetriesPerRequest: 0,
  // No auto-pipelining: ioredis keeps one auto-pipeline in flight per node, so a command
  // issued while one is out waits for its whole round trip. Commands are batched per
  // event-loop turn at the socket instead (callScript), which never delays past the turn.
  // Reconnect quickly but not in a tight loop: 50 ms, 100 ms, … capped at 1 s.
  retryStrategy: (times: number) => Math.min(times * 50, 1_000),
});

/** Clients their owner is closing: their end is final. */
const closing = new WeakSet<RedisClient>();

// Delay before a client that ended unasked connects again, in ms.
const REVIVE_MS = 100;

/** ioredis's pause before it tries again a command a cluster answered TRYAGAIN, in ms. */
const REDIRECT_PAUSE_MS = 20;

/** Marks `client` as being closed by its owner, so it is not connected again. */
export function markClosing(client: RedisClient): void {
  closing.add(client);
}

/** Creates the ioredis client for a topology and registers Warden's Lua commands on it. */
export function connectRedis(topology: RedisTopology, connectTimeoutMs: number): RedisClient {
  const client = createClient(topology, connectTimeoutMs);
  // Connection errors are expected during failovers; each call reports its own failure,
  // so the emitter's copy is not an unhandled error.
  client.on("error", () => undefined);
  if (client instanceof Redis) {
    // ioredis ends a client for good, without its retry strategy, when a connect attempt is
    // interrupted — e.g. the sentinel failover detector disconnecting it mid-connect during a
    // failover — and every later command fails with "Connection is closed". Only the owner
    // may end a lock connection: an end it did not ask for is followed by a new connect.
    client.on("end", () => {
      if (closing.has(client)) return;
      setTimeout(() => {
        if (!closing.has(client) && client.status === "end")
          client.connect().catch(() => undefined);
      }, REVIVE_MS).unref();
    });
  }
  for (const script of Object.values(scripts)) {
    // A variadic script has no fixed key count: its caller passes the count first.
    client.defineCommand(
      script.command,
      "numberOfKeys" in script
        ? { numberOfKeys: script.numberOfKeys, lua: script.lua }
        : { lua: script.lua },
    );
  }
  return client;
}

function createClient(topology: RedisTopology, connectTimeoutMs: number): RedisClient {
  const base: RedisOptions = { ...NO_REPLAY, connectTimeout: connectTimeoutMs, lazyConnect: false };
  switch (topology.mode) {
    case "standalone":
      return new Redis(topology.url, base);
    case "sentinel":
      return new Redis({
        ...base,
        sentinels: topology.sentinels.map((s) => ({ host: s.host, port: s.port })),
        name: topology.masterName,
        password: topology.password,
        // Subscribe to +switch-master so a failover moves us to the new master promptly.
        failoverDetector: true,
      });
    case "cluster":
      return new Cluster(
        topology.nodes.map((n) => ({ host: n.host, port: n.port })),
        {
          enableOfflineQueue: false,
          // A positive value re-sends commands whose connection closed: a replay. With 0,
          // ioredis tries a command again only after a reply saying it did not run, which
          // reply-error.ts counts on (decision 0231).
          retryDelayOnFailover: 0,
          // While a slot is resharded, a script whose keys are split between its two nodes
          // is answered TRYAGAIN until the move ends. ioredis tries again up to 16 times;
          // with its default 100 ms pause between them that outlasts a call's deadline (1 s,
          // at most a third of the lease), which then reports an unknown outcome for a call
          // that ran nowhere. 20 ms pauses end the tries well within it, as a refusal
          // (decision 0231).
          retryDelayOnTryAgain: REDIRECT_PAUSE_MS,
          // A cluster missing a master and its replica answers CLUSTERDOWN for every slot
          // until a failover or an operator mends it, seconds at least. ioredis would try
          // again up to 16 times, each after a 100 ms pause and a slot-map refresh that
          // waits out an unanswering node: past the call's deadline, so a call that ran
          // nowhere would end unknown. With 0 the reply comes back at once as a refusal that
          // passes on its own; a server-side wait tries again after its `retryAfterMs`
          // (decision 0233).
          retryDelayOnClusterDown: 0,
          redisOptions: { ...base, password: topology.password },
          natMap: topology.natMap ? { ...topology.natMap } : undefined,
          slotsRefreshTimeout: connectTimeoutMs,
        },
      );
  }
}

/** Calls a Warden Lua command by its versioned name. */
export function callScript(
  client: RedisClient,
  script: scripts.LuaScript,
  keys: readonly string[],
  args: readonly (string | number)[],
): Promise<unknown> {
  const command = (
    client as unknown as Record<string, (...a: (string | number)[]) => Promise<unknown>>
  )[script.command];
  if (!command) throw new Error(`Lua command ${script.command} is not registered`);
  // Commands of one turn leave in one write (the cluster client routes per node; there
  // each command is written on its own).
  if (client instanceof Redis) writeTogetherThisTurn(client.stream);
  return command.call(client, ...keys, ...args);
}

/**
 * Redirections {@link callScriptThenWait} follows on a cluster, each after a refresh of the
 * slot map: a failover moves a slot once, so one is the usual need.
 */
const SCRIPT_THEN_WAIT_REDIRECTIONS = 3;

/** A node's answer that it does not serve the key's slot (the command did not run there). */
function isMoved(error: unknown): boolean {
  return error instanceof Error && error.message.startsWith("MOVED ");
}

/** Resolves once the cluster client has asked a node for the slot map (or failed to). */
function refreshSlots(cluster: Cluster): Promise<void> {
  return new Promise((resolve) => cluster.refreshSlotsCache(() => resolve()));
}

/**
 * A script call and a `WAIT replicas timeoutMs` in one pipeline, so the `WAIT` runs on the
 * node that just ran the script (a cluster routes the pipeline by the script's keys).
 * Resolves with the script's reply and how many replicas acknowledged it; a script error
 * rejects.
 *
 * On a cluster, a node that no longer serves the slot (after a failover) answers `MOVED`
 * without running the script. ioredis follows and learns from that answer for a plain
 * command, but not for a pipeline whose `WAIT` was answered, so the client would keep
 * sending such grants to the old node. Here the slot map is refreshed and the pipeline sent
 * again (at most {@link SCRIPT_THEN_WAIT_REDIRECTIONS} times): nothing ran, so nothing is
 * replayed.
 */
export async function callScriptThenWait(
  client: RedisClient,
  script: scripts.LuaScript,
  keys: readonly string[],
  args: readonly (string | number)[],
  replicas: number,
  timeoutMs: number,
): Promise<{ reply: unknown; acknowledged: number }> {
  for (let redirected = 0; ; redirected += 1) {
    const pipeline = client.pipeline();
    const command = (pipeline as unknown as Record<string, (...a: (string | number)[]) => unknown>)[
      script.command
    ];
    if (!command) throw new Error(`Lua command ${script.command} is not registered`);
    command.call(pipeline, ...keys, ...args);
    pipeline.wait(replicas, timeoutMs);
    const [ran, waited] = (await pipeline.exec()) ?? [];
    if (ran?.[0]) {
      if (
        client instanceof Cluster &&
        isMoved(ran[0]) &&
        redirected < SCRIPT_THEN_WAIT_REDIRECTIONS
      ) {
        await refreshSlots(client);
        continue;
      }
      throw ran[0];
    }
    return { reply: ran?.[1], acknowledged: Number(waited?.[1] ?? 0) };
  }
}
