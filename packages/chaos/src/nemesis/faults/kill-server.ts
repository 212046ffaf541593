import type { FaultContext } from "../fault-context.js";

/**
 * Issue item 7: kill -9 one server process while its four workers are mid-call, leave it
 * down for a moment, start it again on the same port. Its workers' lock calls fail or
 * come back unknown; their grants in Redis run out on their own.
 */
export async function killServer(ctx: FaultContext): Promise<void> {
  const server = ctx.stack.servers[ctx.param("server")]!;
  ctx.start();
  await server.kill9();
  ctx.observe({ killedServer: server.id });
  await ctx.sleep(ctx.param("downMs"));
  await server.start();
  ctx.heal();
}
