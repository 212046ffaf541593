import { describe, expect, it } from "vitest";
import { roundUpLease, suggestLease } from "./suggested-lease";

describe("roundUpLease", () => {
  it("rounds up to a step that grows with the lease", () => {
    expect(roundUpLease(730)).toBe(800);
    expect(roundUpLease(3_210)).toBe(3_500);
    expect(roundUpLease(12_001)).toBe(13_000);
    expect(roundUpLease(4_000)).toBe(4_000);
  });
});

describe("suggestLease", () => {
  it("is p99.9 × margin, rounded up, with the data behind it", () => {
    const suggestion = suggestLease({ p999HoldMs: 1_620, samples: 4_000 }, 60_000);
    expect(suggestion).toEqual({
      leaseMs: 3_500,
      p999HoldMs: 1_620,
      margin: 2,
      samples: 4_000,
      capped: false,
      rawMs: 3_240,
    });
  });

  it("honours a custom margin", () => {
    expect(suggestLease({ p999HoldMs: 1_000, samples: 100 }, 60_000, { margin: 3 }).leaseMs).toBe(
      3_000,
    );
  });

  it("never suggests less than the floor for very short holds", () => {
    expect(suggestLease({ p999HoldMs: 12, samples: 100 }, 60_000).leaseMs).toBe(1_000);
  });

  it("is capped at maxLeaseMs and says so", () => {
    const suggestion = suggestLease({ p999HoldMs: 20_000, samples: 100 }, 30_000);
    expect(suggestion).toMatchObject({ leaseMs: 30_000, capped: true, rawMs: 40_000 });
  });

  it("never passes the 60 s hard cap even when maxLeaseMs claims more", () => {
    expect(suggestLease({ p999HoldMs: 50_000, samples: 100 }, 90_000).leaseMs).toBe(60_000);
  });

  it("refuses to guess from too few holds", () => {
    const none = suggestLease({ p999HoldMs: 900, samples: 12 }, 60_000);
    expect(none.leaseMs).toBeNull();
    expect(none).toMatchObject({ samples: 12 });
    expect(suggestLease({ p999HoldMs: null, samples: 0 }, 60_000).leaseMs).toBeNull();
  });
});
