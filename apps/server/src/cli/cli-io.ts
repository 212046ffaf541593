/** Where the CLI reads its configuration and writes its output (a test passes its own). */
export interface CliIo {
  /** The configuration to read; the process environment when absent. */
  readonly env?: Record<string, string | undefined>;
  out(line: string): void;
  err(line: string): void;
}

/** A mistake in the command line: printed with the usage, exit code 2. */
export class UsageError extends Error {
  override readonly name = "UsageError";
}
