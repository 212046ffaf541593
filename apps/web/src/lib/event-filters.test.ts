import { describe, expect, it } from "vitest";
import {
  EMPTY_EVENT_FILTERS,
  paramsOf,
  searchFiltersOf,
  toDateTimeLocal,
  valuesFromParams,
} from "./event-filters";

describe("searchFiltersOf", () => {
  it("leaves out blank fields and trims the rest", () => {
    expect(
      searchFiltersOf({ ...EMPTY_EVENT_FILTERS, fence: " 4294967301 ", resource: "" }),
    ).toEqual({
      fence: "4294967301",
    });
  });

  it("splits a holder into clientId and ownerId", () => {
    expect(searchFiltersOf({ ...EMPTY_EVENT_FILTERS, holder: "svc-a/job-7" })).toEqual({
      clientId: "svc-a",
      ownerId: "job-7",
    });
    expect(searchFiltersOf({ ...EMPTY_EVENT_FILTERS, holder: "svc-a" })).toEqual({
      clientId: "svc-a",
    });
  });

  it("reads the time range in the browser's zone", () => {
    const from = new Date(2026, 10, 29, 3, 15).getTime();
    const filters = searchFiltersOf({
      ...EMPTY_EVENT_FILTERS,
      from: toDateTimeLocal(from),
      to: "not a date",
    });
    expect(filters).toEqual({ fromMs: from });
  });
});

describe("type filter", () => {
  it("keeps only the event types the server knows", () => {
    expect(searchFiltersOf({ ...EMPTY_EVENT_FILTERS, type: "force-release" })).toEqual({
      type: "force-release",
    });
    expect(searchFiltersOf({ ...EMPTY_EVENT_FILTERS, type: "bogus" })).toEqual({});
  });
});

describe("URL round trip", () => {
  it("gives back the same search after a reload", () => {
    const filters = {
      lockId: "abcdefghijklmnopqrstuv",
      clientId: "svc-a",
      ownerId: "job-1",
      fromMs: new Date(2026, 0, 2, 3, 4).getTime(),
    };
    const values = valuesFromParams(new URLSearchParams(paramsOf(filters).toString()));
    expect(values.holder).toBe("svc-a/job-1");
    expect(searchFiltersOf(values)).toEqual(filters);
  });
});
