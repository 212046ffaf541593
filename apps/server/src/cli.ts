// `warden`, the admin CLI (bin of @warden/server; `node dist/cli.js` when built, or
// `pnpm --filter @warden/server exec tsx src/cli.ts` from a checkout). Works on the database
// only: DATABASE_URL names it. `warden-admin help` lists the commands; src/cli/run-cli.ts has them.
import { runCli } from "./cli/run-cli.js";

process.exitCode = await runCli(process.argv.slice(2), {
  out: (line) => console.log(line),
  err: (line) => console.error(line),
});
