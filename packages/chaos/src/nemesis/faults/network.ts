import { connect } from "node:net";
import { statsDelta, type ProxyMode } from "../../proxy/proxy-mode.js";
import { currentMasters } from "../../stack/chaos-redis.js";
import type { FaultContext } from "../fault-context.js";

/** Time until the first byte comes back through the proxy port `port` after sending `hello`. */
function firstByteMs(port: number, hello: string): Promise<number | null> {
  return new Promise((resolve) => {
    const started = performance.now();
    const socket = connect(port, "127.0.0.1");
    const done = (value: number | null): void => {
      socket.destroy();
      resolve(value);
    };
    socket.setTimeout(5_000, () => done(null));
    socket.once("error", () => done(null));
    socket.once("data", () => done(performance.now() - started));
    if (hello) socket.write(hello);
  });
}

/** A round trip through the impaired path: PING to the Redis master, or MariaDB's greeting. */
async function probeThroughProxy(ctx: FaultContext, group: string): Promise<number | null> {
  const { proxy, redis } = ctx.stack;
  if (group === "db") return firstByteMs(proxy.ports["warden-db"]!, "");
  const [master] = await currentMasters(redis);
  const nodes = redis.variant === "cluster" ? redis.cluster.nodes : redis.group.nodes;
  const prefix = redis.variant === "cluster" ? "cluster" : "redis";
  const route = `${prefix}-${nodes.indexOf(master!)}`;
  return firstByteMs(proxy.ports[route]!, "PING\r\n");
}

function modeOf(ctx: FaultContext, impairment: string): ProxyMode {
  switch (impairment) {
    case "delay":
      return {
        kind: "delay",
        latencyMs: ctx.param("latencyMs"),
        jitterMs: ctx.param("jitterMs"),
        spikeMs: ctx.param("spikeMs"),
        spikePercent: ctx.param("spikePercent"),
      };
    case "blackhole":
    case "reset":
    case "refuse":
      return { kind: impairment };
    default:
      throw new Error(`unknown network impairment ${impairment}`);
  }
}

/**
 * Issue item 6: the servers' path to Redis (`net-redis-*`) or to Warden's database
 * (`net-db-*`) slowed with jitter and stalls, blackholed, reset, or refused, through the
 * fault proxies every server connection passes.
 */
export async function networkFault(ctx: FaultContext): Promise<void> {
  const [, group, impairment] = ctx.step.kind.split("-") as [string, string, string];
  const { proxy } = ctx.stack;
  const mode = modeOf(ctx, impairment);
  const durationMs = ctx.param("durationMs");
  const before = await proxy.stats(group);
  ctx.start({ group, mode });
  await proxy.setMode(group, mode);
  let after = before;
  try {
    if (mode.kind === "delay") {
      await ctx.sleep(1_000);
      ctx.observe({ probeRttMs: await probeThroughProxy(ctx, group), latencyMs: mode.latencyMs });
      await ctx.sleep(durationMs - 1_000);
    } else {
      await ctx.sleep(durationMs);
    }
  } finally {
    after = await proxy.setMode(group, { kind: "pass" });
  }
  ctx.observe({ proxy: statsDelta(after, before) });
  ctx.heal();
}
