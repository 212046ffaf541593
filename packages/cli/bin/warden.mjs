#!/usr/bin/env node
// `warden`: runs the CLI from its TypeScript source through tsx's loader, in this process
// (no extra child: signals and the exit code are warden's own).
import { register } from "tsx/esm/api";

register();
await import("../src/cli.ts");
