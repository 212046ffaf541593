import { spawnSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { rename, writeFile } from "node:fs/promises";
import { join } from "node:path";

const LIB_NAME = "libfaketimeMT.so.1";

function findLibrary(): string | undefined {
  const roots = ["/usr/lib", "/usr/local/lib"];
  for (const root of roots) {
    const direct = join(root, "faketime", LIB_NAME);
    if (existsSync(direct)) return direct;
    if (!existsSync(root)) continue;
    for (const arch of readdirSync(root)) {
      const candidate = join(root, arch, "faketime", LIB_NAME);
      if (existsSync(candidate)) return candidate;
    }
  }
  return undefined;
}

/**
 * The libfaketime library (the multi-threaded build: Node runs threads), installed with
 * apt-get when missing and we are root on Debian; otherwise an error that says what to
 * install.
 */
export function libfaketimePath(): string {
  const found = findLibrary();
  if (found) return found;
  const root = typeof process.getuid === "function" && process.getuid() === 0;
  if (root && existsSync("/usr/bin/apt-get")) {
    const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
    spawnSync("apt-get", ["install", "-y", "-qq", "libfaketime"], { stdio: "ignore", env });
    const installed = findLibrary();
    if (installed) return installed;
  }
  throw new Error(
    "libfaketime is missing: install the Debian package libfaketime (apt-get install libfaketime)",
  );
}

/**
 * The wall clock of one process under libfaketime, steered through a timestamp file that
 * libfaketime re-reads every second. The monotonic clock is left alone
 * (FAKETIME_DONT_FAKE_MONOTONIC), as on a machine whose NTP steps the clock: leases judged
 * on monotonic time must not move, anything judged on `Date.now()` may.
 */
export class FaketimeClock {
  readonly file: string;

  constructor(
    dir: string,
    private readonly library: string,
  ) {
    this.file = join(dir, "faketime.rc");
  }

  /** Variables that put a process under this clock. */
  env(): Record<string, string> {
    return {
      LD_PRELOAD: this.library,
      FAKETIME_TIMESTAMP_FILE: this.file,
      FAKETIME_DONT_FAKE_MONOTONIC: "1",
      // Re-read the file every second: reading it on every clock call would be costly.
      FAKETIME_CACHE_DURATION: "1",
    };
  }

  /** Steps the clock to real time + `offsetMs` (whole seconds), visible within ~1 s. */
  async set(offsetMs: number): Promise<void> {
    const seconds = Math.round(offsetMs / 1_000);
    const temp = `${this.file}.tmp`;
    await writeFile(temp, `${seconds >= 0 ? "+" : ""}${seconds}\n`);
    await rename(temp, this.file);
  }
}
