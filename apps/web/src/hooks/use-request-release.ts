"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useTRPC } from "../trpc/react";
import type { ForceReleaseTarget } from "./use-force-release";

/** Who was asked to release which key. */
export interface RequestedRelease {
  readonly businessKey: string;
  readonly clientId: string;
  readonly ownerId: string;
}

/**
 * `lock.requestRevoke` of exactly the grant the operator saw: its holder's SDK is asked to
 * release it (docs/decisions/0176-cooperative-revocation.md); the lease is untouched.
 * Then a refresh of the audit, which records the request.
 */
export function useRequestRelease(onDone: (asked: RequestedRelease) => void) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const mutation = useMutation(
    trpc.lock.requestRevoke.mutationOptions({
      onSuccess: async (result, input) => {
        await queryClient.invalidateQueries(trpc.event.pathFilter());
        onDone({ businessKey: input.businessKey, ...result.holder });
      },
    }),
  );
  return {
    requestRelease: (target: ForceReleaseTarget) =>
      mutation.mutate({
        resource: target.resource,
        businessKey: target.businessKey,
        lockId: target.lockId,
      }),
    pending: mutation.isPending,
    error: mutation.error?.message ?? null,
  };
}
