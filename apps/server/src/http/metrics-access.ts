import { timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** Who may read `/metrics` (from WARDEN_METRICS_TOKEN / WARDEN_METRICS_LISTEN). */
export interface MetricsAccess {
  /** A bearer token `/metrics` on the main port requires. */
  readonly token?: string | undefined;
  /** A separate listener for `/metrics` only; the main port then answers 404 there. */
  readonly listen?: { readonly host: string; readonly port: number } | undefined;
  /** Proxies forwarding others' requests: their loopback address names nobody local. */
  readonly trustedProxies?: readonly string[];
}

const LOOPBACK = new Set(["127.0.0.1", "::1", "::ffff:127.0.0.1"]);

function tokenMatches(header: string | undefined, token: string): boolean {
  const match = header === undefined ? null : /^Bearer\s+(\S+)$/i.exec(header);
  const given = Buffer.from(match?.[1] ?? "");
  const expected = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/**
 * The status `/metrics` on the main port answers before any metric is read: 200 to serve
 * them, 401 without the configured bearer token, 404 when metrics live on their own
 * listener, 403 when nothing is configured and the peer is not local (or is a trusted
 * proxy forwarding someone else's request). Metrics name every
 * tenant's resources, so they are never open to the whole network by default.
 */
export function metricsStatus(req: IncomingMessage, access: MetricsAccess): 200 | 401 | 403 | 404 {
  if (access.listen) return 404;
  if (access.token !== undefined) {
    return tokenMatches(req.headers.authorization, access.token) ? 200 : 401;
  }
  const peer = req.socket.remoteAddress ?? "";
  const plain = peer.startsWith("::ffff:") ? peer.slice(7) : peer;
  // A trusted proxy on this host forwards other people's requests (it sets the header).
  const forwarded =
    (access.trustedProxies ?? []).includes(plain) && req.headers["x-forwarded-for"] !== undefined;
  return LOOPBACK.has(peer) && !forwarded ? 200 : 403;
}

/**
 * Starts the separate `/metrics` listener (WARDEN_METRICS_LISTEN): it serves `/metrics`
 * only (with the bearer token too, when one is set) and 404 for everything else.
 */
export async function startMetricsListener(
  access: MetricsAccess & { readonly listen: { readonly host: string; readonly port: number } },
  serve: (res: ServerResponse) => void,
): Promise<{ readonly server: Server; readonly url: string }> {
  const server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0];
    if (path !== "/metrics") {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found\n");
      return;
    }
    if (access.token !== undefined && !tokenMatches(req.headers.authorization, access.token)) {
      res
        .writeHead(401, { "content-type": "text/plain", "www-authenticate": "Bearer" })
        .end("metrics need the bearer token\n");
      return;
    }
    serve(res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(access.listen.port, access.listen.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = access.listen.host.includes(":") ? `[${access.listen.host}]` : access.listen.host;
  return { server, url: `http://${host}:${port}/metrics` };
}
