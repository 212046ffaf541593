import { apiUrl } from "../../../env";
import { proxyErrorBody } from "../../../lib/proxy-error";

// Every call goes to the Warden server as it happens: nothing here may be cached or prerendered.
export const dynamic = "force-dynamic";
export const runtime = "nodejs";

const REQUEST_HEADERS = [
  "accept",
  "content-type",
  "cookie",
  "origin",
  "last-event-id",
  "trpc-accept",
  "trpc-batch-mode",
  "user-agent",
  "x-forwarded-for",
  "x-forwarded-proto",
];
const RESPONSE_HEADERS = ["content-type", "cache-control", "retry-after", "vary"];

/**
 * Same-origin proxy of `/trpc/*` to the Warden server. The session cookie is
 * SameSite=Strict and httpOnly, so the browser must talk to the console's own origin;
 * the server still checks Origin on mutations (WARDEN_CONSOLE_ORIGINS lists the console).
 * A route handler rather than a rewrite: rewrites are fixed at build time, the server URL
 * is read here at request time (docs/decisions/0020).
 */
async function proxy(request: Request): Promise<Response> {
  const url = new URL(request.url);
  const rest = url.pathname.replace(/^\/trpc/, "");
  const target = `${apiUrl()}${rest}${url.search}`;
  const headers = new Headers();
  for (const name of REQUEST_HEADERS) {
    const value = request.headers.get(name);
    if (value !== null) headers.set(name, value);
  }
  headers.set("x-forwarded-host", request.headers.get("host") ?? url.host);
  let upstream: Response;
  try {
    upstream = await fetch(target, {
      method: request.method,
      headers,
      body:
        request.method === "GET" || request.method === "HEAD" ? null : await request.arrayBuffer(),
      redirect: "manual",
      cache: "no-store",
      signal: request.signal,
    });
  } catch (error) {
    const message = `Warden server unreachable at ${apiUrl()}: ${error instanceof Error ? error.message : String(error)}`;
    return new Response(proxyErrorBody(rest, url.searchParams, message), {
      status: 502,
      headers: { "content-type": "application/json", "cache-control": "no-store" },
    });
  }
  const out = new Headers();
  for (const name of RESPONSE_HEADERS) {
    const value = upstream.headers.get(name);
    if (value !== null) out.set(name, value);
  }
  for (const cookie of upstream.headers.getSetCookie()) out.append("set-cookie", cookie);
  if (out.get("content-type")?.startsWith("text/event-stream")) {
    // `no-transform` keeps Next's gzip from buffering the stream; events must flow as sent.
    out.set("cache-control", "no-cache, no-transform");
    out.set("x-accel-buffering", "no");
  }
  return new Response(upstream.body, { status: upstream.status, headers: out });
}

export { proxy as GET, proxy as POST };
