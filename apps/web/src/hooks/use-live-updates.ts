"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useSubscription } from "@trpc/tanstack-react-query";
import { useEffect, useMemo, useRef } from "react";
import { useTRPC } from "../trpc/react";

/** How the live stream is doing, for the header's indicator. */
export type LiveStatus = "live" | "connecting" | "offline";

// Bursts of events (a busy resource) refresh the affected queries at most this often.
const FLUSH_MS = 400;

/**
 * Subscribes to `live.events` (SSE) and invalidates the queries each message touches, by
 * router path, so open pages update within a second without reload. The stream carries
 * the whole fleet's events when instances share a Redis (docs/decisions/0071); polling
 * (2 s) stays as the floor, for while Redis is down and for audit rows the writer has not
 * flushed yet when the stream's message arrives.
 */
export function useLiveUpdates(): LiveStatus {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const pending = useRef(new Set<"tier" | "locks">());
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);

  const filters = useMemo(
    () => ({
      tier: [trpc.tier.pathFilter(), trpc.stats.overview.queryFilter()],
      locks: [
        trpc.holder.pathFilter(),
        trpc.keyState.pathFilter(),
        trpc.event.pathFilter(),
        trpc.stats.pathFilter(),
      ],
    }),
    [trpc],
  );

  useEffect(
    () => () => {
      if (timer.current !== null) clearTimeout(timer.current);
    },
    [],
  );

  const subscription = useSubscription(
    trpc.live.events.subscriptionOptions(
      {},
      {
        onData: (message) => {
          if (message.data.kind === "tier") {
            // The stream carries the snapshot itself: show it at once, and keep showing it
            // when calls fail (with MySQL down, session checks fail but the open stream lives).
            queryClient.setQueryData(trpc.tier.state.queryKey(), message.data.snapshot);
          }
          pending.current.add(message.data.kind === "tier" ? "tier" : "locks");
          timer.current ??= setTimeout(() => {
            timer.current = null;
            for (const group of pending.current) {
              for (const filter of filters[group]) void queryClient.invalidateQueries(filter);
            }
            pending.current.clear();
          }, FLUSH_MS);
        },
      },
    ),
  );
  if (subscription.status === "pending") return "live";
  if (subscription.status === "connecting") return "connecting";
  return "offline";
}
