"use client";

import { useMutation, useQuery } from "@tanstack/react-query";
import { canOperate, type OperatorRole } from "../lib/roles";
import { useTRPC } from "../trpc/react";

/** The logged-in operator, as every page needs it. */
export interface SessionView {
  readonly loading: boolean;
  readonly username: string | null;
  readonly role: OperatorRole | null;
  /** Operators and admins act (force-release, tier override, edit); viewers only look. */
  readonly canOperate: boolean;
  readonly logout: () => void;
  readonly loggingOut: boolean;
}

/** Who is logged in (`auth.me`) and how to log out. */
export function useSession(): SessionView {
  const trpc = useTRPC();
  const me = useQuery(trpc.auth.me.queryOptions(undefined, { staleTime: 30_000 }));
  const operator = me.data?.kind === "operator" ? me.data : null;
  const logout = useMutation(
    trpc.auth.logout.mutationOptions({ onSettled: () => window.location.assign("/login") }),
  );
  return {
    loading: me.isPending,
    username: operator?.username ?? null,
    role: operator?.role ?? null,
    canOperate: canOperate(operator?.role),
    logout: () => logout.mutate(),
    loggingOut: logout.isPending,
  };
}
