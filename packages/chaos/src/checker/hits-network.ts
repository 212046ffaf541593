/** Evidence that network faults hit: the proxy acted and the servers noticed. */
import { observation } from "./fault-windows.js";
import { type Hit, type Scope, during, proxyCounted, result, degraded } from "./hit-scope.js";

/** The proxy delayed chunks and a probe round trip took at least the configured latency. */
export function netDelay(s: Scope): Hit {
  const delayed = proxyCounted(s, "delayedChunks");
  const rtt = observation(s.window, "probeRttMs") as number | undefined;
  const latency = observation(s.window, "latencyMs") as number | undefined;
  const slow = rtt !== undefined && latency !== undefined && rtt >= latency;
  return result(
    delayed.count > 0 && slow,
    `${delayed.text}; probe round trip ${rtt ?? "?"} ms for ${latency ?? "?"} ms latency`,
  );
}

/** The proxy cut connections and the fleet left Redis for MySQL. */
export function netRedisCut(s: Scope, counter: string): Hit {
  const counted = proxyCounted(s, counter);
  const tier = degraded(s);
  return result(counted.count > 0 && tier.hit, `${counted.text}; ${tier.evidence}`);
}

/** The proxy cut the database path and the ledger kept being written (Redis kept granting). */
export function netDbCut(s: Scope, counter: string): Hit {
  const counted = proxyCounted(s, counter);
  const writes = s.ledger.filter((row) => during(s, row.mono)).length;
  return result(
    counted.count > 0 && writes > 0,
    `${counted.text}; ${writes} ledger writes meanwhile`,
  );
}
