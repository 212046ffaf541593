// The SDK as a service installs it: packed into a tarball (with the workspace's pinned pnpm, which
// applies publishConfig), installed with plain npm into a scratch project outside the workspace,
// and used from plain `node` (no TypeScript loader) — ESM and CommonJS — against a real server.
import { execFile } from "node:child_process";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startStack, type Stack } from "./support/stack.js";

const run = promisify(execFile);
const sdkDir = join(dirname(fileURLToPath(import.meta.url)), "..");
const pnpm = join(sdkDir, "..", "..", "node_modules", "pnpm", "bin", "pnpm.cjs");

let stack: Stack;
let scratch: string;
let resource: string;

beforeAll(async () => {
  stack = await startStack();
  resource = await stack.resource("packed", { defaultLeaseMs: 5_000 });
  scratch = await mkdtemp(join(tmpdir(), "warden-sdk-consumer-"));
  const packDir = join(scratch, "pack");
  await run(process.execPath, [pnpm, "pack", "--pack-destination", packDir], {
    cwd: sdkDir,
    maxBuffer: 16 * 1024 * 1024,
  });
  const [tarball] = (await readdir(packDir)).filter((name) => name.endsWith(".tgz"));
  if (!tarball) throw new Error("pnpm pack made no tarball");
  const app = join(scratch, "app");
  await run("mkdir", ["-p", app]);
  await writeFile(
    join(app, "package.json"),
    JSON.stringify({ name: "consumer", version: "1.0.0", private: true }),
  );
  await run(
    "npm",
    [
      "install",
      "--no-audit",
      "--no-fund",
      "--prefer-offline",
      join(packDir, tarball),
      // Only for the declarations check below; the SDK itself needs no types installed.
      "@types/node@20.19.25",
    ],
    { cwd: app, maxBuffer: 16 * 1024 * 1024 },
  );
}, 300_000);

afterAll(async () => {
  await stack?.close();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

/** Runs `source` as `file` in the scratch project with plain node; returns its JSON output. */
async function runConsumer(file: string, source: string): Promise<Record<string, unknown>> {
  const app = join(scratch, "app");
  await writeFile(join(app, file), source);
  const { stdout } = await run(process.execPath, [file], {
    cwd: app,
    env: {
      PATH: process.env.PATH ?? "",
      WARDEN_URL: stack.url,
      WARDEN_API_KEY: stack.apiKey,
      WARDEN_RESOURCE: resource,
    },
    timeout: 60_000,
  });
  return JSON.parse(stdout.trim().split("\n").at(-1) ?? "{}") as Record<string, unknown>;
}

async function installedVersion(): Promise<string> {
  const path = join(scratch, "app", "node_modules", "@warden", "sdk", "package.json");
  return (JSON.parse(await readFile(path, "utf8")) as { version: string }).version;
}

/** One lock cycle and one typed refusal, the same in both module systems. */
const body = `
const warden = createWarden({
  url: process.env.WARDEN_URL,
  apiKey: process.env.WARDEN_API_KEY,
  clientId: "packed-consumer",
});
try {
  const lock = await warden.acquire(process.env.WARDEN_RESOURCE, "order-1", { waitMs: 5000 });
  const fence = lock.fence;
  await lock.release();
  let refusal = "none";
  try {
    await warden.acquire("no.such.resource", "k", { waitMs: 1000 });
  } catch (error) {
    refusal = error instanceof UnknownResourceError && error instanceof WardenError
      ? error.code
      : String(error);
  }
  console.log(JSON.stringify({ fence, refusal, replyLost: typeof ReplyLostError, version: SDK_VERSION }));
} finally {
  await warden.close();
}
`;

describe("the packed SDK in a plain-node project", () => {
  test("the installed package ships built files only, and no workspace, Redis or MySQL code", async () => {
    const installed = join(scratch, "app", "node_modules");
    const manifest = JSON.parse(
      await readFile(join(installed, "@warden", "sdk", "package.json"), "utf8"),
    ) as {
      exports: Record<string, { import: { default: string }; require: { default: string } }>;
      dependencies: Record<string, string>;
    };
    expect(manifest.exports["."]?.import.default).toBe("./dist/index.js");
    expect(manifest.exports["."]?.require.default).toBe("./dist/index.cjs");
    expect(
      Object.keys(manifest.dependencies).filter((name) => name.startsWith("@warden/")),
    ).toEqual([]);
    const files = await readdir(join(installed, "@warden", "sdk", "dist"));
    expect(files.sort()).toEqual(["index.cjs", "index.d.cts", "index.d.ts", "index.js"]);
    const top = await readdir(installed);
    expect(top).not.toContain("ioredis");
    expect(top).not.toContain("mysql2");
    expect(top).not.toContain("@trpc");
    expect(await readdir(join(installed, "@warden"))).toEqual(["sdk"]);
    const declarations = await readFile(
      join(installed, "@warden", "sdk", "dist", "index.d.ts"),
      "utf8",
    );
    expect(declarations).not.toMatch(/(from|import\()\s*["']@warden\//);
    const size = async (path: string) =>
      Number((await run("du", ["-sk", path])).stdout.split("\t")[0]);
    // Everything but @types/node and its undici-types, which only the typecheck below needs.
    const kb =
      (await size(installed)) -
      (await size(join(installed, "@types"))) -
      (await size(join(installed, "undici-types")));
    console.log(`installed size of @warden/sdk and its dependencies: ${kb} KB`);
  });

  test("`npm pack` is refused with the reason, instead of shipping exports that point at source", async () => {
    // npm keeps a user agent it inherits, so a run started through pnpm must not pass pnpm's on.
    const env = Object.fromEntries(
      Object.entries(process.env).filter(([name]) => name !== "npm_config_user_agent"),
    );
    const failed = await run("npm", ["pack", "--dry-run"], { cwd: sdkDir, env }).catch(
      (error: unknown) => error as { code: number; stderr: string },
    );
    expect(failed).toMatchObject({ code: 1 });
    expect((failed as { stderr: string }).stderr).toContain("pack it with pnpm");
  });

  test("its declarations typecheck in a strict TypeScript project, as ESM and as CommonJS", async () => {
    const app = join(scratch, "app");
    await writeFile(
      join(app, "typed.mts"),
      `import { createWarden, ReplyLostError, type Lock } from "@warden/sdk";
const warden = createWarden({ url: "http://127.0.0.1:1", apiKey: "k", onError: (e) => void (e instanceof ReplyLostError) });
const lock: Lock = await warden.acquire("r", "k", { waitMs: 10 });
const fence: string | null = lock.fence;
export { fence };`,
    );
    await writeFile(
      join(app, "typed.cts"),
      `import sdk = require("@warden/sdk");
void sdk.createWarden({ url: "http://127.0.0.1:1", apiKey: "k" }).close();`,
    );
    const tsc = join(sdkDir, "..", "..", "node_modules", ".bin", "tsc");
    const checked = await run(
      tsc,
      [
        "--noEmit",
        "--strict",
        "--module",
        "nodenext",
        "--moduleResolution",
        "nodenext",
        "--target",
        "es2022",
        "--lib",
        "es2023,esnext.disposable",
        "--types",
        "node",
        "typed.mts",
        "typed.cts",
      ],
      { cwd: app },
    ).catch((error: unknown) => error as { code: number; stdout: string });
    expect(checked).not.toHaveProperty("code");
  });

  test("an .mjs file takes and releases a lock with plain node", async () => {
    const out = await runConsumer(
      "lock.mjs",
      `import { createWarden, UnknownResourceError, WardenError, ReplyLostError, SDK_VERSION } from "@warden/sdk";\n${body}`,
    );
    expect(out.fence).toMatch(/^[1-9][0-9]*$/);
    expect(out.refusal).toBe("UNKNOWN_RESOURCE");
    expect(out.replyLost).toBe("function");
    // The version heartbeats report is the package's own.
    expect(out.version).toBe(await installedVersion());
  });

  test("a .cjs file does the same through require()", async () => {
    const out = await runConsumer(
      "lock.cjs",
      `const { createWarden, UnknownResourceError, WardenError, ReplyLostError, SDK_VERSION } = require("@warden/sdk");\n(async () => {\n${body}\n})().catch((error) => { console.error(error); process.exit(1); });`,
    );
    expect(out.fence).toMatch(/^[1-9][0-9]*$/);
    expect(out.refusal).toBe("UNKNOWN_RESOURCE");
    expect(out.replyLost).toBe("function");
    // The version heartbeats report is the package's own.
    expect(out.version).toBe(await installedVersion());
  });
});
