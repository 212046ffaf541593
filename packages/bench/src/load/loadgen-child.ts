// The load generator: one process that opens every variant's clients once and runs the
// cells the coordinator sends, one at a time. Its CPU is read from /proc by the
// coordinator like every other process's.
import type { VariantName } from "../plan/variants.js";
import { serveParent } from "../infra/serve-parent.js";
import { ServerHold } from "../memory/hold-on-server.js";
import { handleProfileRequest, InspectorProfiler } from "../profile/inspector-profiler.js";
import { openVariant } from "../variants/open-variant.js";
import type { Variant } from "../variants/variant.js";
import type { LoadgenConfig, LoadgenRequest } from "./loadgen-config.js";
import { runCell } from "./run-cell.js";

const config = JSON.parse(process.env.WARDEN_BENCH_LOADGEN ?? "null") as LoadgenConfig | null;
if (config === null) throw new Error("WARDEN_BENCH_LOADGEN is not set");

const variants = new Map<VariantName, Variant>();
let hold: ServerHold | null = null;
const profiler = new InspectorProfiler();

async function closeAll(): Promise<void> {
  await hold?.close();
  await Promise.allSettled([...variants.values()].map((variant) => variant.close()));
}

function quit(): void {
  // Nothing here must outlive the coordinator; give the clients a moment to say goodbye.
  setTimeout(() => process.exit(0), 2_000).unref();
  void closeAll().finally(() => process.exit(0));
}

async function handle(body: unknown): Promise<unknown> {
  const profiling = handleProfileRequest(profiler, body);
  if (profiling) return profiling;
  const request = body as LoadgenRequest;
  switch (request.kind) {
    case "run": {
      const variant = variants.get(request.variant);
      if (!variant) throw new Error(`variant ${request.variant} is not open`);
      return runCell({ ...request, variant });
    }
    case "hold": {
      hold = new ServerHold({
        serverUrl: config!.serverUrl,
        apiKey: config!.apiKey,
        resource: config!.resources.hold,
        leaseMs: config!.holdLeaseMs,
      });
      return hold.take(request.locks, request.waiters, request.waiterClients);
    }
    case "renewals": {
      if (!hold) throw new Error("renewals: no locks are held");
      return hold.countRenewals();
    }
  }
}

try {
  for (const name of config.variants) variants.set(name, await openVariant(name, config));
} catch (error) {
  await closeAll();
  throw error;
}
process.on("SIGTERM", quit);
process.on("SIGINT", quit);
serveParent({ variants: [...variants.keys()] }, handle, quit);
