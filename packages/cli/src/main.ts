import { forceRelease, holders, tier, waiters, type Output } from "./admin-commands.js";
import { openAdminClient } from "./admin-client.js";
import { parseArgs, USAGE } from "./args.js";
import { connectionFailureCode, EXIT, exitCodeOf, isConnectionFailure } from "./exit-codes.js";
import { runLocked, type LockedProcess } from "./run-locked.js";

/** What {@link main} needs from its process (the real one in bin/warden.mjs, or a test's). */
export interface CliProcess extends LockedProcess {
  readonly io: Output;
}

/**
 * Runs one `warden` command line (`argv` without `node` and the script) and resolves with
 * its exit code; errors are printed to `io.err`, never thrown.
 */
export async function main(argv: readonly string[], proc: CliProcess): Promise<number> {
  const { io } = proc;
  let url: string | undefined;
  try {
    const { command, connection } = parseArgs(argv, proc.env);
    url = connection.url;
    switch (command.kind) {
      case "help":
        io.out(USAGE.trimEnd());
        return EXIT.ok;
      case "lock":
        return await runLocked(command, connection, proc);
      case "holders":
      case "waiters":
      case "tier":
      case "release": {
        const client = await openAdminClient(connection, {
          needsOperator: command.kind === "release",
          operatorPassword: proc.env.WARDEN_OPERATOR_PASSWORD || undefined,
        });
        try {
          if (command.kind === "holders") return await holders(client, command, io);
          if (command.kind === "waiters") return await waiters(client, command, io);
          if (command.kind === "tier") return await tier(client, command, io);
          return await forceRelease(client, command, io);
        } finally {
          await client.close();
        }
      }
    }
  } catch (error) {
    const code = exitCodeOf(error);
    const message = error instanceof Error ? error.message : String(error);
    const failure = isConnectionFailure(error) ? (connectionFailureCode(error) ?? message) : null;
    io.err(
      failure === null
        ? `warden: ${message}`
        : `warden: cannot reach the server at ${url}: ${failure}`,
    );
    if (code === EXIT.usage) io.err("(warden --help shows the usage)");
    return code;
  }
}

/** Runs `warden` as this process: real signals, stdout/stderr, and exits with the code. */
export async function runAsProcess(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): Promise<never> {
  const code = await main(argv, {
    env,
    io: {
      out: (line) => process.stdout.write(`${line}\n`),
      err: (line) => process.stderr.write(`${line}\n`),
    },
    onSignal(signal, handler) {
      process.on(signal, handler);
      return () => process.off(signal, handler);
    },
  });
  process.exit(code);
}
