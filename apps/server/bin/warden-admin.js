#!/usr/bin/env node
// `warden-admin`: the admin CLI (dist/cli.js, built by `pnpm --filter @warden/server build`).
import { launch } from "./launch.js";

await launch("cli.js");
