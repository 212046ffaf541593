// Three server instances on one Redis and one database, the third a separate process that
// the test kills with SIGKILL (no drain, no release, no goodbye): an SDK client connected
// to it keeps its lock, renewed through another instance, and its next wait queues there.
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadEnv, startServer, type RunningServer } from "@warden/server";
import { freePort } from "@warden/testkit";
import { afterAll, beforeAll, expect, test } from "vitest";
import { OutcomeUnknownError, type Warden } from "../src/index.js";
import { startStack, uid, type Stack } from "./support/stack.js";
import { delay, until } from "./support/until.js";

const REPO_ROOT = fileURLToPath(new URL("../../../", import.meta.url));

let stack: Stack;
let second: RunningServer;
let spool: string;

beforeAll(async () => {
  stack = await startStack();
  spool = await mkdtemp(join(tmpdir(), "warden-sdk-kill-"));
  second = await startServer(
    loadEnv({
      DATABASE_URL: stack.db.url,
      REDIS_URL: stack.redis.url,
      WARDEN_HOST: "127.0.0.1",
      WARDEN_PORT: String(await freePort()),
      WARDEN_LOG_LEVEL: "fatal",
      WARDEN_AUDIT_SPOOL_DIR: spool,
      WARDEN_AUDIT_FLUSH_MS: "50",
      WARDEN_SHUTDOWN_GRACE_MS: "500",
      WARDEN_INSTANCE_ID: `sdk-kill-b-${uid()}`,
    }),
  );
});

afterAll(async () => {
  await stack?.close();
  await second?.stop();
  if (spool) await rm(spool, { recursive: true, force: true });
});

/** An instance in its own process (the server's main.ts, as deployed), to SIGKILL. */
async function startChild(): Promise<{ url: string; kill9(): Promise<void> }> {
  const port = await freePort();
  const child: ChildProcess = spawn(
    process.execPath,
    ["--import", "tsx", join(REPO_ROOT, "apps/server/src/main.ts")],
    {
      cwd: REPO_ROOT,
      stdio: ["ignore", "ignore", "pipe"],
      env: {
        PATH: process.env.PATH,
        DATABASE_URL: stack.db.url,
        REDIS_URL: stack.redis.url,
        WARDEN_HOST: "127.0.0.1",
        WARDEN_PORT: String(port),
        WARDEN_INSTANCE_ID: `sdk-kill-c-${uid()}`,
        WARDEN_LOG_LEVEL: "fatal",
        WARDEN_AUDIT_SPOOL_DIR: spool,
        WARDEN_SHUTDOWN_GRACE_MS: "500",
      },
    },
  );
  let stderr = "";
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const exited = once(child, "exit");
  const url = `http://127.0.0.1:${port}`;
  const kill9 = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGKILL");
      await exited;
    }
  };
  try {
    await until(
      async () => {
        if (child.exitCode !== null) throw new Error(`the child instance exited: ${stderr}`);
        return fetch(`${url}/readyz`).then(
          (response) => response.ok,
          () => false,
        );
      },
      90_000,
      200,
      "the child instance answering /readyz",
    );
  } catch (error) {
    await kill9();
    throw error;
  }
  return { url, kill9 };
}

/** A client of all three whose connection is open to `target` (the first attempt is random). */
async function clientOn(urls: string[], target: string): Promise<Warden> {
  const wanted = `${target.replace("http", "ws")}/trpc`;
  for (let attempt = 0; attempt < 50; attempt++) {
    const client = stack.client({ url: urls, reconnectMaxDelayMs: 300 });
    await until(() => client.state === "open", 10_000);
    if (client.endpoint === wanted) return client;
    await client.close();
  }
  throw new Error(`no client landed on ${target}`);
}

test("kill -9 of the instance a holder and a waiter are connected to: the lock is renewed through another instance, the wait is an unknown outcome and the next one is granted elsewhere", async () => {
  const child = await startChild();
  try {
    const urls = [stack.url, second.http.url, child.url];
    const resource = await stack.resource("kill-hold", { defaultLeaseMs: 3_000 });
    const holderClient = await clientOn(urls, child.url);
    const waiterClient = await clientOn(urls, child.url);
    const observer = stack.client();
    const lock = await holderClient.acquire(resource, "held", { leaseMs: 3_000 });
    const other = await observer.acquire(resource, "waited");
    // Settled before the kill is awaited, so its rejection is observed at once.
    const waiting = waiterClient.acquire(resource, "waited", { waitMs: 20_000 }).then(
      () => null,
      (error: unknown) => error,
    );
    const renewalsBefore = lock.renewals;
    // The wait is queued on the child (waiters are listed by the instance that serves them).
    const onChild = stack.client({ url: child.url });
    await until(async () => (await onChild.waiters(resource, "waited")).length === 1, 15_000);

    await child.kill9();
    expect(await waiting).toBeInstanceOf(OutcomeUnknownError);
    await until(() => holderClient.state === "open", 15_000);
    expect(urls.map((url) => `${url.replace("http", "ws")}/trpc`)).toContain(holderClient.endpoint);
    // Over two leases later: still held, same lockId and fence, renewed through a survivor.
    await delay(7_000);
    expect(lock.signal.reason).toBeUndefined();
    expect(lock.held).toBe(true);
    expect(lock.renewals).toBeGreaterThan(renewalsBefore + 2);
    const seen = await observer.inspect(resource, "held");
    expect(seen?.lockId).toBe(lock.lockId);
    expect(seen?.fence).toBe(lock.fence);
    expect(await observer.tryAcquire(resource, "held")).toBeNull();

    // The waiter asks again: queued on a survivor, granted when the key is released.
    const again = waiterClient.acquire(resource, "waited", { waitMs: 20_000 });
    await delay(300);
    await other.release();
    const granted = await again;
    expect(BigInt(granted.fence!)).toBeGreaterThan(BigInt(other.fence!));
    await granted.release();
    await lock.release();
    expect(await observer.inspect(resource, "held")).toBeNull();
  } finally {
    await child.kill9();
  }
});
