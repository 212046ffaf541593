import type { AppRouter } from "@warden/server";
import { createTRPCContext } from "@trpc/tanstack-react-query";

/**
 * The console's typed tRPC hooks: `useTRPC()` gives `queryOptions()` / `pathFilter()`
 * for every procedure, so query keys are never written by hand.
 */
export const { TRPCProvider, useTRPC, useTRPCClient } = createTRPCContext<AppRouter>();
