import type { AppRouter } from "@warden/server";
import { createTRPCClient, httpBatchLink, httpSubscriptionLink, splitLink } from "@trpc/client";

/**
 * Path of the API as the browser sees it: the console's own origin, proxied to the server
 * by `src/app/trpc/[...path]/route.ts`, so the SameSite=Strict session cookie is first-party.
 */
export const TRPC_URL = "/trpc";

/** A tRPC client for the browser: batched HTTP for calls, SSE for the live subscription. */
export function createBrowserClient() {
  return createTRPCClient<AppRouter>({
    links: [
      splitLink({
        condition: (op) => op.type === "subscription",
        true: httpSubscriptionLink({ url: TRPC_URL }),
        false: httpBatchLink({ url: TRPC_URL, maxURLLength: 4_000 }),
      }),
    ],
  });
}
