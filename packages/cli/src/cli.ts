import { processEnv } from "./env.js";
import { runAsProcess } from "./main.js";

await runAsProcess(process.argv.slice(2), processEnv());
