"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useTRPC } from "../trpc/react";

/** What a force-release names: the key, and the grant that was on screen. */
export interface ForceReleaseTarget {
  /** What the grant is: `lock`, `permit`, or a read-write `read` / `write` grant. */
  readonly kind: string;
  readonly resource: string;
  readonly businessKey: string;
  readonly lockId: string;
  readonly fence: string | null;
  readonly clientId: string;
  readonly ownerId: string;
}

/**
 * `holder.forceRelease` of exactly the grant the operator saw (its lockId: a newer grant
 * of the same key, or another reader of it, is left alone), then a refresh of holders, the
 * per-key state and the audit.
 */
export function useForceRelease(onDone: (removed: boolean) => void) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const mutation = useMutation(
    trpc.holder.forceRelease.mutationOptions({
      onSuccess: async (result) => {
        await Promise.all([
          queryClient.invalidateQueries(trpc.holder.pathFilter()),
          queryClient.invalidateQueries(trpc.keyState.pathFilter()),
          queryClient.invalidateQueries(trpc.event.pathFilter()),
        ]);
        // A mutex's lease is `removed`; a permit or a read or write grant is in `removedGrants`.
        onDone(result.removed !== null || result.removedGrants.length > 0);
      },
    }),
  );
  return {
    forceRelease: (target: ForceReleaseTarget, reason: string) =>
      mutation.mutate({
        resource: target.resource,
        businessKey: target.businessKey,
        lockId: target.lockId,
        reason,
      }),
    pending: mutation.isPending,
    error: mutation.error?.message ?? null,
    reset: mutation.reset,
  };
}
