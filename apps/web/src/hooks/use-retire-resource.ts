"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useTRPC } from "../trpc/react";

/** `resource.retire`, refreshing every resource query after it. */
export function useRetireResource(onDone: () => void) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const retire = useMutation(
    trpc.resource.retire.mutationOptions({
      onSuccess: async () => {
        await queryClient.invalidateQueries(trpc.resource.pathFilter());
        onDone();
      },
    }),
  );
  return {
    retire: (name: string) => retire.mutate({ name }),
    pending: retire.isPending,
    error: retire.error?.message ?? null,
    reset: retire.reset,
  };
}
