import { readFile, readdir } from "node:fs/promises";
import { join } from "node:path";
import { LIMITS } from "@warden/core";
import { describe, expect, it } from "vitest";
import { loadEnv } from "../src/env.js";
import { API_LIMITS, fenceSchema, resourceCreateSchema } from "../src/schemas/index.js";

describe("shared schemas", () => {
  it("refuse resource names under the reserved warden: prefix (the server's own locks)", () => {
    const policy = {
      defaultLeaseMs: 10_000,
      maxLeaseMs: 20_000,
      maxRenewals: null,
      expectedHoldMs: null,
      degrade: true,
      localFallback: "deny",
      fair: false,
      waitReplicas: 0,
      description: "",
    };
    const reserved = resourceCreateSchema.safeParse({ ...policy, name: "warden:alerts" });
    expect(reserved.success).toBe(false);
    expect(reserved.error?.issues[0]?.path).toEqual(["name"]);
    expect(resourceCreateSchema.safeParse({ ...policy, name: "wardens:alerts" }).success).toBe(
      true,
    );
  });

  it("mirror the engine's limits", () => {
    for (const [name, value] of Object.entries(LIMITS)) {
      expect(API_LIMITS[name as keyof typeof API_LIMITS], name).toBe(value);
    }
  });

  it("import nothing but zod, the wire contract and each other, so the console can use them", async () => {
    const dir = new URL("../src/schemas/", import.meta.url).pathname;
    for (const file of await readdir(dir)) {
      const text = await readFile(join(dir, file), "utf8");
      const imports = [...text.matchAll(/from "([^"]+)"/g)].map((m) => m[1]);
      expect(
        imports.every(
          (name) => name === "zod" || name === "@warden/contract/wire" || name?.startsWith("./"),
        ),
        file,
      ).toBe(true);
    }
  });

  it("check fences and policies like the server does", () => {
    expect(fenceSchema.safeParse("18446744073709551615").success).toBe(true);
    expect(fenceSchema.safeParse("18446744073709551616").success).toBe(false);
    expect(fenceSchema.safeParse("007").success).toBe(false);
    const form = resourceCreateSchema.safeParse({
      name: "order:settle",
      defaultLeaseMs: 20_000,
      maxLeaseMs: 10_000,
      maxRenewals: null,
      expectedHoldMs: null,
      degrade: true,
      localFallback: "deny",
      fair: false,
      waitReplicas: 0,
      description: "",
    });
    expect(form.success).toBe(false);
    expect(form.error?.issues[0]).toMatchObject({ path: ["defaultLeaseMs"] });
  });
});

describe("environment", () => {
  it("names every bad variable at once", () => {
    expect(() => loadEnv({ DATABASE_URL: "postgres://x", WARDEN_PORT: "99999" })).toThrow(
      /DATABASE_URL: must be a mysql:\/\/ URL[\s\S]*WARDEN_PORT[\s\S]*REDIS_URL: set exactly one/,
    );
  });

  it("applies defaults", () => {
    const env = loadEnv({
      DATABASE_URL: "mysql://root@127.0.0.1:3306/warden",
      REDIS_URL: "redis://127.0.0.1:6379",
    });
    expect(env).toMatchObject({
      WARDEN_PORT: 4000,
      WARDEN_MAX_BODY_BYTES: 65_536,
      WARDEN_CONSOLE_ORIGINS: [],
      WARDEN_MYSQL_SWEEP_EVERY_MS: 30_000,
    });
  });

  it("takes a MySQL sweep interval from 1 s to 5 minutes", () => {
    const base = {
      DATABASE_URL: "mysql://root@127.0.0.1:3306/warden",
      REDIS_URL: "redis://127.0.0.1:6379",
    };
    expect(loadEnv({ ...base, WARDEN_MYSQL_SWEEP_EVERY_MS: "1000" })).toMatchObject({
      WARDEN_MYSQL_SWEEP_EVERY_MS: 1_000,
    });
    for (const bad of ["999", "300001", "soon"]) {
      expect(() => loadEnv({ ...base, WARDEN_MYSQL_SWEEP_EVERY_MS: bad })).toThrow(
        /WARDEN_MYSQL_SWEEP_EVERY_MS/,
      );
    }
  });
});
