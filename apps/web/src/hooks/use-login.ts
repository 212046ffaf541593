"use client";

import { useMutation } from "@tanstack/react-query";
import { useSearchParams } from "next/navigation";
import { useState } from "react";
import { useTRPC } from "../trpc/react";

// Only console paths: a crafted `next` must not send the user to another site.
function safeNext(next: string | null): string {
  return next !== null && next.startsWith("/") && !next.startsWith("//") ? next : "/";
}

/** The login form: credentials, `auth.login`, then back to where the user was going. */
export function useLogin() {
  const trpc = useTRPC();
  const params = useSearchParams();
  const [username, setUsername] = useState("");
  const [password, setPassword] = useState("");
  const login = useMutation(
    trpc.auth.login.mutationOptions({
      // A full navigation, so every query starts fresh with the new session cookie.
      onSuccess: () => window.location.assign(safeNext(params.get("next"))),
    }),
  );
  return {
    username,
    password,
    setUsername,
    setPassword,
    submit: () => login.mutate({ username: username.trim(), password }),
    pending: login.isPending || login.isSuccess,
    error: login.error?.message ?? null,
  };
}
