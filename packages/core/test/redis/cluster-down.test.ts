import {
  clusterInfo,
  clusterTopology,
  onNode,
  startCluster,
  type RedisClusterGroup,
  type RedisNode,
} from "@warden/testkit";
import { afterAll, beforeAll, expect, test } from "vitest";
import { LockUnavailableError, compareFences, type RedisLockStore } from "../../src/index.js";
import { eventually } from "../support/eventually.js";
import { holder, uniqueResource } from "../support/ids.js";
import { openRedisStore } from "../support/redis-target.js";

// A cluster that has lost a master and its replica stops serving every slot (full coverage
// is required by default): each node answers CLUSTERDOWN, a reply that says the call ran
// nowhere. The store's call must end inside its deadline as a refusal that says when to try
// again, not as an unknown outcome (which would make a server-side wait give up and the
// store clean up a grant that was never made).

let cluster: RedisClusterGroup;
let store: RedisLockStore;

beforeAll(async () => {
  cluster = await startCluster();
  // The store's default call deadline (1 s): the pauses between tries must fit inside it.
  ({ store } = await openRedisStore({ mode: "cluster", nodes: cluster.startupNodes }));
});

afterAll(async () => {
  await store?.close();
  await cluster?.stop();
});

/** The master that holds a key matching `pattern`. */
async function ownerOf(pattern: string): Promise<RedisNode> {
  for (const node of await cluster.masters()) {
    const [, found] = await onNode(node, (c) => c.scan("0", "MATCH", pattern, "COUNT", 10_000));
    if (found[0] !== undefined) return node;
  }
  throw new Error(`no master holds ${pattern}`);
}

/**
 * A master other than `spared` and its replica: the pair whose loss leaves slots unserved
 * while `spared`, which still answers, refuses its own.
 */
async function masterAndReplica(
  spared: RedisNode,
): Promise<{ master: RedisNode; replica: RedisNode }> {
  const master = (await cluster.masters()).find((node) => node.port !== spared.port);
  if (!master) throw new Error("no other master");
  const lines = await clusterTopology(master);
  const me = lines.find((line) => line.flags.includes("myself"))!;
  const replicaLine = lines.find((line) => line.masterId === me.id)!;
  const replica = cluster.nodes.find((node) => node.port === replicaLine.port)!;
  return { master, replica };
}

test("while the cluster is down, an acquire is refused CLUSTERDOWN with when to retry, not left unknown; granted above the earlier fence once it is back", async () => {
  const resource = uniqueResource();
  const key = { resource, businessKey: "account-3" };
  const before = await store.acquire({ ...key, holder: holder("before"), leaseMs: 1_000 });
  if (!before.granted) throw new Error("the first grant was refused");
  await store.release({ ...key, lockId: before.lockId });

  // The key's master stays up: a call to a paused node is sent and never answered, so its
  // outcome is unknown; this test is about the nodes that answer.
  const keyMaster = await ownerOf(`w:{${resource}#*}:f`);
  const { master, replica } = await masterAndReplica(keyMaster);
  master.pause();
  replica.pause();
  try {
    await eventually(async () => {
      if ((await clusterInfo(keyMaster)).get("cluster_state") !== "fail") {
        throw new Error("the cluster still serves");
      }
    }, 15_000);
    const error = await store
      .acquire({ ...key, holder: holder("during"), leaseMs: 5_000 })
      .catch((e: unknown) => e);
    // Before decision 0233 ioredis kept trying past the store's deadline: OutcomeUnknownError.
    expect(error).toBeInstanceOf(LockUnavailableError);
    expect((error as Error).message).toMatch(/^Redis refused acquire: CLUSTERDOWN /);
    expect(error).toMatchObject({ reason: "store-unavailable", retryAfterMs: 250 });
  } finally {
    master.resume();
    replica.resume();
  }

  const after = await eventually(async () => {
    const outcome = await store.acquire({ ...key, holder: holder("after"), leaseMs: 5_000 });
    if (!outcome.granted) throw new Error("refused");
    return outcome;
  }, 20_000);
  expect(compareFences(after.fence!, before.fence!)).toBeGreaterThan(0);
});
