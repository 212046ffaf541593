import type { IncomingMessage } from "node:http";
import { clientAddress } from "../auth/client-address.js";
import { readCookie } from "../auth/cookies.js";
import { SESSION_COOKIE } from "../auth/session-auth.js";
import type { RequestMeta } from "../context.js";

function header(req: IncomingMessage, name: string): string | null {
  const value = req.headers[name];
  return typeof value === "string" && value.length > 0 ? value : null;
}

function bearer(req: IncomingMessage): string | null {
  const value = header(req, "authorization");
  const match = value === null ? null : /^Bearer\s+(\S+)$/i.exec(value);
  return match?.[1] ?? null;
}

/** What every transport reads from the HTTP request (or the WebSocket upgrade). */
export function requestMetaOf(
  req: IncomingMessage,
  extra: Pick<RequestMeta, "transport" | "signal" | "setCookie"> & {
    readonly connectionParams?: Readonly<Record<string, string | undefined>> | null;
    /** Proxies whose X-Forwarded-For names the client (WARDEN_TRUSTED_PROXIES). */
    readonly trustedProxies?: readonly string[];
  },
): RequestMeta {
  const params = extra.connectionParams ?? null;
  return {
    transport: extra.transport,
    ip: clientAddress(
      req.socket.remoteAddress ?? null,
      header(req, "x-forwarded-for") ?? undefined,
      extra.trustedProxies ?? [],
    ),
    origin: header(req, "origin"),
    host: header(req, "host"),
    userAgent: header(req, "user-agent"),
    apiKey: params?.apiKey ?? bearer(req),
    sessionToken: readCookie(req.headers.cookie, SESSION_COOKIE),
    clientId: params?.clientId ?? header(req, "x-warden-client-id"),
    signal: extra.signal,
    setCookie: extra.setCookie,
  };
}
