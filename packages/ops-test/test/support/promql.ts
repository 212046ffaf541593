const KEYWORDS = new Set([
  "and",
  "or",
  "unless",
  "by",
  "without",
  "on",
  "ignoring",
  "group_left",
  "group_right",
  "offset",
  "bool",
  "inf",
  "nan",
]);

/**
 * The metric names a PromQL expression selects (not functions, labels, keywords, numbers
 * or Grafana variables). Enough for the expressions we ship; not a full PromQL parser.
 */
export function metricNames(expr: string): Set<string> {
  const stripped = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g, " ")
    .replace(/\{[^}]*\}/g, " ")
    .replace(/\[[^\]]*\]/g, " ")
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, " ")
    .replace(/\$\{?\w+\}?/g, " ")
    .replace(/\boffset\s+-?\d+\w*/g, " ")
    .replace(/(^|[^\w])\d+(\.\d+)?(e[+-]?\d+)?\w*/gi, "$1 ");
  const names = new Set<string>();
  for (const match of stripped.matchAll(/([a-zA-Z_:][a-zA-Z0-9_:]*)(\s*\()?/g)) {
    const [, name, call] = match;
    if (call !== undefined || KEYWORDS.has(name!.toLowerCase())) continue;
    names.add(name!);
  }
  return names;
}
