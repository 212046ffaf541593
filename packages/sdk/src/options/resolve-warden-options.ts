import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import { InvalidArgumentError, validateResource } from "@warden/contract";
import { checkHolderId, checkMs } from "./check.js";
import { WARDEN_DEFAULTS, type WardenOptions } from "./warden-options.js";

/** {@link WardenOptions} validated, with defaults applied and the URL normalised. */
export interface ResolvedWardenOptions {
  /** The servers' WebSocket URLs, in the order the client tries them (at least one). */
  readonly wsUrls: readonly string[];
  readonly apiKey: string;
  readonly clientId: string;
  readonly requestTimeoutMs: number;
  readonly connectTimeoutMs: number;
  readonly reconnectBaseDelayMs: number;
  readonly reconnectMaxDelayMs: number;
  readonly pingIntervalMs: number;
  readonly pongTimeoutMs: number;
  readonly heartbeatIntervalMs: number;
  readonly safetyMarginMs: number;
  readonly resources: readonly string[];
  readonly localFallback: boolean;
  /** Whether `tryAcquire` on `resource` may be refused locally (see WardenOptions.shortCircuit). */
  readonly shortCircuitFor: (resource: string) => boolean;
  readonly onError: (error: unknown, context: string) => void;
}

const HOUR_MS = 3_600_000;
/** Most endpoints one client accepts. */
export const MAX_ENDPOINTS = 32;

function wsUrlOf(url: unknown): string {
  if (typeof url !== "string" || url.length === 0) {
    throw new InvalidArgumentError("url", "must be the server's http(s):// or ws(s):// URL");
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new InvalidArgumentError("url", `"${url}" is not a URL`);
  }
  const scheme = { "http:": "ws:", "https:": "wss:", "ws:": "ws:", "wss:": "wss:" }[
    parsed.protocol
  ];
  if (scheme === undefined) {
    throw new InvalidArgumentError("url", "must use http, https, ws or wss");
  }
  parsed.protocol = scheme;
  if (parsed.pathname === "" || parsed.pathname === "/") parsed.pathname = "/trpc";
  return parsed.toString();
}

/**
 * `url` as a list: one URL, a comma-separated string of them, or an array (1..32, no
 * duplicates). Each entry is normalised by {@link wsUrlOf}.
 */
function wsUrlsOf(url: unknown): readonly string[] {
  const entries =
    typeof url === "string"
      ? url.split(",").map((part) => part.trim())
      : Array.isArray(url)
        ? (url as unknown[])
        : null;
  if (entries === null || entries.length === 0) {
    throw new InvalidArgumentError(
      "url",
      "must be the server's http(s):// or ws(s):// URL, several of them comma-separated, or an array of them",
    );
  }
  if (entries.length > MAX_ENDPOINTS) {
    throw new InvalidArgumentError("url", `lists at most ${MAX_ENDPOINTS} servers`);
  }
  const urls = entries.map((entry) => wsUrlOf(entry));
  const seen = new Set<string>();
  for (const one of urls) {
    if (seen.has(one)) throw new InvalidArgumentError("url", `lists ${one} twice`);
    seen.add(one);
  }
  return urls;
}

function shortCircuitOf(option: WardenOptions["shortCircuit"]): (resource: string) => boolean {
  if (option === undefined || option === true) return () => true;
  if (option === false) return () => false;
  if (typeof option !== "object" || option === null || !Array.isArray(option.offFor)) {
    throw new InvalidArgumentError(
      "shortCircuit",
      "must be true, false or { offFor: [resources] }",
    );
  }
  const off = new Set(option.offFor.map((name) => validateResource(name)));
  return (resource) => !off.has(resource);
}

function defaultClientId(): string {
  return `${hostname().slice(0, 100)}-${process.pid}-${randomBytes(2).toString("hex")}`;
}

/** Validates `options` once, in the constructor; messages name the option and its unit. */
export function resolveWardenOptions(options: WardenOptions): ResolvedWardenOptions {
  if (typeof options !== "object" || options === null) {
    throw new InvalidArgumentError("options", "must be an object with url and apiKey");
  }
  if (typeof options.apiKey !== "string" || options.apiKey.trim().length === 0) {
    throw new InvalidArgumentError("apiKey", "must be the tenant's API key");
  }
  const base = checkMs("reconnectBaseDelayMs", options.reconnectBaseDelayMs, 1, 60_000);
  const max = checkMs("reconnectMaxDelayMs", options.reconnectMaxDelayMs, 1, HOUR_MS);
  const resolved: ResolvedWardenOptions = {
    wsUrls: wsUrlsOf(options.url),
    apiKey: options.apiKey,
    clientId:
      options.clientId === undefined
        ? defaultClientId()
        : checkHolderId("clientId", options.clientId),
    requestTimeoutMs:
      checkMs("requestTimeoutMs", options.requestTimeoutMs, 100, 600_000) ??
      WARDEN_DEFAULTS.requestTimeoutMs,
    connectTimeoutMs:
      checkMs("connectTimeoutMs", options.connectTimeoutMs, 0, 600_000) ??
      WARDEN_DEFAULTS.connectTimeoutMs,
    reconnectBaseDelayMs: base ?? WARDEN_DEFAULTS.reconnectBaseDelayMs,
    reconnectMaxDelayMs: max ?? WARDEN_DEFAULTS.reconnectMaxDelayMs,
    pingIntervalMs:
      checkMs("pingIntervalMs", options.pingIntervalMs, 100, HOUR_MS) ??
      WARDEN_DEFAULTS.pingIntervalMs,
    pongTimeoutMs:
      checkMs("pongTimeoutMs", options.pongTimeoutMs, 100, HOUR_MS) ??
      WARDEN_DEFAULTS.pongTimeoutMs,
    heartbeatIntervalMs:
      checkMs("heartbeatIntervalMs", options.heartbeatIntervalMs, 100, HOUR_MS) ??
      WARDEN_DEFAULTS.heartbeatIntervalMs,
    safetyMarginMs:
      checkMs("safetyMarginMs", options.safetyMarginMs, 0, 60_000) ??
      WARDEN_DEFAULTS.safetyMarginMs,
    resources: (options.resources ?? []).map((name) => validateResource(name)),
    localFallback: options.localFallback ?? WARDEN_DEFAULTS.localFallback,
    shortCircuitFor: shortCircuitOf(options.shortCircuit),
    onError: options.onError ?? (() => undefined),
  };
  if (resolved.reconnectMaxDelayMs < resolved.reconnectBaseDelayMs) {
    throw new InvalidArgumentError(
      "reconnectMaxDelayMs",
      `must be at least reconnectBaseDelayMs (${resolved.reconnectBaseDelayMs} ms)`,
    );
  }
  if (typeof resolved.localFallback !== "boolean") {
    throw new InvalidArgumentError("localFallback", "must be true or false");
  }
  if (typeof resolved.onError !== "function") {
    throw new InvalidArgumentError("onError", "must be a function");
  }
  return resolved;
}
