import { copyFile, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { PROMETHEUS_EXAMPLE, RULES, RULES_TEST, run } from "./support/paths.js";

interface Rule {
  alert?: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}
interface RuleFile {
  groups: { name: string; rules: Rule[] }[];
}
interface RuleTests {
  rule_files: string[];
  tests: { alert_rule_test?: { alertname: string; exp_alerts: unknown[] }[] }[];
}

const rules = parse(await readFile(RULES, "utf8")) as RuleFile;
const alerts = rules.groups.flatMap((group) => group.rules);
const scratch: string[] = [];

afterAll(async () => {
  for (const dir of scratch) await rm(dir, { recursive: true, force: true });
});

describe("deploy/prometheus/warden-rules.yml", () => {
  it("passes promtool check rules", async () => {
    const result = await run("promtool", ["check", "rules", RULES]);
    expect(result.stdout + result.stderr).toContain(`SUCCESS: ${alerts.length} rules found`);
    expect(result.code).toBe(0);
  });

  it("passes its unit tests (promtool test rules)", async () => {
    const result = await run("promtool", ["test", "rules", RULES_TEST]);
    expect(result.stdout + result.stderr).toContain("SUCCESS");
    expect(result.code).toBe(0);
  });

  it("is loaded by the example Prometheus configuration (promtool check config)", async () => {
    const dir = await mkdtemp(join(tmpdir(), "warden-prometheus-"));
    scratch.push(dir);
    await copyFile(PROMETHEUS_EXAMPLE, join(dir, "prometheus.yml"));
    await copyFile(RULES, join(dir, "warden-rules.yml"));
    await writeFile(join(dir, "warden-metrics-token"), "a-token-of-at-least-16-characters\n");
    const result = await run("promtool", ["check", "config", join(dir, "prometheus.yml")]);
    expect(result.stdout + result.stderr).toContain(`SUCCESS: ${alerts.length} rules found`);
    expect(result.code).toBe(0);
  });

  it("has the alerts the on-call needs, each with a severity, summary, description and runbook", () => {
    expect(alerts.map((rule) => rule.alert).sort()).toEqual(
      [
        "WardenAbsent",
        "WardenAcquireP99OverTarget",
        "WardenAuditEventsDropped",
        "WardenAuditSpoolBacklog",
        "WardenAuditSpoolFull",
        "WardenDegradedTier",
        "WardenInstanceDown",
        "WardenLeaseMirrorDropping",
        "WardenLeaseMirrorFailing",
        "WardenLocalTier",
        "WardenLongHolds",
        "WardenMysqlSweeperFailing",
        "WardenRenewalFailures",
        "WardenReplicationTimeouts",
        "WardenStaleFenceRejected",
      ].sort(),
    );
    for (const rule of alerts) {
      expect(["page", "ticket"], rule.alert).toContain(rule.labels?.severity);
      for (const key of ["summary", "description", "runbook"]) {
        expect(rule.annotations?.[key]?.length ?? 0, `${rule.alert} ${key}`).toBeGreaterThan(20);
      }
      expect(rule.annotations?.runbook, rule.alert).toContain(
        `deploy/prometheus/README.md#${rule.alert!.toLowerCase()}`,
      );
    }
    // The local tier pages at once: no cross-instance exclusion while it lasts.
    const local = alerts.find((rule) => rule.alert === "WardenLocalTier")!;
    expect(local.labels?.severity).toBe("page");
    expect(local.for).toBeUndefined();
  });

  it("unit-tests every alert firing, not only staying quiet", async () => {
    const tests = parse(await readFile(RULES_TEST, "utf8")) as RuleTests;
    expect(tests.rule_files).toEqual(["warden-rules.yml"]);
    const fired = new Set(
      tests.tests
        .flatMap((group) => group.alert_rule_test ?? [])
        .filter((test) => test.exp_alerts.length > 0)
        .map((test) => test.alertname),
    );
    expect([...fired].sort()).toEqual(alerts.map((rule) => rule.alert).sort());
  });

  it("has unit tests that catch a rule that misses a counter's first event", async () => {
    // The same tests against a copy whose stale-fence rule relies on increase() alone:
    // a resource's first rejection (series born at 1) must make them fail.
    const dir = await mkdtemp(join(tmpdir(), "warden-rules-"));
    scratch.push(dir);
    const text = await readFile(RULES, "utf8");
    const broken = text.replace(
      /sum by \(job, instance, resource\) \(increase\(warden_stale_fence_rejections_total\[10m\]\)\) > 0\n\s+or\n\s+sum by \(job, instance, resource\) \(\n\s+warden_stale_fence_rejections_total > 0\n\s+unless warden_stale_fence_rejections_total offset 10m\n\s+\)/,
      "sum by (job, instance, resource) (increase(warden_stale_fence_rejections_total[10m])) > 0",
    );
    expect(broken).not.toBe(text);
    await writeFile(join(dir, "warden-rules.yml"), broken);
    await copyFile(RULES_TEST, join(dir, "warden-rules.test.yml"));
    const result = await run("promtool", ["test", "rules", join(dir, "warden-rules.test.yml")]);
    expect(result.code).not.toBe(0);
    expect(result.stdout + result.stderr).toMatch(/WardenStaleFenceRejected/);
  });
});
