#!/usr/bin/env -S node --max-semi-space-size=32
// `warden-server`: the server process (dist/main.js, built by `pnpm --filter @warden/server build`).
import { launch } from "./launch.js";

await launch("main.js");
