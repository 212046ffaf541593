import type { FaultContext } from "../fault-context.js";

/**
 * Issue item 7, with several instances: kill -9 one of the server instances while its
 * workers are mid-call, leave it down for a while, start it again on the same port. Its
 * workers' lock calls fail or come back unknown; their grants in Redis run out on their
 * own; the other instances go on serving their workers meanwhile.
 */
export async function serverKill(ctx: FaultContext): Promise<void> {
  const index = ctx.param("server") % ctx.stack.servers.length;
  const server = ctx.stack.servers[index]!;
  ctx.start();
  await server.kill9();
  ctx.observe({ killedServer: server.id, killedServerIndex: index });
  await ctx.sleep(ctx.param("downMs"));
  await server.start();
  ctx.heal();
}
