import type { ProxyMode, ProxyStats } from "./proxy-mode.js";

/** One proxied upstream: `group` is what a fault switches at once (`redis`, `db`). */
export interface ProxyRoute {
  readonly name: string;
  readonly group: string;
  readonly host: string;
  readonly port: number;
}

/** Parent → proxy process. */
export type ProxyRequest =
  | { readonly id: number; readonly cmd: "mode"; readonly group: string; readonly mode: ProxyMode }
  | { readonly id: number; readonly cmd: "stats"; readonly group: string };

/** Proxy process → parent. */
export type ProxyReply =
  | { readonly type: "ready"; readonly ports: Readonly<Record<string, number>> }
  | { readonly type: "reply"; readonly id: number; readonly stats: ProxyStats }
  | { readonly type: "failed"; readonly id: number; readonly message: string };
