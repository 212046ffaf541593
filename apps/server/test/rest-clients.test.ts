import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HttpServerHandle } from "../src/http/server.js";
import {
  registerResource,
  startHarness,
  type Harness,
  type TenantHandle,
} from "./support/harness.js";
import { serveHarness } from "./support/lock-client.js";

// The README's HTTP/JSON examples as a user would run them: curl + jq in bash, and Python's
// standard library, each driving a full lock cycle against a real server (real Redis and
// MariaDB): acquire, a wait woken by a release, extend, inspect, release, a lost lease.
const run = promisify(execFile);
const script = (name: string) => fileURLToPath(new URL(`./rest/${name}`, import.meta.url));

let h: Harness;
let http: HttpServerHandle;
let tenant: TenantHandle;

beforeAll(async () => {
  h = await startHarness();
  http = await serveHarness(h);
  tenant = await h.tenant();
});
afterAll(async () => {
  await http?.close();
  await h?.close();
});

async function cycle(
  command: string,
  args: string[],
  cwd?: string,
  register: () => Promise<string> = () => registerResource(tenant),
): Promise<string> {
  const resource = await register();
  try {
    const { stdout } = await run(command, args, {
      ...(cwd ? { cwd } : {}),
      env: { ...process.env, WARDEN_URL: http.url, WARDEN_API_KEY: tenant.key, RESOURCE: resource },
      timeout: 60_000,
    });
    return stdout;
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string; message: string };
    throw new Error(
      `${command} failed: ${failed.stderr || failed.message}\n${failed.stdout ?? ""}`,
    );
  }
}

/** Every top-level JSON object in `text`, however the lines interleave. */
function jsonStream(text: string): Record<string, unknown>[] {
  const values: Record<string, unknown>[] = [];
  let depth = 0;
  let start = -1;
  let inString = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i];
    if (inString) {
      if (c === "\\") i += 1;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = depth > 0;
    else if (c === "{" && depth++ === 0) start = i;
    else if (c === "}" && depth > 0 && --depth === 0) {
      values.push(JSON.parse(text.slice(start, i + 1)) as Record<string, unknown>);
    }
  }
  return values;
}

describe("the HTTP/JSON API from non-TypeScript clients", () => {
  it("curl + jq: acquire, a wait woken by a release, extend, inspect, release, a lost lease", async () => {
    const out = await cycle("bash", [script("lock-cycle.sh")]);
    expect(out).toContain("cron-b was woken");
    expect(out).toContain("curl lock cycle: ok");
  }, 60_000);

  it("Python's standard library: the same cycle, plus a cancelled wait and typed input errors", async () => {
    const out = await cycle("python3", [script("lock_cycle.py")]);
    expect(out).toContain("worker-b was woken");
    expect(out).toContain("python lock cycle: ok");
  }, 60_000);

  it("Python's standard library: a semaphore permit cycle (docs/decisions/0162)", async () => {
    const semaphore = () => registerResource(tenant, { kind: "semaphore", permits: 2 });
    const out = await cycle("python3", [script("semaphore_cycle.py")], undefined, semaphore);
    expect(out).toContain("worker-c was woken");
    expect(out).toContain("python semaphore cycle: ok");
  }, 60_000);

  it("the README's curl cycle, as printed there", async () => {
    const readme = await readFile(new URL("../README.md", import.meta.url), "utf8");
    const section = readme.slice(readme.indexOf("## HTTP/JSON API"));
    const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1];
    expect(block).toContain("W=http://127.0.0.1:4000; R=order.settle\n");
    const script = block!.replace(
      "W=http://127.0.0.1:4000; R=order.settle\n",
      'W="$WARDEN_URL"; R="$RESOURCE"\n',
    );
    const dir = await mkdtemp(join(tmpdir(), "warden-readme-"));
    try {
      const out = await cycle("bash", ["-euo", "pipefail", "-c", script], dir);
      // The waiter's reply may land on the same line as a foreground one: read a JSON stream.
      const replies = jsonStream(out);
      // acquire, waiters, extend, inspect, release, the woken acquire, NOT_HOLDER, cancel
      expect(replies.filter((r) => r["granted"] === true)).toHaveLength(2);
      expect(replies.some((r) => r["released"] === true)).toBe(true);
      expect(replies).toContainEqual(
        expect.objectContaining({
          error: expect.objectContaining({
            code: "NOT_HOLDER",
            details: expect.objectContaining({ reason: "other-holder" }) as unknown,
          }) as unknown,
        }),
      );
      expect(replies).toContainEqual(expect.objectContaining({ cancelled: false }));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it("the README's read-write lock cycle, as printed there", async () => {
    const readme = await readFile(new URL("../README.md", import.meta.url), "utf8");
    const section = readme.slice(readme.indexOf("## HTTP/JSON API"));
    const blocks = [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1]!);
    // The read-write block uses the lock block's `w` helper.
    const helper = /^w\(\) \{.*$/m.exec(blocks[0]!)?.[0];
    const block = blocks.find((text) => text.includes("/v1/rwlocks/"));
    expect(helper).toBeDefined();
    expect(block).toContain("RW=$W/v1/rwlocks/ledger.balance\n");
    const script = `W="$WARDEN_URL"\n${helper!}\n${block!.replace(
      "RW=$W/v1/rwlocks/ledger.balance\n",
      'RW="$W/v1/rwlocks/$RESOURCE"\n',
    )}`;
    const rwlock = () => registerResource(tenant, { kind: "rwlock" });
    const dir = await mkdtemp(join(tmpdir(), "warden-readme-rw-"));
    try {
      const out = await cycle("bash", ["-euo", "pipefail", "-c", script], dir, rwlock);
      const replies = jsonStream(out);
      const reads = replies.filter((r) => r["granted"] === true && r["mode"] === "read");
      expect(reads).toHaveLength(2);
      expect(reads[0]!["fence"]).toBe(reads[1]!["fence"]);
      expect(replies).toContainEqual(
        expect.objectContaining({ granted: false, reason: "read-held" }),
      );
      expect(replies).toContainEqual(expect.objectContaining({ waitingWriters: 1 }));
      expect(replies.filter((r) => r["released"] === true)).toHaveLength(2);
      const write = replies.find((r) => r["granted"] === true && r["mode"] === "write");
      expect(BigInt(write!["fence"] as string)).toBeGreaterThan(
        BigInt(reads[0]!["fence"] as string),
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
