// The Warden server in its own process, as `apps/server/src/main.ts` runs it, plus the
// IPC handshake the bench needs: it reports its URL when listening and shuts down when
// the bench goes away. A separate process keeps its CPU apart from the load generator's.
import { loadEnv, startServer } from "@warden/server";
import { handleProfileRequest, InspectorProfiler } from "../profile/inspector-profiler.js";
import { serveParent } from "./serve-parent.js";

/** Longest graceful stop before the process exits anyway, in ms. */
const STOP_DEADLINE_MS = 15_000;

const server = await startServer(loadEnv());
let stopping = false;

function stop(): void {
  if (stopping) return;
  stopping = true;
  setTimeout(() => process.exit(1), STOP_DEADLINE_MS).unref();
  server.stop().then(
    () => process.exit(0),
    (error: unknown) => {
      console.error("warden server stop failed:", error);
      process.exit(1);
    },
  );
}

process.on("SIGTERM", stop);
process.on("SIGINT", stop);
const profiler = new InspectorProfiler();
serveParent(
  { url: server.http.url },
  (body) => handleProfileRequest(profiler, body) ?? Promise.reject(new Error("unknown request")),
  stop,
);
