"use client";

import { Suspense } from "react";
import { LoginForm } from "../../components/login-form";
import { useLogin } from "../../hooks/use-login";

function Login() {
  return <LoginForm {...useLogin()} />;
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
