import type { IncomingMessage, ServerResponse } from "node:http";
import {
  InvalidArgumentError,
  UnauthorizedError,
  toWire,
  type ErrorCode,
  type WireError,
} from "@warden/contract";
import type { Services } from "../context.js";
import { limitsOf } from "../config.js";
import { QuotaExceededError } from "../errors/quota-exceeded-error.js";
import { requestMetaOf } from "../http/request-meta.js";
import type { TenantPrincipal } from "../auth/principal.js";
import { openApiText } from "./openapi.js";
import { ROUTES, type Route } from "./routes.js";
import type { RestOnlyCode } from "./schemas.js";
import { HTTP_STATUS } from "./status.js";

/** Paths the HTTP/JSON lock API answers: `/v1/…` and `/openapi.json`. */
export const OPENAPI_PATH = "/openapi.json";
const PREFIX = "/v1/";

/** An error this API answers itself (not one of the use cases'). */
class RestFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode | RestOnlyCode,
    message: string,
    readonly details: Readonly<Record<string, unknown>> = {},
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
  }
}

interface Match {
  readonly route: Route;
  readonly params: Record<string, string>;
}

const TEMPLATES = ROUTES.map((route) => ({ route, parts: route.path.split("/") }));

function matchRoute(method: string, path: string): Match {
  const parts = path.split("/");
  let pathMatched: Route[] = [];
  for (const { route, parts: template } of TEMPLATES) {
    if (template.length !== parts.length) continue;
    const params: Record<string, string> = {};
    let ok = true;
    for (let i = 0; i < parts.length && ok; i += 1) {
      const want = template[i]!;
      const got = parts[i]!;
      if (want.startsWith("{")) {
        let value: string;
        try {
          value = decodeURIComponent(got);
        } catch {
          throw new RestFailure(400, "INVALID_ARGUMENT", "path: is not valid percent-encoding", {
            field: "path",
            reason: "is not valid percent-encoding",
          });
        }
        params[want.slice(1, -1)] = value;
      } else ok = want === got;
    }
    if (!ok) continue;
    if (route.method === method) return { route, params };
    pathMatched = [...pathMatched, route];
  }
  if (pathMatched.length > 0) {
    const allow = pathMatched.map((route) => route.method).join(", ");
    throw new RestFailure(405, "METHOD_NOT_ALLOWED", `use ${allow} on this path`, {}, { allow });
  }
  throw new RestFailure(404, "NOT_FOUND", `no such path: ${path} (see ${OPENAPI_PATH})`);
}

/** The request body as text, refused past `maxBytes` (before it is authenticated). */
function readBody(req: IncomingMessage, maxBytes: number): Promise<string> {
  const tooLarge = () =>
    new RestFailure(413, "INVALID_ARGUMENT", `body: must be at most ${maxBytes} bytes`, {
      field: "body",
      reason: `must be at most ${maxBytes} bytes`,
    });
  if (Number(req.headers["content-length"] ?? 0) > maxBytes) {
    req.resume();
    return Promise.reject(tooLarge());
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) over = true;
      else chunks.push(chunk);
    });
    req.on("error", reject);
    req.on("end", () =>
      over ? reject(tooLarge()) : resolve(Buffer.concat(chunks).toString("utf8")),
    );
  });
}

/** A JSON object body; an empty body is `{}`. */
function parseBody(text: string): unknown {
  if (text.trim() === "") return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new InvalidArgumentError("body", "is not JSON");
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw new InvalidArgumentError("body", "must be a JSON object");
  }
  return parsed;
}

function write(
  res: ServerResponse,
  status: number,
  body: string,
  headers: Readonly<Record<string, string>> = {},
): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "cache-control": "no-store",
    ...headers,
  });
  res.end(body);
}

/** Options of {@link createRestApi}. */
export interface RestApiOptions {
  readonly maxBodyBytes: number;
  /** True once the server is shutting down: new calls answer 503. */
  readonly closing: () => boolean;
}

/** The HTTP/JSON lock API; `handle` answers one request under `/v1/` or `/openapi.json`. */
export interface RestApi {
  /** Whether `path` (without the query) belongs to this API. */
  owns(path: string): boolean;
  handle(req: IncomingMessage, res: ServerResponse): void;
}

/**
 * Builds the HTTP/JSON lock API over `services.lockUseCases` (and the semaphore and
 * read-write lock use cases) — the seam the tRPC router and the batched protocol call, so
 * policy, metrics, logs and audit are the same code —
 * with the same credentials (`Authorization: Bearer <API key>`, `x-warden-client-id`),
 * the same per-tenant quota, and the contract's typed errors as
 * `{ error: { code, message, details } }` with an HTTP status per code
 * (docs/decisions/0120-http-json-lock-api.md).
 */
export function createRestApi(services: Services, options: RestApiOptions): RestApi {
  const trustedProxies = limitsOf(services.config).trustedProxies;

  function fail(res: ServerResponse, error: unknown, route: Route | null): void {
    if (error instanceof RestFailure) {
      const body = { error: { code: error.code, message: error.message, details: error.details } };
      return write(res, error.status, JSON.stringify(body), error.headers);
    }
    const wire: WireError | null = toWire(error);
    if (wire === null) {
      services.logger.error({ err: error, path: route?.path ?? null }, "procedure failed");
      const body = {
        error: {
          code: "INTERNAL",
          message: "internal error; the server logged the details",
          details: {},
        },
      };
      return write(res, 500, JSON.stringify(body));
    }
    // A wait ended by a shutdown (services.waiters.cancelAll: lock, permit and read-write
    // waits alike) is for another instance to serve: 503, not 409.
    const status =
      wire.code === "WAIT_CANCELLED" && options.closing() ? 503 : HTTP_STATUS[wire.code];
    const retryAfterMs = (wire.details as Readonly<Record<string, unknown>>)["retryAfterMs"];
    const headers: Record<string, string> =
      typeof retryAfterMs === "number" && retryAfterMs >= 0
        ? { "retry-after": String(Math.max(1, Math.ceil(retryAfterMs / 1000))) }
        : {};
    write(
      res,
      status,
      JSON.stringify({ error: { code: wire.code, message: wire.message, details: wire.details } }),
      headers,
    );
  }

  async function authenticate(req: IncomingMessage, signal: AbortSignal) {
    const meta = requestMetaOf(req, {
      transport: "http",
      trustedProxies,
      signal,
      setCookie: null,
    });
    // API keys only: no session cookie is read, so a browser page cannot ride one (no CSRF).
    const header = req.headers.authorization;
    if (meta.apiKey === null) {
      throw new UnauthorizedError(
        header === undefined
          ? "send an API key: Authorization: Bearer <key>"
          : "the Authorization header must be: Bearer <key>",
      );
    }
    const principal: TenantPrincipal | null = await services.apiKeys.resolve(meta.apiKey, meta.ip);
    if (!principal) throw new UnauthorizedError("unknown or revoked API key");
    const rate = principal.requestsPerSecond;
    const waitMs = services.limiter.take(`tenant:${principal.tenantId}`, rate, rate);
    if (waitMs > 0) {
      services.metrics.quotaRefusals.inc({ tenant: principal.tenantId });
      throw new QuotaExceededError(
        waitMs,
        `tenant ${principal.tenantId} is over its request-rate quota; nothing was done — retry in ${waitMs} ms`,
      );
    }
    return { principal, clientId: meta.clientId };
  }

  async function serve(req: IncomingMessage, res: ServerResponse, path: string, search: string) {
    let route: Route | null = null;
    const end = services.inflight.begin();
    const controller = new AbortController();
    res.once("close", () => {
      if (!res.writableFinished) controller.abort();
    });
    try {
      if (options.closing()) {
        throw new RestFailure(
          503,
          "LOCK_UNAVAILABLE",
          "this instance is shutting down; call another",
          { retryAfterMs: null, reason: "shutting-down" },
        );
      }
      const match = matchRoute(req.method ?? "GET", path);
      route = match.route;
      const text = route.body ? await readBody(req, options.maxBodyBytes) : null;
      if (!route.body) req.resume();
      const caller = await authenticate(req, controller.signal);
      const body = text === null ? undefined : parseBody(text);
      const query = new URLSearchParams(search);
      for (const name of new Set(query.keys())) {
        if (!route.query.some((param) => param.name === name)) {
          throw new InvalidArgumentError(name, "is not a parameter of this request");
        }
        if (query.getAll(name).length > 1)
          throw new InvalidArgumentError(name, "must be given once");
      }
      const result = await route.run({
        services,
        caller,
        params: match.params,
        query,
        body,
        signal: controller.signal,
      });
      write(res, 200, JSON.stringify(result));
    } catch (error) {
      if (!req.readableEnded) req.resume();
      fail(res, error, route);
    } finally {
      end();
    }
  }

  return {
    owns: (path) => path === OPENAPI_PATH || path.startsWith(PREFIX),
    handle(req, res) {
      const url = req.url ?? "/";
      const at = url.indexOf("?");
      const path = at < 0 ? url : url.slice(0, at);
      const search = at < 0 ? "" : url.slice(at + 1);
      if (path === OPENAPI_PATH) {
        req.resume();
        if (req.method !== "GET" && req.method !== "HEAD") {
          return fail(
            res,
            new RestFailure(
              405,
              "METHOD_NOT_ALLOWED",
              "use GET on this path",
              {},
              { allow: "GET" },
            ),
            null,
          );
        }
        res.writeHead(200, { "content-type": "application/json; charset=utf-8" });
        res.end(req.method === "HEAD" ? undefined : openApiText());
        return;
      }
      void serve(req, res, path, search);
    },
  };
}
