import { newLockId } from "@warden/contract";
import { describe, expect, it } from "vitest";
import { newOwnerId } from "../src/owner/owner-scope.js";

describe("newOwnerId", () => {
  it("is 22 base64url characters and unique, interleaved with lockIds from the same pool", () => {
    const seen = new Set<string>();
    // Several 256-id pool refills, with lockIds drawn in between from the shared pool.
    for (let i = 0; i < 3_000; i++) {
      const ownerId = newOwnerId();
      const lockId = newLockId();
      expect(ownerId).toMatch(/^[A-Za-z0-9_-]{22}$/);
      seen.add(ownerId).add(lockId);
    }
    expect(seen.size).toBe(6_000);
  });
});
