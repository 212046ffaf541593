/**
 * `@warden/cli`: the `warden` command (bin/warden.mjs). `main` runs one command line with
 * a given environment and output, for embedding and tests. See README.md.
 */
export { main, runAsProcess, type CliProcess } from "./main.js";
export { parseArgs, USAGE, type Command, type Invocation } from "./args.js";
export { EXIT } from "./exit-codes.js";
export { FORWARDED_SIGNALS } from "./run-locked.js";
