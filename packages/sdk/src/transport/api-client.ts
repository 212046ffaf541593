import type { TRPCClient } from "@trpc/client";
import type { AppRouter } from "@warden/server";

/** The typed tRPC client of the server's API (types only: nothing of the server is loaded). */
export type ApiClient = TRPCClient<AppRouter>;
