/**
 * A chaos worker process: loops over ledger iterations against one Warden server until
 * the run asks it to stop, logging every step as a JSON line on stdout. IPC messages:
 * `{ type: "stop" }` (finish the iteration, release, exit) and `{ type: "pause-after-read" }`
 * (SIGSTOP itself right after its next read).
 */
import "../procs/preload/parent-watch.js";
import { writeSync } from "node:fs";
import { createWarden } from "@warden/sdk";
import { createPool } from "mysql2/promise";
import { monoNow } from "../log/clock.js";
import { createRng } from "../schedule/rng.js";
import { runLeaderCandidate } from "./leader-candidate.js";
import { ledgerIteration, type WorkerLine } from "./ledger-iteration.js";
import { semaphoreIteration } from "./semaphore-holder.js";
import { loadWorkerConfig } from "./worker-config.js";

const config = loadWorkerConfig(process.env);

function log(line: WorkerLine): void {
  const event = {
    src: "worker",
    mono: monoNow(),
    wall: Date.now(),
    worker: config.id,
    inc: config.inc,
    ...line,
  };
  // Synchronous: a line written before a kill -9 or a SIGSTOP is already in the pipe.
  writeSync(1, `${JSON.stringify(event)}\n`);
}

let stopping = false;
let pauseRequested = false;
process.on("message", (message: { type?: string }) => {
  if (message.type === "stop") stopping = true;
  if (message.type === "pause-after-read") pauseRequested = true;
});
process.on("disconnect", () => {
  stopping = true;
  setTimeout(() => process.exit(1), 2_000).unref();
});

const warden = createWarden({
  url: config.wardenUrl,
  apiKey: config.apiKey,
  clientId: `chaos-${config.id}-${config.inc}`,
  requestTimeoutMs: 3_000,
  connectTimeoutMs: 2_000,
  // Back within a second of a server restart, so recovery measures Warden, not backoff.
  reconnectMaxDelayMs: 1_000,
  resources: [config.resource, config.semaphoreResource],
  onError: (error, context) =>
    log({
      ev: "error",
      error: error instanceof Error ? error.name : "Error",
      message: context.slice(0, 200),
    }),
});
const pool = createPool({ uri: config.ledgerUrl, connectionLimit: 2 });
const rng = createRng(config.seed * 1_000 + Number(config.id.slice(1)) * 10 + config.inc);
const ctx = {
  config,
  warden,
  pool,
  rng,
  log,
  takePauseRequest: () => {
    const asked = pauseRequested;
    pauseRequested = false;
    return asked;
  },
};

log({ ev: "start", role: config.role });
if (config.role === "leader") await runLeaderCandidate(ctx, () => stopping);
else {
  const iteration = config.role === "semaphore" ? semaphoreIteration : ledgerIteration;
  for (let seq = 0; !stopping; seq += 1) await iteration(ctx, seq);
}
log({ ev: "exit" });
await warden.close();
await pool.end();
process.exit(0);
