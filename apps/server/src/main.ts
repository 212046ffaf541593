import { loadEnv, type Env } from "./env.js";
import { startServer } from "./start-server.js";

// The server process: `pnpm --filter @warden/server start` (built) or `dev` (tsx).
let env: Env;
try {
  env = loadEnv();
} catch (error) {
  console.error((error as Error).message);
  process.exit(2);
}
const server = await startServer(env);
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
