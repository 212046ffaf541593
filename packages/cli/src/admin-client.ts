import { createTRPCClient, httpLink, type TRPCClient } from "@trpc/client";
import type { AppRouter } from "@warden/server";
import type { Connection } from "./args.js";
import { CliError, EXIT } from "./exit-codes.js";

/** The server's tRPC API over plain HTTP, as the API key or an operator session. */
export interface AdminClient {
  readonly api: TRPCClient<AppRouter>;
  /** Who the calls run as, for messages. */
  readonly as: "api-key" | "operator";
  /** Ends the operator session (no-op for an API key). */
  close(): Promise<void>;
}

/** What {@link openAdminClient} needs besides the connection. */
export interface AdminOptions {
  /** Operator-only call: log in as the operator even when an API key is set. */
  readonly needsOperator: boolean;
  /** WARDEN_OPERATOR_PASSWORD. */
  readonly operatorPassword: string | undefined;
}

const SESSION_COOKIE = "warden_session";

/** `http://host:port` → `http://host:port/trpc` (a `ws(s)://…/trpc` URL is mapped back). */
export function trpcHttpUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new CliError(EXIT.usage, `WARDEN_URL / --url: "${url}" is not a URL`);
  }
  if (parsed.protocol === "ws:") parsed.protocol = "http:";
  if (parsed.protocol === "wss:") parsed.protocol = "https:";
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    throw new CliError(EXIT.usage, `WARDEN_URL / --url: "${url}" is not an http(s) URL`);
  }
  const path = parsed.pathname.replace(/\/+$/, "");
  parsed.pathname = path.endsWith("/trpc") ? path : `${path}/trpc`;
  return parsed.toString();
}

/**
 * Opens the HTTP client. Operator-only calls (`needsOperator`), and every call when no
 * API key is given, log in as `connection.operator` with `WARDEN_OPERATOR_PASSWORD`
 * (`auth.login`, the console's session cookie); mutations then carry the server's own
 * origin, as the console's same-origin requests do.
 */
export async function openAdminClient(
  connection: Connection,
  options: AdminOptions,
): Promise<AdminClient> {
  if (connection.url === undefined) {
    throw new CliError(EXIT.usage, "no server: set WARDEN_URL or pass --url");
  }
  const url = trpcHttpUrl(connection.url);
  const clientId = connection.clientId ?? `warden-cli-${process.pid}`;
  const useOperator = options.needsOperator || connection.apiKey === undefined;
  if (!useOperator) {
    const api = createTRPCClient<AppRouter>({
      links: [
        httpLink({
          url,
          headers: {
            authorization: `Bearer ${connection.apiKey}`,
            "x-warden-client-id": clientId,
          },
        }),
      ],
    });
    return { api, as: "api-key", close: async () => {} };
  }
  if (connection.operator === undefined || options.operatorPassword === undefined) {
    throw new CliError(
      options.needsOperator ? EXIT.unauthorized : EXIT.usage,
      options.needsOperator
        ? "this call needs an operator: set WARDEN_OPERATOR (or --operator) and WARDEN_OPERATOR_PASSWORD"
        : "no credentials: set WARDEN_API_KEY (or --api-key), or WARDEN_OPERATOR and WARDEN_OPERATOR_PASSWORD",
    );
  }
  const origin = new URL(url).origin;
  let session: string | null = null;
  const sessionFetch: typeof fetch = async (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set("origin", origin);
    if (session !== null) headers.set("cookie", `${SESSION_COOKIE}=${encodeURIComponent(session)}`);
    const response = await fetch(input, { ...init, headers });
    for (const cookie of response.headers.getSetCookie()) {
      const match = new RegExp(`^${SESSION_COOKIE}=([^;]*)`).exec(cookie);
      if (match) session = decodeURIComponent(match[1]!) || null;
    }
    return response;
  };
  const api = createTRPCClient<AppRouter>({
    links: [httpLink({ url, fetch: sessionFetch, headers: { "x-warden-client-id": clientId } })],
  });
  await api.auth.login.mutate({
    username: connection.operator,
    password: options.operatorPassword,
  });
  if (session === null) {
    throw new CliError(EXIT.internal, "the server accepted the login but set no session cookie");
  }
  return {
    api,
    as: "operator",
    close: async () => {
      await api.auth.logout.mutate().catch(() => undefined);
    },
  };
}
