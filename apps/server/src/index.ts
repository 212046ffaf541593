/**
 * `@warden/server`: the API's router type for tRPC clients (SDK, console) and the pieces
 * that start a server in-process (tests, `pnpm start`). Input schemas are at
 * `@warden/server/schemas`.
 */
export type { AppRouter } from "./routers/_app.js";
export { startServer, type RunningServer } from "./start-server.js";
export { loadEnv, type Env } from "./env.js";
export { TRPC_PATH } from "./http/server.js";
