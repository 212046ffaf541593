import { loadEnv, type Env } from "./env.js";
import { startupFailureMessage } from "./bootstrap/startup-failure.js";
import { startServer } from "./start-server.js";

// The server process: the `warden-server` bin (bin/warden-server.js loads the build of this
// file; `pnpm --filter @warden/server start`) or `pnpm --filter @warden/server dev` (tsx).
let env: Env;
try {
  env = loadEnv();
} catch (error) {
  console.error((error as Error).message);
  process.exit(2);
}
let server: Awaited<ReturnType<typeof startServer>>;
try {
  server = await startServer(env);
} catch (error) {
  console.error(`warden-server could not start: ${startupFailureMessage(error)}`);
  // Connections opened before the failure would keep the process alive.
  process.exit(1);
}
// The MariaDB driver under Prisma can raise a dead connection's socket error where no query
// awaits it (an uncaught 'error' or an unhandled rejection inside the driver): that must not
// end the process — the tier controller already treats MySQL as down. Anything else still does.
process.on("uncaughtException", (error, origin) => {
  if (server.strayDriverError(error)) return;
  console.error(
    origin === "unhandledRejection" ? "Unhandled rejection:" : "Uncaught exception:",
    error,
  );
  process.exit(1);
});
let stopping = false;
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    if (stopping) return;
    stopping = true;
    server.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(error);
        process.exit(1);
      },
    );
  });
}
