import { describe, expect, it } from "vitest";
import {
  emptyResourceForm,
  errorsFromServer,
  formFromResource,
  parseCreateForm,
  parseUpdateForm,
  type ResourceFormValues,
} from "./resource-form";

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
        degrade: true,
        localFallback: "deny",
        fair: false,
        waitReplicas: 0,
        description: "",
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
});

describe("parseUpdateForm", () => {
  it("sends the whole policy as the patch and maps nested errors to their fields", () => {
    const form = formFromResource({
      name: "order:settle",
      tenantId: "payments",
      defaultLeaseMs: 5_000,
      maxLeaseMs: 20_000,
      maxRenewals: 3,
      expectedHoldMs: 800,
      degrade: false,
      localFallback: "allow",
      fair: true,
      waitReplicas: 1,
      description: "settles orders",
    });
    expect(parseUpdateForm(form)).toMatchObject({
      ok: true,
      input: {
        name: "order:settle",
        patch: { maxRenewals: 3, expectedHoldMs: 800, localFallback: "allow" },
      },
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

  it("puts a domain error that names a field on that field", () => {
    expect(errorsFromServer(null, "tenantId: name the owning tenant")).toEqual({
      tenantId: "name the owning tenant",
    });
    expect(errorsFromServer(null, "bogus: whatever")).toEqual({ form: "bogus: whatever" });
  });
});
