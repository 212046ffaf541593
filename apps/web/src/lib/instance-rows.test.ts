import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { InstancesTable } from "../components/instances-table";
import { instancesModel, type FleetAnswerView, type InstanceEntry } from "./instance-rows";

function entry(name: string, extra: Partial<InstanceEntry> = {}): InstanceEntry {
  return {
    id: `${name}:0a1b2c3d`,
    name,
    version: "0.1.0",
    host: "web-1",
    pid: 4242,
    uptimeMs: 60_000,
    ageMs: 500,
    connections: { lockSockets: 3, trpcSockets: 1, sseStreams: 2 },
    tier: { tier: "redis", version: 12, epoch: 3, forced: false, decidedAlone: false },
    stale: false,
    tierMismatch: false,
    self: false,
    ...extra,
  };
}

const answer: FleetAnswerView = {
  source: "redis",
  degradedReason: null,
  staleAfterMs: 5_000,
  instances: [
    entry("a", { self: true, ageMs: 0 }),
    entry("b", {
      tierMismatch: true,
      tier: { tier: "mysql", version: 11, epoch: 2, forced: true, decidedAlone: false },
    }),
    entry("c", { ageMs: 6_000, stale: true }),
    entry("d", { ageMs: 4_500 }),
  ],
};

describe("instancesModel", () => {
  it("ticks ages and uptimes from the server's figures and counts what the headline says", () => {
    const model = instancesModel(answer, 1_000);
    expect(model.rows.map((row) => [row.name, row.lastSeenAgoMs, row.uptimeMs])).toEqual([
      ["a", 1_000, 61_000],
      ["b", 1_500, 61_500],
      ["c", 7_000, 67_000],
      ["d", 5_500, 65_500],
    ]);
    // d crossed the stale threshold since the answer; the answering instance never does.
    expect(model.rows.map((row) => row.stale)).toEqual([false, false, true, true]);
    expect(model).toMatchObject({ total: 4, stale: 2, mismatched: 1, connections: 24 });
    expect(model.rows[1]!.tierDetail).toBe("v11 · epoch 2 · forced");
    expect(model.rows[0]!.detail).toBe("web-1 / 4242 · v0.1.0");
    expect(model.warning).toBeNull();
  });

  it("says so when the list is the answering instance alone", () => {
    const model = instancesModel(
      {
        ...answer,
        source: "self",
        degradedReason: "Redis did not answer",
        instances: [answer.instances[0]!],
      },
      0,
    );
    expect(model.warning).toMatch(/Only the instance that answered.*Redis did not answer/);
  });
});

describe("InstancesTable", () => {
  it("renders a row per instance, stale ones greyed and a differing tier view highlighted", () => {
    const html = renderToStaticMarkup(
      createElement(InstancesTable, { rows: instancesModel(answer, 0).rows }),
    );
    expect(html.match(/<tr[\s>]/g)?.length).toBe(4 + 1);
    expect(html).toContain("this one");
    expect(html).toMatch(/<tr class="row-warn"[^>]*data-tier-mismatch="true"/);
    expect(html).toMatch(/<tr style="opacity:0.5" data-stale="true">/);
    expect(html).toContain("differs from the fleet");
    expect(html).toContain("3 lock · 1 tRPC · 2 SSE");
    expect(html).toContain("1 m 06 s");
  });

  it("renders an empty fleet as a sentence", () => {
    expect(renderToStaticMarkup(createElement(InstancesTable, { rows: [] }))).toContain(
      "No server instance announced itself",
    );
  });
});
