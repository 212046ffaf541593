import { execSync } from "node:child_process";
import type { E2eStack } from "./stack.js";

function required(name: string): string {
  const value = process.env[name];
  if (value === undefined || value === "")
    throw new Error(`e2e: set ${name} (see apps/web/e2e/README.md)`);
  return value;
}

function hook(name: string): () => Promise<void> {
  return async () => {
    execSync(required(name), { stdio: "inherit", shell: "/bin/bash" });
  };
}

/**
 * A stack started elsewhere (e.g. by `pnpm start` or CI), described by the environment:
 * WARDEN_WEB_URL, WARDEN_API_URL, WARDEN_E2E_USER, WARDEN_E2E_PASSWORD, WARDEN_E2E_TENANT,
 * WARDEN_E2E_API_KEY, and shell commands WARDEN_E2E_STOP_REDIS, WARDEN_E2E_START_REDIS,
 * WARDEN_E2E_STOP_MARIADB, WARDEN_E2E_START_MARIADB. Null when WARDEN_WEB_URL is unset.
 */
export function externalStackFromEnv(): E2eStack | null {
  const webUrl = process.env.WARDEN_WEB_URL;
  if (webUrl === undefined || webUrl === "") return null;
  return {
    webUrl: webUrl.replace(/\/+$/, ""),
    apiUrl: required("WARDEN_API_URL").replace(/\/+$/, ""),
    operator: { username: required("WARDEN_E2E_USER"), password: required("WARDEN_E2E_PASSWORD") },
    tenant: { id: required("WARDEN_E2E_TENANT"), apiKey: required("WARDEN_E2E_API_KEY") },
    stopRedis: hook("WARDEN_E2E_STOP_REDIS"),
    startRedis: hook("WARDEN_E2E_START_REDIS"),
    stopMariaDb: hook("WARDEN_E2E_STOP_MARIADB"),
    startMariaDb: hook("WARDEN_E2E_START_MARIADB"),
    close: async () => {},
  };
}
