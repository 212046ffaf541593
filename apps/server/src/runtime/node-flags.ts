/**
 * Node flags the server process runs with (docs/decisions/0210). `bin/warden-server.js`'s
 * shebang, the package's `start` and `dev` scripts, `deploy/systemd/warden-server.service`
 * and the demo's `start` pass them (`test/node-flags.test.ts` checks they agree with this
 * list); the bench and the chaos stack import it for the servers they start.
 *
 * A lock call allocates a few KB that die within milliseconds, while leases, waiters and the
 * audit batch live longer. With V8's default young generation (16 MB semi-spaces) the server
 * scavenged about fifteen times a second under load, copying the longer-lived objects each
 * time; 32 MB semi-spaces cut its CPU per lock cycle by about a fifth for ~30 MiB more RSS.
 * 64 MB saved no more CPU and made single scavenges (pauses) up to 30 ms long.
 */
export const SERVER_NODE_FLAGS: readonly string[] = ["--max-semi-space-size=32"];

/**
 * The flags of {@link SERVER_NODE_FLAGS} whose option a process was started without, on its
 * command line (`process.execArgv`) or in `NODE_OPTIONS`. An option given with another value
 * counts as given: that is the operator's choice.
 */
export function missingNodeFlags(execArgv: readonly string[], nodeOptions: string): string[] {
  const given = [...execArgv, ...nodeOptions.split(/\s+/)].map(optionName);
  return SERVER_NODE_FLAGS.filter((flag) => !given.includes(optionName(flag)));
}

/** `--max-semi-space-size=32` → `--max-semi-space-size`; V8 accepts `_` for `-`. */
function optionName(arg: string): string {
  return arg.split("=", 1)[0]!.replaceAll("_", "-");
}
