import type { AppRouter } from "@warden/server";
import { createTRPCClient, httpLink } from "@trpc/client";

/**
 * A tRPC client logged in as an operator from Node (no browser): it logs in over HTTP,
 * keeps the session cookie, and sends the server's own Origin so cookie mutations pass
 * the server's Origin check. For seeding a tenant and its API key.
 */
export async function adminClient(apiUrl: string, username: string, password: string) {
  const origin = new URL(apiUrl).origin;
  const login = await fetch(`${apiUrl}/auth.login`, {
    method: "POST",
    headers: { "content-type": "application/json", origin },
    body: JSON.stringify({ username, password }),
  });
  if (!login.ok) throw new Error(`e2e: admin login failed: ${login.status} ${await login.text()}`);
  const cookie = login.headers
    .getSetCookie()
    .map((value) => value.split(";")[0])
    .join("; ");
  return createTRPCClient<AppRouter>({
    links: [httpLink({ url: apiUrl, headers: { cookie, origin } })],
  });
}
