import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../src/index.js";
import { alive, runCli, startCli } from "./support/cli.js";
import { startStack, type Stack } from "./support/stack.js";

const CHILD = fileURLToPath(new URL("./fixtures/child.mjs", import.meta.url));
const node = process.execPath;

interface Ready {
  pid: number;
  env: Record<string, string>;
}
const ready = (line: string) => JSON.parse(line.slice("READY ".length)) as Ready;

let stack: Stack;
let env: Record<string, string>;

beforeAll(async () => {
  stack = await startStack();
  env = { WARDEN_URL: stack.url, WARDEN_API_KEY: stack.tenant.apiKey };
});

afterAll(async () => {
  await stack?.close();
});

async function until(check: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await sleep(100);
  }
}

const holderOf = async (resource: string, key: string) =>
  (await stack.tenant.api.lock.inspect.query({ resource, businessKey: key })).lease;

describe("warden lock", () => {
  it("runs the command with the lock's fence, lockId, resource and key, and releases after", async () => {
    const resource = await stack.tenant.resource("cli.env");
    const cli = startCli(["lock", resource, "order-1", "--", node, CHILD, "hold"], env);
    const seen = ready(await cli.line(/^READY /));
    // While the command runs, the lock is held under exactly the grant it was given.
    const lease = await holderOf(resource, "order-1");
    expect(lease).not.toBeNull();
    expect(seen.env).toMatchObject({
      WARDEN_FENCE: lease!.fence!,
      WARDEN_LOCK_ID: lease!.lockId,
      WARDEN_RESOURCE: resource,
      WARDEN_KEY: "order-1",
      WARDEN_TIER: "redis",
    });
    expect(BigInt(seen.env.WARDEN_FENCE!)).toBeGreaterThan(0n);
    // `warden holders` shows the same grant.
    const holders = await runCli(["holders", resource, "--json"], env);
    expect(holders.code).toBe(0);
    const listed = JSON.parse(holders.out[0]!) as { holders: { lockId: string; fence: string }[] };
    expect(listed.holders.map((h) => [h.lockId, h.fence])).toEqual([[lease!.lockId, lease!.fence]]);
    const table = await runCli(["holders", resource], env);
    expect(table.out[0]).toMatch(/^KEY\s+FENCE\s+LOCK ID\s+CLIENT/);
    expect(table.out[1]).toContain(lease!.lockId);

    cli.process.kill("SIGTERM");
    await cli.line(/^GOT SIGTERM$/);
    expect((await cli.exited).code).toBe(40 + 15);
    expect(await holderOf(resource, "order-1")).toBeNull();
  });

  it("exits with the command's status and releases the lock", async () => {
    const resource = await stack.tenant.resource("cli.status");
    const result = await runCli(["lock", resource, "k", "--", node, CHILD, "exit", "7"], env);
    expect(result.code).toBe(7);
    expect(await holderOf(resource, "k")).toBeNull();
    const ok = await runCli(["lock", resource, "k", "--", node, CHILD, "exit", "0"], env);
    expect(ok.code).toBe(0);
    // Two runs in a row got two grants: the second fence is larger.
    const [first, second] = [result, ok].map((r) => BigInt(ready(r.out[0]!).env.WARDEN_FENCE!));
    expect(second).toBeGreaterThan(first!);
  });

  it("exits 75 (or --conflict-exit-code) when the lock is held, after --wait", async () => {
    const resource = await stack.tenant.resource("cli.held");
    const holder = startCli(["lock", resource, "k", "--", node, CHILD, "hold"], env);
    await holder.line(/^READY /);

    const tried = await runCli(["lock", resource, "k", "--", node, CHILD, "exit", "0"], env);
    expect(tried.code).toBe(75);
    expect(tried.out).toEqual([]); // the command never ran
    expect(tried.err.join("\n")).toMatch(/is held by .*not acquired/);

    const started = performance.now();
    const waited = await runCli(
      [
        "lock",
        resource,
        "k",
        "--wait",
        "1s",
        "--conflict-exit-code",
        "3",
        "--",
        node,
        CHILD,
        "exit",
        "0",
      ],
      env,
    );
    expect(waited.code).toBe(3);
    expect(performance.now() - started).toBeGreaterThanOrEqual(1_000);
    expect(waited.err.join("\n")).toMatch(/still held .* after 1s: not acquired/);

    holder.process.kill("SIGINT");
    expect((await holder.exited).code).toBe(40 + 2);
  });

  it("waits in the server's queue (warden waiters shows it) and runs once the holder is done", async () => {
    const resource = await stack.tenant.resource("cli.wait", { fair: true });
    const holder = startCli(["lock", resource, "k", "--", node, CHILD, "hold"], env);
    const first = ready(await holder.line(/^READY /));
    const waiter = startCli(
      [
        "lock",
        resource,
        "k",
        "--wait",
        "30s",
        "--client-id",
        "cli-waiter",
        "--",
        node,
        CHILD,
        "exit",
        "0",
      ],
      env,
    );
    await until(async () =>
      (await runCli(["waiters", resource, "k", "--json"], env)).out[0]!.includes("cli-waiter"),
    );
    const table = await runCli(["waiters", resource], env);
    expect(table.out[0]).toMatch(/^KEY\s+POSITION\s+CLIENT/);
    expect(table.out[1]).toMatch(/^k\s+0\s+cli-waiter/);

    holder.process.kill("SIGTERM");
    const second = ready(await waiter.line(/^READY /));
    expect((await waiter.exited).code).toBe(0);
    expect(BigInt(second.env.WARDEN_FENCE!)).toBeGreaterThan(BigInt(first.env.WARDEN_FENCE!));
    expect((await runCli(["waiters", resource, "k"], env)).out).toEqual([
      `no waiters for ${resource} k`,
    ]);
  });

  it("leaves the server's queue and exits 130 on SIGINT while waiting", async () => {
    const resource = await stack.tenant.resource("cli.giveup");
    const holder = startCli(["lock", resource, "k", "--", node, CHILD, "hold"], env);
    await holder.line(/^READY /);
    const waiter = startCli(
      [
        "lock",
        resource,
        "k",
        "--wait",
        "60s",
        "--client-id",
        "cli-quitter",
        "--",
        node,
        CHILD,
        "exit",
        "0",
      ],
      env,
    );
    const queued = async () => (await runCli(["waiters", resource, "k", "--json"], env)).out[0]!;
    await until(async () => (await queued()).includes("cli-quitter"));
    waiter.process.kill("SIGINT");
    expect((await waiter.exited).code).toBe(130);
    expect(waiter.out).toEqual([]); // the command never ran
    await until(async () => !(await queued()).includes("cli-quitter"));
    holder.process.kill("SIGTERM");
    expect((await holder.exited).code).toBe(40 + 15);
  });

  it("forwards SIGINT, SIGTERM and SIGHUP to the command", async () => {
    const resource = await stack.tenant.resource("cli.signals");
    for (const [signal, number] of [
      ["SIGINT", 2],
      ["SIGHUP", 1],
    ] as const) {
      const cli = startCli(["lock", resource, signal, "--", node, CHILD, "hold"], env);
      await cli.line(/^READY /);
      cli.process.kill(signal);
      await cli.line(new RegExp(`^GOT ${signal}$`));
      expect((await cli.exited).code).toBe(40 + number);
      expect(await holderOf(resource, signal)).toBeNull();
    }
  });

  it("stops the command when the lease is lost (force-released), SIGTERM first, and exits 76", async () => {
    const resource = await stack.tenant.resource("cli.lost");
    const cli = startCli(
      ["lock", resource, "k", "--lease", "1500ms", "--", node, CHILD, "hold"],
      env,
    );
    const child = ready(await cli.line(/^READY /));
    const released = await runCli(
      ["release", "--force", "--reason", "cli test: lease loss", resource, "k"],
      {
        ...env,
        WARDEN_OPERATOR: stack.operator.username,
        WARDEN_OPERATOR_PASSWORD: stack.operator.password,
      },
    );
    expect(released.code).toBe(0);
    expect(released.out[0]).toContain(`lock ${child.env.WARDEN_LOCK_ID}`);
    await cli.line(/^GOT SIGTERM$/);
    expect((await cli.exited).code).toBe(76);
    expect(cli.err.join("\n")).toMatch(/lost the lock on .* stopping the command/);
    expect(alive(child.pid)).toBe(false);
  });

  it("kills a command that ignores SIGTERM after --kill-after", async () => {
    const resource = await stack.tenant.resource("cli.kill");
    const cli = startCli(
      [
        "lock",
        resource,
        "k",
        "--lease",
        "1500ms",
        "--kill-after",
        "500ms",
        "--",
        node,
        CHILD,
        "stubborn",
      ],
      env,
    );
    const child = ready(await cli.line(/^READY /));
    const lease = await holderOf(resource, "k");
    // An operator removes the lease through the API: the next renewal is refused.
    await runCli(
      [
        "release",
        "--force",
        "--reason",
        "cli test: stubborn",
        "--lock-id",
        lease!.lockId,
        resource,
        "k",
      ],
      {
        ...env,
        WARDEN_OPERATOR: stack.operator.username,
        WARDEN_OPERATOR_PASSWORD: stack.operator.password,
      },
    );
    await cli.line(/^GOT SIGTERM$/);
    const { code } = await cli.exited;
    expect(code).toBe(76);
    expect(alive(child.pid)).toBe(false);
  });

  it("after a lost lease, also kills what the command left running in its group", async () => {
    const resource = await stack.tenant.resource("cli.group");
    // A shell that dies of SIGTERM, with a background child that ignores it.
    const script = `"${node}" "${CHILD}" stubborn & wait`;
    const cli = startCli(
      ["lock", resource, "k", "--lease", "1500ms", "--kill-after", "1s", "--", "sh", "-c", script],
      env,
    );
    const grandchild = ready(await cli.line(/^READY /));
    await runCli(["release", "--force", "--reason", "cli test: group", resource, "k"], {
      ...env,
      WARDEN_OPERATOR: stack.operator.username,
      WARDEN_OPERATOR_PASSWORD: stack.operator.password,
    });
    await cli.line(/^GOT SIGTERM$/);
    expect((await cli.exited).code).toBe(76);
    expect(alive(grandchild.pid)).toBe(false);
  });

  it("exits 127 for a command that does not exist, without keeping the lock", async () => {
    const resource = await stack.tenant.resource("cli.missing");
    const result = await runCli(["lock", resource, "k", "--", "/nonexistent/command"], env);
    expect(result.code).toBe(127);
    expect(await holderOf(resource, "k")).toBeNull();
  });
});

describe("warden errors and the other commands", () => {
  it("refuses bad command lines with 64", async () => {
    for (const args of [
      ["lock", "r"],
      ["lock", "r", "k"],
      ["lock", "r", "k", "--wait", "forever", "--", "true"],
      ["lock", "r", "k", "--wait", "10m", "--", "true"],
      ["lock", "r", "k", "--lease", "0", "--", "true"],
      ["lock", "r", "k", "--conflict-exit-code", "256", "--", "true"],
      ["release", "r", "k"],
      ["release", "--force", "r", "k"],
      ["release", "--force", "--reason", "no", "r", "k"],
      ["holders"],
      ["frobnicate"],
      ["tier", "--nope"],
      ["tier", "extra"],
    ]) {
      const err: string[] = [];
      const code = await main(args, {
        env,
        io: { out: () => {}, err: (line) => err.push(line) },
        onSignal: () => () => {},
      });
      expect(code, args.join(" ")).toBe(64);
      expect(err.join("\n"), args.join(" ")).toContain("warden --help");
    }
    // The real binary says the same.
    const spawned = await runCli(["lock", "r"], env);
    expect(spawned.code).toBe(64);
    expect(spawned.err[0]).toBe("warden: warden lock takes <resource> <key>");
  });

  it("says 65 for an unknown resource, and the same for another tenant's", async () => {
    const other = await stack.newTenant();
    const theirs = await other.resource("cli.foreign");
    const unknown = await runCli(["lock", "cli.nothing.here", "k", "--", "true"], env);
    const foreign = await runCli(["lock", theirs, "k", "--", "true"], env);
    expect(unknown.code).toBe(65);
    expect(foreign.code).toBe(65);
    expect(foreign.err.join("\n").replaceAll(theirs, "R")).toBe(
      unknown.err.join("\n").replaceAll("cli.nothing.here", "R"),
    );
    const holders = await runCli(["holders", theirs], env);
    expect(holders.code).toBe(65);
  });

  it("says 77 for a refused API key, 77 for release without an operator, 69 for no server", async () => {
    expect((await runCli(["tier"], { ...env, WARDEN_API_KEY: "wdn_not-a-key" })).code).toBe(77);
    expect(
      (
        await runCli(["lock", "r.x", "k", "--", "true"], {
          ...env,
          WARDEN_API_KEY: "wdn_not-a-key",
        })
      ).code,
    ).toBe(77);
    expect(
      (await runCli(["release", "--force", "--reason", "why not", "r.x", "k"], env)).code,
    ).toBe(77);
    const down = await runCli(["tier"], { ...env, WARDEN_URL: "http://127.0.0.1:59999" });
    expect(down.code).toBe(69);
    expect(down.err.join("\n")).toContain("cannot reach the server");
    const lockDown = await runCli(["lock", "r.x", "k", "--", "true"], {
      ...env,
      WARDEN_URL: "http://127.0.0.1:59999",
    });
    expect(lockDown.code).toBe(69);
  });

  it("shows the tier, and flags override the environment", async () => {
    const result = await runCli(["tier"], env);
    expect(result.code).toBe(0);
    expect(result.out[0]).toMatch(/^tier\s+redis$/);
    const json = await runCli(
      ["tier", "--json", "--url", stack.url, "--api-key", stack.tenant.apiKey],
      {
        WARDEN_URL: "http://127.0.0.1:59999",
        WARDEN_API_KEY: "wdn_wrong",
      },
    );
    expect(json.code).toBe(0);
    expect(JSON.parse(json.out[0]!)).toMatchObject({ tier: "redis" });
  });
});

describe("warden lock when the server goes away", () => {
  it("stops the command when renewals cannot be confirmed, and exits 76 (the last test: it stops the server)", async () => {
    const resource = await stack.tenant.resource("cli.outage");
    const cli = startCli(
      ["lock", resource, "k", "--lease", "1500ms", "--", node, CHILD, "hold"],
      env,
    );
    const child = ready(await cli.line(/^READY /));
    await stack.stopServer();
    await cli.line(/^GOT SIGTERM$/);
    const { code } = await cli.exited;
    expect(code).toBe(76);
    expect(cli.err.join("\n")).toMatch(/lost the lock/);
    expect(alive(child.pid)).toBe(false);
  });
});
