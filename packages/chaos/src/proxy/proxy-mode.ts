/**
 * What a fault proxy does to the bytes it forwards:
 * - `pass`: forwards at once;
 * - `delay`: each chunk waits `latencyMs` plus up to `jitterMs`, and `spikePercent` % of
 *   chunks `spikeMs` more (how TCP shows packet loss: retransmission stalls); order kept;
 * - `blackhole`: connections stay open but nothing moves, new ones included (packets
 *   dropped, TCP retransmitting); held bytes flow again when the mode changes;
 * - `reset`: open connections and every new one are reset (RST);
 * - `refuse`: the port stops listening (connection refused), open connections are reset.
 */
export type ProxyMode =
  | { readonly kind: "pass" }
  | {
      readonly kind: "delay";
      readonly latencyMs: number;
      readonly jitterMs: number;
      readonly spikeMs?: number;
      readonly spikePercent?: number;
    }
  | { readonly kind: "blackhole" }
  | { readonly kind: "reset" }
  | { readonly kind: "refuse" };

/** Cumulative counters of one proxy (or a group of them). */
export interface ProxyStats {
  /** Connections accepted. */
  connections: number;
  /** Chunks forwarded late because of `delay`. */
  delayedChunks: number;
  /** Connections that had to stand still in `blackhole`. */
  stalledConnections: number;
  /** Connections reset by `reset` or `refuse`. */
  resets: number;
}

/** A zeroed {@link ProxyStats}. */
export function emptyStats(): ProxyStats {
  return { connections: 0, delayedChunks: 0, stalledConnections: 0, resets: 0 };
}

/** `a - b`, counter by counter. */
export function statsDelta(a: ProxyStats, b: ProxyStats): ProxyStats {
  return {
    connections: a.connections - b.connections,
    delayedChunks: a.delayedChunks - b.delayedChunks,
    stalledConnections: a.stalledConnections - b.stalledConnections,
    resets: a.resets - b.resets,
  };
}
