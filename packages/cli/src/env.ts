/** The process environment: connection settings, and what the locked command inherits. */
export function processEnv(): Readonly<Record<string, string | undefined>> {
  return process.env;
}
