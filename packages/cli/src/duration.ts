import { UsageError } from "./exit-codes.js";

const UNIT_MS: Readonly<Record<string, number>> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };

/**
 * Parses a duration flag into ms: `500ms`, `30s`, `1.5m`, `2h`, or a bare number of
 * seconds (as `flock -w` takes it).
 *
 * @throws UsageError - not a duration, negative, or outside `[min, max]` ms.
 */
export function parseDuration(flag: string, text: string, minMs: number, maxMs: number): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text.trim());
  if (!match) {
    throw new UsageError(`${flag}: "${text}" is not a duration (e.g. 500ms, 30s, 2m)`);
  }
  const ms = Math.round(Number(match[1]) * UNIT_MS[match[2] ?? "s"]!);
  if (ms < minMs || ms > maxMs) {
    throw new UsageError(`${flag}: ${text} is outside ${formatMs(minMs)}..${formatMs(maxMs)}`);
  }
  return ms;
}

/** `1500` → `1.5s`, `250` → `250ms`, `120000` → `2m`. */
export function formatMs(ms: number): string {
  if (ms < 1_000) return `${ms}ms`;
  if (ms < 60_000 || ms % 60_000 !== 0) return `${ms / 1_000}s`;
  return `${ms / 60_000}m`;
}
