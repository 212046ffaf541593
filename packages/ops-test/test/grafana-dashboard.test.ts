import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { labelsOf, sampleNames, startLiveServer, type LiveServer } from "./support/live-server.js";
import { DASHBOARD, RULES, run } from "./support/paths.js";
import { metricNames } from "./support/promql.js";

interface Target {
  datasource?: { type?: string; uid?: string };
  expr?: string;
  refId?: string;
}
interface Panel {
  id: number;
  type: string;
  title: string;
  gridPos: { h: number; w: number; x: number; y: number };
  datasource?: { type?: string; uid?: string };
  targets?: Target[];
  repeat?: string;
  panels?: Panel[];
}
interface Variable {
  type: string;
  name: string;
  query?: string | { query?: string };
  multi?: boolean;
  includeAll?: boolean;
}
interface Dashboard {
  title: string;
  uid: string;
  schemaVersion: number;
  panels: Panel[];
  templating: { list: Variable[] };
}

const dashboard = JSON.parse(await readFile(DASHBOARD, "utf8")) as Dashboard;
const rules = parse(await readFile(RULES, "utf8")) as { groups: { rules: { expr: string }[] }[] };
const allPanels = dashboard.panels.flatMap((panel) => [panel, ...(panel.panels ?? [])]);
const queryPanels = allPanels.filter((panel) => panel.type !== "row");
const panelExprs = queryPanels.flatMap((panel) => (panel.targets ?? []).map((t) => t.expr ?? ""));
const variableQueries = dashboard.templating.list
  .filter((v) => v.type === "query")
  .map((v) => (typeof v.query === "string" ? v.query : (v.query?.query ?? "")));
const ruleExprs = rules.groups.flatMap((group) => group.rules.map((rule) => rule.expr));

/** `label_values(selector, label)` → `selector`. */
const selectorOf = (query: string) => /^label_values\((.*),\s*\w+\)$/.exec(query)?.[1] ?? query;

/** Grafana's variables replaced by what they stand for, so promtool can parse the query. */
const substitute = (expr: string) =>
  expr
    .replaceAll("$__rate_interval", "1m")
    .replaceAll("$__range", "1h")
    .replaceAll("$job", "warden")
    .replaceAll("$instance", ".*")
    .replaceAll("$resource", ".*");

const scratch: string[] = [];
afterAll(async () => {
  for (const dir of scratch) await rm(dir, { recursive: true, force: true });
});

describe("deploy/grafana/warden-dashboard.json", () => {
  it("is an importable dashboard: schema version, unique panel ids, a 24-column grid", () => {
    expect(dashboard.title).toBe("Warden");
    expect(dashboard.uid).toMatch(/^[a-zA-Z0-9_-]{1,40}$/);
    expect(dashboard.schemaVersion).toBeGreaterThanOrEqual(36);
    const ids = allPanels.map((panel) => panel.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const panel of allPanels) {
      expect(panel.gridPos.x + panel.gridPos.w, panel.title).toBeLessThanOrEqual(24);
      expect(panel.gridPos.h, panel.title).toBeGreaterThan(0);
    }
  });

  it("has a Prometheus datasource variable that every query uses, and job, instance and resource variables", () => {
    const variables = new Map(dashboard.templating.list.map((v) => [v.name, v]));
    expect(variables.get("datasource")).toMatchObject({ type: "datasource", query: "prometheus" });
    expect(variables.get("job")?.type).toBe("query");
    expect(variables.get("instance")).toMatchObject({
      type: "query",
      multi: true,
      includeAll: true,
    });
    expect(variables.get("resource")).toMatchObject({
      type: "query",
      multi: true,
      includeAll: true,
    });
    for (const panel of queryPanels) {
      expect(panel.targets?.length ?? 0, panel.title).toBeGreaterThan(0);
      expect(panel.datasource?.uid, panel.title).toBe("${datasource}");
      const refIds = panel.targets!.map((target) => target.refId);
      expect(new Set(refIds).size, panel.title).toBe(refIds.length);
      for (const target of panel.targets!) {
        expect(target.datasource?.uid, panel.title).toBe("${datasource}");
        expect(target.expr?.trim().length ?? 0, panel.title).toBeGreaterThan(0);
      }
    }
  });

  it("shows the console's overview and repeats per-resource panels for the resource variable", () => {
    const titles = queryPanels.map((panel) => panel.title);
    for (const wanted of [
      "Tier in force",
      "Live locks",
      "Waiters",
      "Stale-fence rejections",
      "Acquire rate by outcome",
      "Acquire latency p50 / p99 by tier",
      "Audit spool",
    ]) {
      expect(titles).toContain(wanted);
    }
    const repeated = dashboard.panels.find(
      (panel) => panel.type === "row" && panel.repeat === "resource",
    );
    expect(repeated).toBeDefined();
    const perResource = queryPanels.filter((panel) => panel.title.startsWith("$resource:"));
    expect(perResource.length).toBeGreaterThanOrEqual(4);
    for (const panel of perResource) {
      for (const target of panel.targets!)
        expect(target.expr, panel.title).toContain('resource="$resource"');
    }
  });

  it("has queries promtool can parse once Grafana's variables are filled in", async () => {
    const dir = await mkdtemp(join(tmpdir(), "warden-dashboard-"));
    scratch.push(dir);
    const file = join(dir, "dashboard-queries.yml");
    const exprs = [...panelExprs, ...variableQueries.map(selectorOf)].map(substitute);
    await writeFile(
      file,
      stringify({
        groups: [
          {
            name: "dashboard",
            rules: exprs.map((expr, i) => ({ record: `dashboard:query_${i}`, expr })),
          },
        ],
      }),
    );
    const result = await run("promtool", ["check", "rules", file]);
    expect(result.stdout + result.stderr).toContain(`SUCCESS: ${exprs.length} rules found`);
  });
});

describe("metrics named by the dashboard and the alert rules", () => {
  let live: LiveServer;
  let exported: Set<string>;
  let last: string;
  let scrapes: string[];

  beforeAll(async () => {
    live = await startLiveServer();
    scrapes = await live.exercise();
    exported = new Set(scrapes.flatMap((text) => [...sampleNames(text)]));
    last = scrapes.at(-1)!;
  });

  afterAll(async () => {
    await live?.close();
  });

  it("finds the metric names in the queries", () => {
    expect(
      metricNames(
        'sum by (outcome) (rate(warden_acquire_total{resource=~"$resource"}[$__rate_interval]))',
      ),
    ).toEqual(new Set(["warden_acquire_total"]));
    expect(
      metricNames('x > 0 unless x offset 10m or absent(up{job="warden"}) > 3 * y_bucket'),
    ).toEqual(new Set(["x", "up", "y_bucket"]));
  });

  it("are all exported by a live server's /metrics (up is Prometheus' own)", () => {
    const used = new Map<string, string>();
    for (const expr of panelExprs)
      for (const name of metricNames(expr)) used.set(name, `panel: ${expr}`);
    for (const query of variableQueries)
      for (const name of metricNames(selectorOf(query))) used.set(name, `variable: ${query}`);
    for (const expr of ruleExprs)
      for (const name of metricNames(expr)) used.set(name, `rule: ${expr}`);
    expect(used.size).toBeGreaterThan(15);
    const missing = [...used].filter(([name]) => name !== "up" && !exported.has(name));
    expect(missing, "used but not exported").toEqual([]);
  });

  it("carry the labels the queries group and filter by", () => {
    expect(
      labelsOf(last, "warden_acquire_total").every((l) => l.resource && l.tier && l.outcome),
    ).toBe(true);
    expect(labelsOf(last, "warden_acquire_total").length).toBeGreaterThan(0);
    for (const name of [
      "warden_hold_duration_seconds_bucket",
      "warden_renew_failures_total",
      "warden_release_total",
      "warden_force_releases_total",
      "warden_stale_fence_rejections_total",
    ]) {
      const sets = labelsOf(last, name);
      expect(sets.length, name).toBeGreaterThan(0);
      expect(
        sets.every((l) => typeof l.resource === "string"),
        name,
      ).toBe(true);
    }
    const first = scrapes[0]!;
    expect(labelsOf(first, "warden_long_holds").length).toBeGreaterThan(0);
    expect(labelsOf(first, "warden_long_holds").every((l) => typeof l.resource === "string")).toBe(
      true,
    );
    expect(
      labelsOf(last, "warden_tier")
        .map((l) => l.tier)
        .sort(),
    ).toEqual(["local", "mysql", "redis"]);
  });
});
