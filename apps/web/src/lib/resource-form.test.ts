import { RESOURCE_POLICY_DEFAULTS } from "@warden/server/schemas";
import { describe, expect, it } from "vitest";
import {
  emptyResourceForm,
  errorsFromServer,
  formFromResource,
  parseCreateForm,
  parseUpdateForm,
  type ResourceFormValues,
} from "./resource-form";

/** The server's defaults as a stored policy (what `resource.get` returns without the name). */
function emptyResourcePolicy() {
  return { ...RESOURCE_POLICY_DEFAULTS };
}

const valid: ResourceFormValues = {
  ...emptyResourceForm(),
  name: "order:settle",
  tenantId: "payments",
};

describe("parseCreateForm", () => {
  it("starts from the server's defaults and accepts them with a name", () => {
    const result = parseCreateForm(valid);
    expect(result).toEqual({
      ok: true,
      input: {
        name: "order:settle",
        tenantId: "payments",
        defaultLeaseMs: 10_000,
        maxLeaseMs: 60_000,
        maxRenewals: null,
        expectedHoldMs: null,
        releaseOnDisconnectMs: null,
        lockDelayMs: 0,
        kind: "mutex",
        permits: null,
        degrade: true,
        localFallback: "deny",
        fair: false,
        waitReplicas: 0,
        description: "",
        // The create schema's default (a read-write lock's option; the form does not show it).
        writerPreference: true,
      },
    });
  });

  it("turns blank optional numbers into null (unlimited / no alert) and omits a blank tenant", () => {
    const result = parseCreateForm({
      ...valid,
      tenantId: " ",
      maxRenewals: "5",
      expectedHoldMs: "",
    });
    expect(result.ok && result.input).toMatchObject({ maxRenewals: 5, expectedHoldMs: null });
    expect(result.ok && "tenantId" in result.input).toBe(false);
  });

  it("puts each problem on its own field", () => {
    const result = parseCreateForm({
      ...valid,
      name: "bad name!",
      maxLeaseMs: "70000",
      defaultLeaseMs: "",
      waitReplicas: "two",
    });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors.name).toMatch(/letters, digits/);
    expect(result.errors.maxLeaseMs).toBe("maxLeaseMs must be at most 60000 ms");
    expect(result.errors.defaultLeaseMs).toBe("required");
    expect(result.errors.waitReplicas).toBe("must be a whole number");
  });

  it("reports defaultLeaseMs above maxLeaseMs on defaultLeaseMs, as the server does", () => {
    const result = parseCreateForm({ ...valid, defaultLeaseMs: "30000", maxLeaseMs: "20000" });
    expect(result).toEqual({
      ok: false,
      errors: { defaultLeaseMs: "defaultLeaseMs must not exceed maxLeaseMs" },
    });
  });

  it("rejects fractional milliseconds", () => {
    const result = parseCreateForm({ ...valid, expectedHoldMs: "12.5" });
    expect(!result.ok && result.errors.expectedHoldMs).toBeTruthy();
  });

  it("takes releaseOnDisconnectMs from 0 to 60000 ms, blank = TTL only, anything else on its field", () => {
    const zero = parseCreateForm({ ...valid, releaseOnDisconnectMs: "0" });
    expect(zero.ok && zero.input.releaseOnDisconnectMs).toBe(0);
    const set = parseCreateForm({ ...valid, releaseOnDisconnectMs: " 2500 " });
    expect(set.ok && set.input.releaseOnDisconnectMs).toBe(2_500);
    const blank = parseCreateForm({ ...valid, releaseOnDisconnectMs: "" });
    expect(blank.ok && blank.input.releaseOnDisconnectMs).toBeNull();
    expect(parseCreateForm({ ...valid, releaseOnDisconnectMs: "60001" })).toEqual({
      ok: false,
      errors: { releaseOnDisconnectMs: "releaseOnDisconnectMs must be at most 60000 ms" },
    });
    expect(parseCreateForm({ ...valid, releaseOnDisconnectMs: "-1" })).toEqual({
      ok: false,
      errors: { releaseOnDisconnectMs: "releaseOnDisconnectMs must be at least 0 ms" },
    });
    const fraction = parseCreateForm({ ...valid, releaseOnDisconnectMs: "1.5" });
    expect(!fraction.ok && fraction.errors.releaseOnDisconnectMs).toBeTruthy();
    const text = parseCreateForm({ ...valid, releaseOnDisconnectMs: "soon" });
    expect(!text.ok && text.errors.releaseOnDisconnectMs).toBe("must be a whole number");
  });
});

describe("lockDelayMs", () => {
  it("takes 0 to 60000 ms with the server's schema; blank, fractions, text and out-of-range on its field", () => {
    expect(parseCreateForm(valid).ok && emptyResourceForm().lockDelayMs).toBe("0");
    const set = parseCreateForm({ ...valid, lockDelayMs: " 1500 " });
    expect(set.ok && set.input.lockDelayMs).toBe(1_500);
    const max = parseCreateForm({ ...valid, lockDelayMs: "60000" });
    expect(max.ok && max.input.lockDelayMs).toBe(60_000);
    expect(parseCreateForm({ ...valid, lockDelayMs: "60001" })).toEqual({
      ok: false,
      errors: { lockDelayMs: "lockDelayMs must be at most 60000 ms" },
    });
    expect(parseCreateForm({ ...valid, lockDelayMs: "-1" })).toEqual({
      ok: false,
      errors: { lockDelayMs: "lockDelayMs must be at least 0 ms" },
    });
    // Blank means none, also in an edit (a patch without it would keep the old delay).
    const blank = parseCreateForm({ ...valid, lockDelayMs: " " });
    expect(blank.ok && blank.input.lockDelayMs).toBe(0);
    const fraction = parseCreateForm({ ...valid, lockDelayMs: "2.5" });
    expect(!fraction.ok && fraction.errors.lockDelayMs).toBe("must be a whole number");
    const text = parseCreateForm({ ...valid, lockDelayMs: "soon" });
    expect(!text.ok && text.errors.lockDelayMs).toBe("must be a whole number");
  });

  it("edits it: the form shows the stored delay and the patch carries the new one; errors stay on the field", () => {
    const form = formFromResource({
      ...emptyResourcePolicy(),
      name: "report:nightly",
      tenantId: "ops",
      lockDelayMs: 2_000,
    });
    expect(form.lockDelayMs).toBe("2000");
    expect(parseUpdateForm({ ...form, lockDelayMs: "500" })).toMatchObject({
      ok: true,
      input: { name: "report:nightly", patch: { lockDelayMs: 500 } },
    });
    expect(parseUpdateForm({ ...form, lockDelayMs: "" })).toMatchObject({
      ok: true,
      input: { patch: { lockDelayMs: 0 } },
    });
    expect(parseUpdateForm({ ...form, lockDelayMs: "90000" })).toEqual({
      ok: false,
      errors: { lockDelayMs: "lockDelayMs must be at most 60000 ms" },
    });
    // The server's flattened zod errors (fieldErrors under patch) and a typed INVALID_ARGUMENT
    // naming the field both land on it.
    expect(
      errorsFromServer({ lockDelayMs: ["lockDelayMs must be at most 60000 ms"] }, "bad input"),
    ).toEqual({ lockDelayMs: "lockDelayMs must be at most 60000 ms" });
    expect(
      errorsFromServer(null, "lockDelayMs: must be at most 60000", {
        field: "lockDelayMs",
        reason: "must be at most 60000",
      }),
    ).toEqual({ lockDelayMs: "must be at most 60000" });
  });
});

describe("kind and permits", () => {
  it("registers a semaphore with its permits; blank permits = none (a mutex); bad counts on their field", () => {
    const semaphore = parseCreateForm({ ...valid, kind: "semaphore", permits: " 5 " });
    expect(semaphore.ok && [semaphore.input.kind, semaphore.input.permits]).toEqual([
      "semaphore",
      5,
    ]);
    const mutex = parseCreateForm(valid);
    expect(mutex.ok && [mutex.input.kind, mutex.input.permits]).toEqual(["mutex", null]);
    const zero = parseCreateForm({ ...valid, kind: "semaphore", permits: "0" });
    expect(!zero.ok && zero.errors.permits).toBe("permits must be at least 1");
    const many = parseCreateForm({ ...valid, kind: "semaphore", permits: "10001" });
    expect(!many.ok && many.errors.permits).toBe("permits must be at most 10000");
  });

  it("sends no lock-delay and no disconnect grace for a semaphore or a read-write lock (the fields are a mutex's), but the typed waitReplicas for every kind", () => {
    const typed = { lockDelayMs: "500", releaseOnDisconnectMs: "2000", waitReplicas: "2" };
    for (const kind of ["semaphore", "rwlock"] as const) {
      const created = parseCreateForm({ ...valid, ...typed, kind, permits: "3" });
      expect(
        created.ok && [
          created.input.lockDelayMs,
          created.input.releaseOnDisconnectMs,
          created.input.waitReplicas,
        ],
      ).toEqual([0, null, 2]);
      const updated = parseUpdateForm({ ...valid, ...typed, kind, permits: "3" });
      expect(
        updated.ok && [
          updated.input.patch.lockDelayMs,
          updated.input.patch.releaseOnDisconnectMs,
          updated.input.patch.waitReplicas,
        ],
      ).toEqual([0, null, 2]);
    }
    const mutex = parseCreateForm({ ...valid, ...typed });
    expect(
      mutex.ok && [
        mutex.input.lockDelayMs,
        mutex.input.releaseOnDisconnectMs,
        mutex.input.waitReplicas,
      ],
    ).toEqual([500, 2_000, 2]);
  });

  it("edits a semaphore's or an rwlock's waitReplicas: the form shows the stored value, the patch the new one, errors on the field", () => {
    for (const kind of ["semaphore", "rwlock"] as const) {
      const form = formFromResource({
        ...emptyResourcePolicy(),
        name: "pool:workers",
        tenantId: "ops",
        kind,
        permits: kind === "semaphore" ? 4 : null,
        waitReplicas: 1,
      });
      expect(form.waitReplicas).toBe("1");
      expect(parseUpdateForm({ ...form, waitReplicas: "3" })).toMatchObject({
        ok: true,
        input: { name: "pool:workers", patch: { kind, waitReplicas: 3 } },
      });
      const tooMany = parseUpdateForm({ ...form, waitReplicas: "17" });
      expect(!tooMany.ok && Object.keys(tooMany.errors)).toEqual(["waitReplicas"]);
      // An edit words a bad number as a registration does (its issues sit under `patch`).
      const text = parseUpdateForm({ ...form, waitReplicas: "two" });
      expect(!text.ok && text.errors).toEqual({ waitReplicas: "must be a whole number" });
    }
  });

  it("shows an INVALID_ARGUMENT on kind or permits from the server on that field", () => {
    expect(
      errorsFromServer(null, "permits: a semaphore resource needs permits", {
        field: "permits",
        reason: "a semaphore resource needs permits (1..10000)",
      }),
    ).toEqual({ permits: "a semaphore resource needs permits (1..10000)" });
    expect(
      errorsFromServer(null, "kind: is fixed at creation", {
        field: "kind",
        reason: "is fixed at creation",
      }),
    ).toEqual({ kind: "is fixed at creation" });
  });
});

describe("parseUpdateForm", () => {
  it("sends the whole policy as the patch and maps nested errors to their fields", () => {
    const form = formFromResource({
      name: "order:settle",
      tenantId: "payments",
      lockDelayMs: 0,
      defaultLeaseMs: 5_000,
      maxLeaseMs: 20_000,
      maxRenewals: 3,
      expectedHoldMs: 800,
      releaseOnDisconnectMs: 2_000,
      kind: "mutex",
      permits: null,
      degrade: false,
      localFallback: "allow",
      fair: true,
      waitReplicas: 1,
      description: "settles orders",
      writerPreference: true,
    });
    expect(parseUpdateForm(form)).toMatchObject({
      ok: true,
      input: {
        name: "order:settle",
        patch: {
          maxRenewals: 3,
          expectedHoldMs: 800,
          releaseOnDisconnectMs: 2_000,
          localFallback: "allow",
        },
      },
    });
    // Blanking it in the edit form turns it off (null), not "unchanged".
    expect(parseUpdateForm({ ...form, releaseOnDisconnectMs: "" })).toMatchObject({
      ok: true,
      input: { patch: { releaseOnDisconnectMs: null } },
    });
    const bad = parseUpdateForm({ ...form, maxLeaseMs: "70000" });
    expect(bad).toEqual({
      ok: false,
      errors: { maxLeaseMs: "maxLeaseMs must be at most 60000 ms" },
    });
  });
});

describe("errorsFromServer", () => {
  it("keeps the first message per field and falls back to the error message", () => {
    expect(errorsFromServer({ name: ["taken", "other"], patch: ["bad patch"] }, "x")).toEqual({
      name: "taken",
      form: "bad patch",
    });
    expect(errorsFromServer(null, "resource already exists")).toEqual({
      form: "resource already exists",
    });
  });

  it("puts a domain error that names a field on that field, from its details", () => {
    expect(
      errorsFromServer(null, "tenantId: name the owning tenant", {
        field: "tenantId",
        reason: "name the owning tenant",
      }),
    ).toEqual({ tenantId: "name the owning tenant" });
    expect(
      errorsFromServer(null, "bogus: whatever", { field: "bogus", reason: "whatever" }),
    ).toEqual({ form: "bogus: whatever" });
    // The message is never parsed: without details it goes on the form as it is.
    expect(errorsFromServer(null, "tenantId: name the owning tenant")).toEqual({
      form: "tenantId: name the owning tenant",
    });
  });
});

describe("read-write locks", () => {
  it("registers an rwlock with writer preference off; permits typed before switching are not sent", () => {
    const result = parseCreateForm({
      ...valid,
      kind: "rwlock",
      permits: "3",
      writerPreference: false,
    });
    expect(result.ok && result.input).toMatchObject({
      kind: "rwlock",
      permits: null,
      writerPreference: false,
    });
    const preferred = parseCreateForm({ ...valid, kind: "rwlock" });
    expect(preferred.ok && preferred.input.writerPreference).toBe(true);
  });

  it("never sends fair for an rwlock (it has no FIFO order; the server refuses it)", () => {
    const rwlock = parseCreateForm({ ...valid, kind: "rwlock", fair: true });
    expect(rwlock.ok && rwlock.input.fair).toBe(false);
    const mutex = parseCreateForm({ ...valid, fair: true });
    expect(mutex.ok && mutex.input.fair).toBe(true);
  });

  it("sends writer preference only for an rwlock, so a mutex or semaphore keeps its own", () => {
    const mutex = parseCreateForm({ ...valid, writerPreference: false });
    // Left out of the input: the schema's default (true), which the server accepts for a mutex.
    expect(mutex.ok && mutex.input.writerPreference).toBe(true);
    const form = formFromResource({ ...emptyResourcePolicy(), name: "orders", tenantId: "ops" });
    const patch = parseUpdateForm({ ...form, writerPreference: false });
    expect(patch.ok && "writerPreference" in patch.input.patch).toBe(false);
  });

  it("edits an rwlock's writer preference: the form shows the stored one, the patch the new one", () => {
    const form = formFromResource({
      ...emptyResourcePolicy(),
      name: "config:tenant",
      tenantId: "ops",
      kind: "rwlock",
      writerPreference: false,
    });
    expect([form.kind, form.writerPreference, form.permits]).toEqual(["rwlock", false, ""]);
    expect(parseUpdateForm({ ...form, writerPreference: true })).toMatchObject({
      ok: true,
      input: {
        name: "config:tenant",
        patch: { kind: "rwlock", permits: null, writerPreference: true },
      },
    });
  });

  it("shows the server's INVALID_ARGUMENT on writerPreference on that field", () => {
    expect(
      errorsFromServer(null, "writerPreference: only a read-write lock resource", {
        field: "writerPreference",
        reason: "only a read-write lock resource (kind rwlock) has a writer preference to turn off",
      }),
    ).toEqual({
      writerPreference:
        "only a read-write lock resource (kind rwlock) has a writer preference to turn off",
    });
  });
});
