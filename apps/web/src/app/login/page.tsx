"use client";

import { Suspense } from "react";
import { LoginForm } from "../../components/login-form";
import { PublicTier } from "../../components/public-tier";
import { useLogin } from "../../hooks/use-login";
import { usePublicTier } from "../../hooks/use-public-tier";

function Login() {
  const tier = usePublicTier();
  return (
    <LoginForm {...useLogin()}>
      <PublicTier tier={tier.data?.tier ?? null} reachable={tier.data?.reachable ?? true} />
    </LoginForm>
  );
}

/** Operator login. */
export default function LoginPage() {
  return (
    <main className="login">
      <Suspense>
        <Login />
      </Suspense>
    </main>
  );
}
