"use client";

import { QueryCache, QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { useState, type ReactNode } from "react";
import { isRetryable, isUnauthorized } from "../lib/trpc-error";
import { createBrowserClient } from "./client";
import { TRPCProvider } from "./react";

// A lost session anywhere sends the user to the login page once, back here afterwards.
function redirectToLogin(): void {
  const { pathname, search } = window.location;
  if (pathname.startsWith("/login")) return;
  window.location.assign(`/login?next=${encodeURIComponent(pathname + search)}`);
}

function makeQueryClient(): QueryClient {
  return new QueryClient({
    queryCache: new QueryCache({
      onError: (error) => {
        if (isUnauthorized(error)) redirectToLogin();
      },
    }),
    defaultOptions: {
      queries: {
        // Live views poll or are invalidated by the subscription; a short staleTime keeps
        // navigation instant without showing old holders.
        staleTime: 1_000,
        retry: (failures, error) => isRetryable(error) && failures < 2,
        refetchOnWindowFocus: true,
      },
    },
  });
}

/** React Query and tRPC for every page; one client per browser tab. */
export function Providers({ children }: { readonly children: ReactNode }) {
  const [queryClient] = useState(makeQueryClient);
  const [trpcClient] = useState(createBrowserClient);
  return (
    <QueryClientProvider client={queryClient}>
      <TRPCProvider trpcClient={trpcClient} queryClient={queryClient}>
        {children}
      </TRPCProvider>
    </QueryClientProvider>
  );
}
