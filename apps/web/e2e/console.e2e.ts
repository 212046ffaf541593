import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import type { Browser, Page } from "playwright-core";
import { launchBrowser } from "./browser.js";
import { externalStackFromEnv } from "./external-stack.js";
import type { Lock } from "@warden/sdk";
import { lockClient } from "./lock-client.js";
import { startLocalStack } from "./local-stack.js";
import type { E2eStack } from "./stack.js";

const SCREENSHOTS = fileURLToPath(new URL("./screenshots/", import.meta.url));
const LEASE_MS = 6_000;
// Tier changes: probes fail a few times before degrading; recovery waits for Redis to stay up.
const TIER_TIMEOUT_MS = 60_000;
// The whole suite, including a first `next build` (about 2 min on 2 cores).
const SUITE_TIMEOUT_MS = 600_000;

void describe("console against the real stack", { timeout: SUITE_TIMEOUT_MS }, () => {
  let stack: E2eStack;
  let browser: Browser;
  let page: Page;
  let locks: ReturnType<typeof lockClient>;
  let held: Lock;
  let waiting: Promise<Lock>;
  const resource = `e2e:settle-${Date.now().toString(36)}`;
  const businessKey = "order-42";

  const shot = (name: string, fullPage = false) =>
    page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage });
  const tierBadge = (tier: string) =>
    page.locator(`[data-testid="tier-badge"][data-tier="${tier}"]`);

  before(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    stack = externalStackFromEnv() ?? (await startLocalStack());
    locks = lockClient(stack.apiUrl, stack.tenant.apiKey, "e2e-billing-worker-1");
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    page.setDefaultTimeout(15_000);
  });

  after(async () => {
    await locks?.close();
    await browser?.close();
    await stack?.close();
  });

  void it("logs in", async () => {
    await page.goto(`${stack.webUrl}/resources`);
    await page.waitForURL(/\/login/);
    await page.getByLabel("Username").fill(stack.operator.username);
    await page.getByLabel("Password").fill(stack.operator.password);
    await shot("01-login");
    await page.getByRole("button", { name: "Log in" }).click();
    await page.waitForURL(/\/resources$/);
    await tierBadge("redis").waitFor();
    await page.goto(`${stack.webUrl}/`);
    await page.getByRole("heading", { name: "Overview" }).waitFor();
  });

  void it("rejects an invalid resource with inline errors, then registers it", async () => {
    await page.goto(`${stack.webUrl}/resources/new`);
    await page.getByLabel("Name").fill("bad name!");
    await page.getByLabel("maxLeaseMs").fill("70000");
    await page.getByLabel("defaultLeaseMs").fill("");
    await page.getByRole("button", { name: "Register" }).click();
    await page.getByTestId("error-name").waitFor();
    assert.match(await page.getByTestId("error-maxLeaseMs").innerText(), /at most 60000/);
    assert.equal(await page.getByTestId("error-defaultLeaseMs").innerText(), "required");
    assert.equal(await page.getByLabel("maxLeaseMs").getAttribute("aria-invalid"), "true");
    await shot("02-resource-form-invalid");

    await page.getByLabel("Name").fill(resource);
    await page.getByLabel("Tenant").fill(stack.tenant.id);
    await page.getByLabel("defaultLeaseMs").fill(String(LEASE_MS));
    await page.getByLabel("maxLeaseMs").fill("30000");
    await page.getByLabel("expectedHoldMs").fill("1000");
    await page.getByLabel("Description").fill("E2E: settles an order exactly once");
    await page.getByRole("button", { name: "Register" }).click();
    await page.waitForURL(new RegExp(`/resources/${encodeURIComponent(resource)}$`));
    await page.getByRole("heading", { name: "Live holders" }).waitFor();
  });

  void it("shows an SDK client's lock live, with its fence and a ticking countdown", async () => {
    await locks.workload(resource, 72);
    held = await locks.acquire(resource, businessKey, "settle-job-7", LEASE_MS);
    assert.ok(held.fence, "a Redis grant carries a fence");
    const fenceCell = page.getByTestId("holder-fence").filter({ hasText: held.fence });
    // Live: the grant event arrives over SSE; 2 s polling is the floor.
    await fenceCell.waitFor({ timeout: 3_000 });
    const row = page.locator(`tr[data-lock-id="${held.lockId}"]`);
    assert.match(await row.innerText(), /e2e-billing-worker-1 \/ settle-job-7/);
    // It ticks every second between refreshes (renewals at lease/3 push it back up).
    const seen = new Set<string>();
    for (let sample = 0; sample < 10; sample += 1) {
      seen.add(await row.getByTestId("holder-countdown").innerText());
      await page.waitForTimeout(300);
    }
    assert.ok(seen.size >= 2, `the countdown ticks client-side (saw ${[...seen].join(", ")})`);
    // A second task blocks on the same key: it shows as a waiter, first in the queue.
    waiting = locks.acquire(resource, businessKey, "settle-job-8", LEASE_MS, 30_000);
    await page.getByTestId("waiters-table").getByText("settle-job-8").waitFor({ timeout: 5_000 });
    await shot("03-holder-live");
  });

  void it("force-releases it with a reason: the client's signal aborts and the audit names the operator", async () => {
    const row = page.locator(`tr[data-lock-id="${held.lockId}"]`);
    const open = row.getByRole("button", { name: /Force release/ });
    const dialog = page.getByRole("alertdialog", { name: "Force release this lock?" });
    // Keyboard: the dialog opens from a real button, Escape closes it, focus returns.
    await open.focus();
    await page.keyboard.press("Enter");
    await dialog.waitFor();
    assert.equal(
      await dialog.getByLabel(/Reason/).evaluate((el) => el === document.activeElement),
      true,
    );
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "hidden" });
    assert.equal(
      await open.evaluate((el) => el === document.activeElement),
      true,
      "focus returns to the opener",
    );
    await open.click();
    await dialog.waitFor();
    assert.equal(
      await dialog.getByRole("button", { name: "Force release" }).isDisabled(),
      true,
      "reason required",
    );
    await dialog.getByLabel(/Reason/).fill("stuck settle job on a dead host, INC-4711");
    await shot("04-force-release-dialog");
    await dialog.getByRole("button", { name: "Force release" }).click();
    await page.getByTestId("release-notice").waitFor();
    await row.waitFor({ state: "detached", timeout: 5_000 });

    const aborted = await new Promise<boolean>((resolve) => {
      if (held.signal.aborted) return resolve(true);
      const timer = setTimeout(() => resolve(false), LEASE_MS);
      held.signal.addEventListener("abort", () => {
        clearTimeout(timer);
        resolve(true);
      });
    });
    assert.ok(aborted, "the holder's lock signal aborts after a force-release");
    // The waiter gets the key next, with a greater fence, and shows up live.
    const next = await waiting;
    assert.ok(BigInt(next.fence ?? "0") > BigInt(held.fence ?? "0"), "fences only grow");
    await page
      .getByTestId("holder-fence")
      .filter({ hasText: next.fence ?? "" })
      .waitFor({ timeout: 5_000 });
    await shot("05-force-released");
    await next.release();
  });

  void it("finds the force-release by fence, with who and why", async () => {
    await page.goto(`${stack.webUrl}/events`);
    await page.getByLabel("Fence").fill(held.fence ?? "");
    await page.getByRole("button", { name: "Search" }).click();
    await page.waitForURL(/fence=/);
    await page.locator('[data-testid="events-table"][aria-busy="false"]').waitFor();
    assert.equal(
      await page.locator('tr[data-type="epoch"]').count(),
      0,
      "only events of this fence",
    );
    const forced = page.locator('tr[data-type="force-release"]');
    await forced.waitFor({ timeout: 10_000 });
    const text = await forced.innerText();
    assert.match(text, new RegExp(`operator:${stack.operator.username}`));
    assert.match(text, /INC-4711/);
    await page.locator('tr[data-type="grant"]').waitFor();
    await shot("06-events-by-fence");
  });

  void it("shows the workload: suggested lease, charts, alerts, connected instance", async () => {
    const detail = `${stack.webUrl}/resources/${encodeURIComponent(resource)}`;
    await page.goto(`${detail}/edit`);
    const suggestion = page.getByTestId("lease-suggestion");
    await suggestion.waitFor({ timeout: 15_000 });
    assert.match(await suggestion.innerText(), /p99\.9 hold/);
    await shot("07-edit-suggested-lease");
    await page.goto(detail);
    await page.getByTestId("key-timeline").waitFor();
    await shot("08-resource-detail", true);
    await page.goto(`${stack.webUrl}/resources`);
    await page.getByLabel("Search by name").fill("e2e:");
    await page.getByTestId("resources-table").getByText(resource).waitFor();
    await shot("08b-resources");
    await page.goto(`${stack.webUrl}/alerts`);
    await page.locator('[data-testid="alert-list"], [data-testid="alert-list-empty"]').waitFor();
    await shot("09-alerts");
    await page.goto(`${stack.webUrl}/`);
    await page.getByText("e2e-billing-worker-1").first().waitFor();
    await shot("10-overview");
  });

  void it("turns amber on the mysql tier when Redis stops", async () => {
    await page.goto(`${stack.webUrl}/tier`);
    await stack.stopRedis();
    await tierBadge("mysql").waitFor({ timeout: TIER_TIMEOUT_MS });
    await page.getByTestId("mysql-banner").waitFor();
    await page.getByTestId("tier-history").getByText("mysql").first().waitFor();
    await shot("11-tier-mysql");
  });

  void it("turns the whole screen red in local mode when MariaDB stops too", async () => {
    await stack.stopMariaDb();
    const alert = page.getByTestId("local-alert");
    await alert.getByRole("button", { name: "Acknowledge" }).waitFor({ timeout: TIER_TIMEOUT_MS });
    await shot("12-tier-local-alert");
    await page.keyboard.press("Escape");
    await page.getByTestId("local-banner").waitFor();
    await tierBadge("local").waitFor();
    await shot("13-tier-local-acknowledged");
    // Someone just paged opens the console: the login page already says LOCAL.
    const fresh = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    try {
      await fresh.goto(`${stack.webUrl}/login`);
      await fresh
        .locator('[data-testid="public-tier"] [data-testid="tier-badge"][data-tier="local"]')
        .waitFor({ timeout: 10_000 });
      await fresh.screenshot({ path: join(SCREENSHOTS, "13b-login-while-local.png") });
    } finally {
      await fresh.close();
    }
  });

  void it("returns to normal when both come back", async () => {
    await stack.startMariaDb();
    await stack.startRedis();
    await tierBadge("redis").waitFor({ timeout: TIER_TIMEOUT_MS * 2 });
    assert.equal(await page.getByTestId("local-banner").count(), 0);
    assert.equal(await page.getByTestId("mysql-banner").count(), 0);
    await page.goto(`${stack.webUrl}/`);
    await tierBadge("redis").waitFor();
    await shot("14-recovered-overview");
  });

  void it("retires the resource after a confirmation", async () => {
    await page.goto(`${stack.webUrl}/resources/${encodeURIComponent(resource)}`);
    await page.getByRole("button", { name: "Retire" }).click();
    const dialog = page.getByRole("alertdialog", { name: `Retire ${resource}?` });
    await dialog.waitFor();
    await dialog.getByRole("button", { name: "Retire" }).click();
    await page.waitForURL(/\/resources$/);
    await page.getByLabel("Search by name").fill(resource);
    await page.getByText("No resources match.").waitFor();
  });
});
