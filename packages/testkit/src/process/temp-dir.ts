import { mkdirSync, rmSync } from "node:fs";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { registry } from "./registry.js";

/** Root of everything the testkit writes: server directories and the pid registry. */
export const TESTKIT_TMP_ROOT = join(tmpdir(), "warden-testkit");

/** Creates a fresh directory `<root>/<prefix>-XXXXXX`, removed by stop or at exit. */
export async function makeTempDir(prefix: string): Promise<string> {
  await mkdir(TESTKIT_TMP_ROOT, { recursive: true });
  const dir = await mkdtemp(join(TESTKIT_TMP_ROOT, `${prefix}-`));
  registry().tempDirs.add(dir);
  return dir;
}

/** Removes a directory made by {@link makeTempDir}; missing is fine. */
export async function removeTempDir(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
  registry().tempDirs.delete(dir);
}

/** Synchronous {@link removeTempDir} for exit hooks, where nothing async runs. */
export function removeTempDirSync(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
  registry().tempDirs.delete(dir);
}

/** Creates `<root>/<name>` if needed and returns it. */
export function ensureTestkitDir(name: string): string {
  const dir = join(TESTKIT_TMP_ROOT, name);
  mkdirSync(dir, { recursive: true });
  return dir;
}
