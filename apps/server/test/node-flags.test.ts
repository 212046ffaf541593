// The server's node flags: every way this repository starts a production-like server passes
// the same flags (SERVER_NODE_FLAGS), and the startup check recognises them however given.
import { readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { missingNodeFlags, SERVER_NODE_FLAGS } from "../src/runtime/node-flags.js";

const serverDir = join(dirname(fileURLToPath(import.meta.url)), "..");
const repoDir = join(serverDir, "..", "..");

async function text(path: string): Promise<string> {
  return readFile(join(repoDir, path), "utf8");
}

async function script(packageDir: string, name: string): Promise<string> {
  const manifest = JSON.parse(await text(join(packageDir, "package.json"))) as {
    scripts: Record<string, string>;
  };
  return manifest.scripts[name] ?? "";
}

describe("the server's node flags", () => {
  it("are passed by the bin's shebang, the start and dev scripts, the systemd unit and the demo", async () => {
    const launchers: Record<string, string> = {
      shebang: (await text("apps/server/bin/warden-server.js")).split("\n", 1)[0]!,
      start: await script("apps/server", "start"),
      dev: await script("apps/server", "dev"),
      systemd:
        (await text("deploy/systemd/warden-server.service"))
          .split("\n")
          .find((line) => line.startsWith("ExecStart=")) ?? "",
      demo: await script("packages/demo", "start"),
    };
    expect(SERVER_NODE_FLAGS.length).toBeGreaterThan(0);
    for (const [where, line] of Object.entries(launchers)) {
      const words = line.split(/\s+/);
      expect(missingNodeFlags(words, ""), `${where}: ${line}`).toEqual([]);
      for (const flag of SERVER_NODE_FLAGS) expect(words, where).toContain(flag);
    }
  });

  it("count as given on the command line or in NODE_OPTIONS, in any spelling V8 accepts", () => {
    expect(missingNodeFlags([], "")).toEqual([...SERVER_NODE_FLAGS]);
    expect(missingNodeFlags(["--import", "tsx"], "--enable-source-maps")).toEqual([
      ...SERVER_NODE_FLAGS,
    ]);
    expect(missingNodeFlags([...SERVER_NODE_FLAGS], "")).toEqual([]);
    expect(missingNodeFlags([], ` --enable-source-maps ${SERVER_NODE_FLAGS.join(" ")} `)).toEqual(
      [],
    );
    // Another value is the operator's choice, not a missing flag.
    expect(missingNodeFlags(["--max_semi_space_size=16"], "")).toEqual([]);
    expect(missingNodeFlags(["--max-semi-space-size", "128"], "")).toEqual([]);
  });
});
