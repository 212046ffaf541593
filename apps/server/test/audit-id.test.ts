import { describe, expect, it } from "vitest";
import { auditRecord, timeOrderedId } from "../src/audit/audit-record.js";

describe("audit record ids", () => {
  it("are UUID version 7: the event's ms first, so later events sort after earlier ones", () => {
    const at = Date.UTC(2026, 10, 29, 12, 0, 0, 123);
    const id = timeOrderedId(at);
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(parseInt(id.slice(0, 8) + id.slice(9, 13), 16)).toBe(at);
    const ids = Array.from({ length: 1_000 }, (_, i) => timeOrderedId(at + i));
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(Array.from({ length: 1_000 }, () => timeOrderedId(at))).size).toBe(1_000);
  });

  it("are made from the record's own time", () => {
    const record = auditRecord({ type: "grant", resource: "r", at: 1_700_000_000_000 });
    expect(parseInt(record.id.slice(0, 8) + record.id.slice(9, 13), 16)).toBe(1_700_000_000_000);
  });
});
