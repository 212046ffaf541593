/**
 * A stand-in for a test worker: starts a Redis through the testkit, prints its pid and
 * directory as one JSON line, then either hangs (to be killed by the test) or exits.
 * Run with `node --import tsx owner-process.ts <hang|exit>`.
 */
import { startRedis } from "../../src/index.js";

const redis = await startRedis();
process.stdout.write(`${JSON.stringify({ pid: redis.pid, dir: redis.dir })}\n`);
if (process.argv[2] === "exit") process.exit(0);
setInterval(() => undefined, 60_000);
