/**
 * The console's configuration, read on the Next server at request time (never inlined
 * into the browser bundle), so one build runs against any Warden server.
 */

/** Default tRPC endpoint of a local Warden server. */
export const DEFAULT_API_URL = "http://127.0.0.1:4000/trpc";

/**
 * The Warden server's tRPC endpoint that `/trpc/*` is proxied to: `WARDEN_API_URL`, else
 * `NEXT_PUBLIC_WARDEN_API_URL`, else {@link DEFAULT_API_URL}. A trailing slash is dropped.
 */
export function apiUrl(): string {
  const configured =
    process.env.WARDEN_API_URL ?? process.env.NEXT_PUBLIC_WARDEN_API_URL ?? DEFAULT_API_URL;
  return configured.replace(/\/+$/, "");
}
