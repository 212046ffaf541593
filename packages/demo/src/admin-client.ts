import { createTRPCClient, httpLink } from "@trpc/client";
import type { AppRouter } from "@warden/server";

/**
 * A tRPC client logged in as an operator from Node: logs in over HTTP, keeps the session
 * cookie, and sends the server's own Origin so cookie-authenticated mutations pass its
 * Origin check.
 */
export async function adminClient(apiUrl: string, username: string, password: string) {
  const origin = new URL(apiUrl).origin;
  const login = await fetch(`${apiUrl}/auth.login`, {
    method: "POST",
    headers: { "content-type": "application/json", origin },
    body: JSON.stringify({ username, password }),
  });
  if (!login.ok) {
    throw new Error(
      `cannot log in as ${username} (${login.status}); on an existing database set ` +
        "WARDEN_ADMIN_USER and WARDEN_ADMIN_PASSWORD to an admin's credentials",
    );
  }
  const cookie = login.headers
    .getSetCookie()
    .map((value) => value.split(";")[0])
    .join("; ");
  return createTRPCClient<AppRouter>({
    links: [httpLink({ url: apiUrl, headers: { cookie, origin } })],
  });
}

/** The admin client's type. */
export type AdminClient = Awaited<ReturnType<typeof adminClient>>;
