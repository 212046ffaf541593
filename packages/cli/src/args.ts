import { parseDuration } from "./duration.js";
import { UsageError } from "./exit-codes.js";

/** Where and as whom to connect; flags override the environment. */
export interface Connection {
  readonly url: string | undefined;
  readonly apiKey: string | undefined;
  readonly clientId: string | undefined;
  /** Operator login for operator-only calls (password from the environment only). */
  readonly operator: string | undefined;
}

/** `warden lock <resource> <key> [flags] -- <command…>` */
export interface LockCommand {
  readonly kind: "lock";
  readonly resource: string;
  readonly businessKey: string;
  readonly command: readonly string[];
  /** 0 = try once. */
  readonly waitMs: number;
  /** Undefined = the resource's default lease. */
  readonly leaseMs: number | undefined;
  /** After a lost lease: how long the command has between SIGTERM and SIGKILL. */
  readonly killAfterMs: number;
  /** Exit code when the lock is not acquired (default 75). */
  readonly conflictExitCode: number | undefined;
}

export interface HoldersCommand {
  readonly kind: "holders";
  readonly resource: string;
  readonly businessKey: string | undefined;
  readonly json: boolean;
}

export interface WaitersCommand {
  readonly kind: "waiters";
  readonly resource: string;
  readonly businessKey: string | undefined;
  readonly json: boolean;
}

export interface ReleaseCommand {
  readonly kind: "release";
  readonly resource: string;
  readonly businessKey: string;
  readonly reason: string;
  readonly lockId: string | undefined;
  readonly json: boolean;
}

export interface TierCommand {
  readonly kind: "tier";
  readonly json: boolean;
}

export interface HelpCommand {
  readonly kind: "help";
}

export type Command =
  | LockCommand
  | HoldersCommand
  | WaitersCommand
  | ReleaseCommand
  | TierCommand
  | HelpCommand;

/** A parsed command line. */
export interface Invocation {
  readonly command: Command;
  readonly connection: Connection;
}

/** Longest server-side wait the API takes (lock.acquire's waitMs). */
export const MAX_WAIT_MS = 300_000;
const MAX_LEASE_MS = 60_000;

const VALUE_FLAGS = new Set([
  "--url",
  "--api-key",
  "--client-id",
  "--operator",
  "--wait",
  "--lease",
  "--kill-after",
  "--conflict-exit-code",
  "--reason",
  "--lock-id",
]);
const BOOLEAN_FLAGS = new Set(["--json", "--force", "--help"]);

/** What the command line names, before each command checks what it needs. */
interface Raw {
  readonly flags: Map<string, string | true>;
  readonly positionals: string[];
  /** Everything after `--`, or after the lock command's two positionals. */
  readonly rest: string[];
}

function lex(argv: readonly string[], positionalsBeforeRest: number): Raw {
  const flags = new Map<string, string | true>();
  const positionals: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--") return { flags, positionals, rest: argv.slice(i + 1) };
    if (positionals.length >= positionalsBeforeRest && !arg.startsWith("-")) {
      return { flags, positionals, rest: argv.slice(i) };
    }
    if (arg === "-h") {
      flags.set("--help", true);
      continue;
    }
    if (arg.startsWith("--")) {
      const eq = arg.indexOf("=");
      const name = eq < 0 ? arg : arg.slice(0, eq);
      if (BOOLEAN_FLAGS.has(name)) {
        if (eq >= 0) throw new UsageError(`${name} takes no value`);
        flags.set(name, true);
        continue;
      }
      if (!VALUE_FLAGS.has(name)) throw new UsageError(`unknown flag ${name}`);
      const value = eq >= 0 ? arg.slice(eq + 1) : argv[++i];
      if (value === undefined) throw new UsageError(`${name} needs a value`);
      flags.set(name, value);
      continue;
    }
    if (arg.startsWith("-") && arg !== "-") throw new UsageError(`unknown flag ${arg}`);
    positionals.push(arg);
  }
  return { flags, positionals, rest: [] };
}

function only(raw: Raw, command: string, allowed: readonly string[]): void {
  for (const name of raw.flags.keys()) {
    if (!allowed.includes(name) && !CONNECTION_FLAGS.includes(name)) {
      throw new UsageError(`warden ${command} does not take ${name}`);
    }
  }
}

const CONNECTION_FLAGS = ["--url", "--api-key", "--client-id", "--operator", "--help"];

function text(raw: Raw, name: string): string | undefined {
  const value = raw.flags.get(name);
  return typeof value === "string" ? value : undefined;
}

function positionals(raw: Raw, command: string, names: string[], optional = 0): string[] {
  const min = names.length - optional;
  if (raw.positionals.length < min || raw.positionals.length > names.length) {
    throw new UsageError(
      `warden ${command} takes ${names.map((n, i) => (i >= min ? `[${n}]` : `<${n}>`)).join(" ")}`,
    );
  }
  return raw.positionals;
}

/**
 * Parses `argv` (without `node` and the script). Connection settings come from flags,
 * else from `env` (`WARDEN_URL`, `WARDEN_API_KEY`, `WARDEN_CLIENT_ID`, `WARDEN_OPERATOR`).
 *
 * @throws UsageError - the command line cannot be run.
 */
export function parseArgs(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): Invocation {
  const [name, ...tail] = argv;
  const noConnection: Connection = {
    url: undefined,
    apiKey: undefined,
    clientId: undefined,
    operator: undefined,
  };
  if (name === undefined || name === "help" || name === "--help" || name === "-h") {
    return { command: { kind: "help" }, connection: noConnection };
  }
  const raw = lex(tail, name === "lock" ? 2 : Number.POSITIVE_INFINITY);
  const connection: Connection = {
    url: text(raw, "--url") ?? nonEmpty(env.WARDEN_URL),
    apiKey: text(raw, "--api-key") ?? nonEmpty(env.WARDEN_API_KEY),
    clientId: text(raw, "--client-id") ?? nonEmpty(env.WARDEN_CLIENT_ID),
    operator: text(raw, "--operator") ?? nonEmpty(env.WARDEN_OPERATOR),
  };
  if (raw.flags.has("--help")) return { command: { kind: "help" }, connection };
  const json = raw.flags.has("--json");
  switch (name) {
    case "lock": {
      only(raw, "lock", ["--wait", "--lease", "--kill-after", "--conflict-exit-code"]);
      const [resource, businessKey] = positionals(raw, "lock", ["resource", "key"]);
      if (raw.rest.length === 0) {
        throw new UsageError(
          "warden lock needs a command to run: warden lock <resource> <key> -- <command…>",
        );
      }
      const lease = text(raw, "--lease");
      const conflict = text(raw, "--conflict-exit-code");
      return {
        connection,
        command: {
          kind: "lock",
          resource: resource!,
          businessKey: businessKey!,
          command: raw.rest,
          waitMs: parseDuration("--wait", text(raw, "--wait") ?? "0", 0, MAX_WAIT_MS),
          leaseMs:
            lease === undefined ? undefined : parseDuration("--lease", lease, 1, MAX_LEASE_MS),
          killAfterMs: parseDuration(
            "--kill-after",
            text(raw, "--kill-after") ?? "5s",
            0,
            3_600_000,
          ),
          conflictExitCode: conflict === undefined ? undefined : exitCode(conflict),
        },
      };
    }
    case "holders":
    case "waiters": {
      only(raw, name, ["--json"]);
      const [resource, businessKey] = positionals(raw, name, ["resource", "key"], 1);
      return { connection, command: { kind: name, resource: resource!, businessKey, json } };
    }
    case "release": {
      only(raw, "release", ["--force", "--reason", "--lock-id", "--json"]);
      const [resource, businessKey] = positionals(raw, "release", ["resource", "key"]);
      if (!raw.flags.has("--force")) {
        throw new UsageError(
          "warden release removes someone else's lease: say --force (and --reason <why>)",
        );
      }
      const reason = text(raw, "--reason");
      if (reason === undefined || reason.trim().length < 3) {
        throw new UsageError(
          "warden release --force needs --reason <why> (3+ characters, audited)",
        );
      }
      return {
        connection,
        command: {
          kind: "release",
          resource: resource!,
          businessKey: businessKey!,
          reason,
          lockId: text(raw, "--lock-id"),
          json,
        },
      };
    }
    case "tier": {
      only(raw, "tier", ["--json"]);
      positionals(raw, "tier", []);
      return { connection, command: { kind: "tier", json } };
    }
    default:
      throw new UsageError(`unknown command ${name} (try warden --help)`);
  }
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === "" ? undefined : value;
}

function exitCode(text: string): number {
  const code = Number(text);
  if (!/^\d{1,3}$/.test(text) || code > 255) {
    throw new UsageError(`--conflict-exit-code: "${text}" is not an exit code (0..255)`);
  }
  return code;
}

/** `warden --help`. */
export const USAGE = `warden: run a command while holding a Warden lock, and look at locks from a shell

usage:
  warden lock <resource> <key> [--wait 0] [--lease <default>] [--kill-after 5s] -- <command…>
  warden holders <resource> [<key>] [--json]
  warden waiters <resource> [<key>] [--json]
  warden release --force --reason <why> [--lock-id <id>] <resource> <key> [--json]
  warden tier [--json]

connection (flags override the environment):
  --url <url>          WARDEN_URL        the server, e.g. http://warden:4000
  --api-key <key>      WARDEN_API_KEY    the tenant's API key (lock, holders, waiters, tier)
  --client-id <id>     WARDEN_CLIENT_ID  names this client in holders and the audit trail
  --operator <name>    WARDEN_OPERATOR   operator login for release --force (and, when no
                                         API key is set, the other calls); password in
                                         WARDEN_OPERATOR_PASSWORD

lock:
  runs <command> with WARDEN_FENCE, WARDEN_LOCK_ID, WARDEN_RESOURCE, WARDEN_KEY and WARDEN_TIER
  set, renews the lease while it runs, forwards SIGINT/SIGTERM/SIGHUP/SIGQUIT to it, stops it
  (SIGTERM, then SIGKILL after --kill-after) if the lease is lost, releases when it exits.
  --wait <duration>    how long to wait for the lock (0 = try once; at most 5m)
  --lease <duration>   lease length (default: the resource's defaultLeaseMs; at most 60s)
  --conflict-exit-code <n>  exit code when the lock is not acquired (default 75)
  durations: 500ms, 30s, 2m, or a number of seconds

exit codes: the command's own status (128+n if it died of signal n), else
  64 usage  65 refused input (unknown resource…)  69 server unreachable / no tier can grant
  70 internal or unknown outcome  75 not acquired  76 lease lost (command stopped)
  77 unauthorized  126 command not executable  127 command not found
`;
