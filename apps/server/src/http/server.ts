import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { context } from "@opentelemetry/api";
import { createHTTPHandler } from "@trpc/server/adapters/standalone";
import { applyWSSHandler } from "@trpc/server/adapters/ws";
import { WebSocketServer } from "ws";
import { createContextInner, type Services } from "../context.js";
import { appRouter } from "../routers/_app.js";
import { originAllowed } from "../auth/origin-check.js";
import { LockProtocol, wantsLockProtocol } from "../protocol/lock-protocol.js";
import { watchCaller } from "../auth/watch-caller.js";
import { limitsOf } from "../config.js";
import { coalesceWrites } from "./coalesce-writes.js";
import { readinessOf } from "./readiness.js";
import { metricsStatus, startMetricsListener, type MetricsAccess } from "./metrics-access.js";
import { requestMetaOf } from "./request-meta.js";
import { createRestApi } from "../rest/rest-api.js";
import { requestContext } from "../telemetry/tracing.js";

/** Options of {@link startHttpServer}. */
export interface HttpServerOptions {
  readonly host: string;
  /** 0 picks a free port. */
  readonly port: number;
  /** Largest request body and WebSocket message, in bytes. */
  readonly maxBodyBytes: number;
  /** Longest wait for calls in progress on shutdown, in ms. */
  readonly shutdownGraceMs: number;
}

/** A listening server. */
export interface HttpServerHandle {
  readonly server: Server;
  /** `http://host:port` */
  readonly url: string;
  /** The separate `/metrics` listener's URL (WARDEN_METRICS_LISTEN), else null. */
  readonly metricsUrl: string | null;
  /** Stops accepting, cancels waits, drains calls in progress, closes connections. */
  close(): Promise<void>;
}

/** tRPC over HTTP (console, SSE subscriptions) and WebSocket (SDK), plus plain endpoints. */
export const TRPC_PATH = "/trpc";

function send(res: ServerResponse, status: number, type: string, body: string): void {
  res.writeHead(status, { "content-type": type, "cache-control": "no-store" });
  res.end(body);
}

/**
 * Starts the HTTP server: `/trpc` (HTTP batch + SSE + WebSocket upgrade), `/metrics`,
 * `/healthz` (process up) and `/readyz` (can grant on the tier in force; see readiness.ts).
 */
export async function startHttpServer(
  services: Services,
  options: HttpServerOptions,
): Promise<HttpServerHandle> {
  let closing = false;
  // Who may read /metrics: docs in http/metrics-access.ts and the README's threat model.
  const metricsAccess: MetricsAccess = {
    token: services.config.metricsToken,
    listen: services.config.metricsListen,
    trustedProxies: limitsOf(services.config).trustedProxies,
  };
  const serveMetrics = (res: ServerResponse) =>
    void services.metrics.text().then(
      (text) => send(res, 200, services.metrics.registry.contentType, text),
      () => send(res, 500, "text/plain", "metrics failed\n"),
    );
  const trpc = createHTTPHandler({
    router: appRouter,
    basePath: `${TRPC_PATH}/`,
    maxBodySize: options.maxBodyBytes,
    createContext: ({ req, res }) => {
      const controller = new AbortController();
      res.once("close", () => controller.abort());
      return createContextInner(
        services,
        requestMetaOf(req, {
          transport: "http",
          trustedProxies: limitsOf(services.config).trustedProxies,
          signal: controller.signal,
          setCookie: (cookie) => res.appendHeader("set-cookie", cookie),
        }),
      );
    },
    onError: ({ error, path }) => {
      if (error.code === "INTERNAL_SERVER_ERROR")
        services.logger.error({ err: error.cause ?? error, path }, "procedure failed");
    },
  });

  // The HTTP/JSON lock API (/v1/…, /openapi.json; docs/decisions/0120-http-json-lock-api.md).
  const rest = createRestApi(services, {
    maxBodyBytes: options.maxBodyBytes,
    closing: () => closing,
  });

  const route = (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? "/").split("?")[0] ?? "/";
    if (rest.owns(path)) return rest.handle(req, res);
    if (path === "/healthz")
      return send(res, 200, "application/json", JSON.stringify({ status: "ok" }));
    if (path === "/readyz") {
      void readinessOf(services.locks, closing).then(({ status, body }) =>
        send(res, status, "application/json", JSON.stringify(body)),
      );
      return;
    }
    if (path === "/metrics") {
      const status = metricsStatus(req, metricsAccess);
      if (status !== 200) return send(res, status, "text/plain", "metrics are not served here\n");
      return serveMetrics(res);
    }
    if (path === TRPC_PATH || path.startsWith(`${TRPC_PATH}/`)) {
      if (closing)
        return send(res, 503, "application/json", JSON.stringify({ error: "shutting down" }));
      // Refuse a declared oversize body before reading it; tRPC caps streamed ones too.
      const declared = Number(req.headers["content-length"] ?? 0);
      if (declared > options.maxBodyBytes) {
        req.resume();
        return send(
          res,
          413,
          "application/json",
          JSON.stringify({ error: `body over ${options.maxBodyBytes} bytes` }),
        );
      }
      return trpc(req, res);
    }
    send(res, 404, "application/json", JSON.stringify({ error: "not found" }));
  };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    // The caller's W3C trace context parents the REST and tRPC calls' server spans.
    const traced = requestContext(req.headers);
    if (traced) context.with(traced, () => route(req, res));
    else route(req, res);
  });

  const wss = new WebSocketServer({ noServer: true, maxPayload: options.maxBodyBytes });
  const wsHandler = applyWSSHandler({
    wss,
    router: appRouter,
    keepAlive: { enabled: true, pingMs: 10_000, pongWaitMs: 5_000 },
    createContext: ({ req, res, info }) => {
      const controller = new AbortController();
      res.once("close", () => controller.abort());
      const params = info.connectionParams;
      const meta = requestMetaOf(req, {
        transport: "ws",
        trustedProxies: limitsOf(services.config).trustedProxies,
        signal: controller.signal,
        setCookie: null,
        connectionParams: params ?? null,
      });
      // Revoking the key or ending the session closes the socket (4401); sockets per
      // credential are capped.
      const unwatch = watchCaller(
        services,
        meta,
        "socket",
        limitsOf(services.config).maxSocketsPerCredential,
        () => res.close(4401, "credential revoked"),
      );
      res.once("close", unwatch);
      return createContextInner(services, meta);
    },
  });
  // The SDK's lock path: the batched lock protocol, same path, its own subprotocol
  // (docs/decisions/0065-batched-lock-protocol.md).
  const lockWss = new WebSocketServer({ noServer: true, maxPayload: options.maxBodyBytes });
  const lockProtocol = new LockProtocol(services, options.maxBodyBytes);
  server.on("upgrade", (req, socket, head) => {
    const path = (req.url ?? "/").split("?")[0];
    const origin = typeof req.headers.origin === "string" ? req.headers.origin : null;
    // Browsers send Origin on every WebSocket; a foreign page must not ride a session cookie.
    const foreignBrowser =
      origin !== null &&
      !originAllowed(origin, req.headers.host ?? null, services.config.consoleOrigins);
    if (closing || path !== TRPC_PATH || foreignBrowser) {
      socket.end(
        `HTTP/1.1 ${foreignBrowser ? "403 Forbidden" : "503 Service Unavailable"}\r\n\r\n`,
      );
      return;
    }
    if (wantsLockProtocol(req)) {
      lockWss.handleUpgrade(req, socket, head, (ws) => lockProtocol.accept(ws, socket, req));
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      coalesceWrites(ws, socket);
      wss.emit("connection", ws, req);
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const url = `http://${options.host.includes(":") ? `[${options.host}]` : options.host}:${address.port}`;
  const metricsListener = metricsAccess.listen
    ? await startMetricsListener({ ...metricsAccess, listen: metricsAccess.listen }, serveMetrics)
    : null;

  let closed: Promise<void> | undefined;
  return {
    server,
    url,
    metricsUrl: metricsListener?.url ?? null,
    close: () =>
      (closed ??= (async () => {
        closing = true;
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
        // Waiting acquires end now (the SDK tries another instance), and new ones are
        // refused at once; other calls finish.
        lockProtocol.beginShutdown();
        services.waiters.cancelAll();
        const drained = await services.inflight.drained(options.shutdownGraceMs);
        if (!drained)
          services.logger.warn(
            { inflight: services.inflight.size },
            "shutdown: calls still in progress",
          );
        // A call counts as done when its procedure returns; its reply is written a few
        // ticks later. Let those replies (e.g. the cancelled waits' 499) leave first.
        await new Promise((resolve) => setTimeout(resolve, 50));
        wsHandler.broadcastReconnectNotification();
        for (const client of wss.clients) client.close(1001, "server shutting down");
        // Lock-protocol sockets close once their replies have left, bounded by the grace:
        // a withdrawn wait's answer cut off by the close would reach the SDK as an unknown
        // outcome instead of a wait to place on another instance.
        await lockProtocol.closeAll(
          1001,
          "server shutting down",
          Math.max(1_000, options.shutdownGraceMs),
        );
        for (const client of lockWss.clients) client.close(1001, "server shutting down");
        wss.close();
        lockWss.close();
        // Answers just produced still need their bytes written; SSE streams never end on
        // their own, so whatever is still open after a moment is cut.
        server.closeIdleConnections();
        const cut = setTimeout(() => server.closeAllConnections(), 1_000);
        await stopped;
        clearTimeout(cut);
        if (metricsListener)
          await new Promise<void>((resolve) => metricsListener.server.close(() => resolve()));
      })()),
  };
}
