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

/** Whether `signal` aborts (the SDK lost the grant) within `ms`. */
function lostWithin(signal: AbortSignal, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve(true);
    const timer = setTimeout(() => resolve(false), ms);
    signal.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

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
    await page.goto(`${stack.webUrl}/alerts`);
    await page.locator('[data-testid="alert-list"], [data-testid="alert-list-empty"]').waitFor();
    await shot("09-alerts");
    await page.goto(`${stack.webUrl}/`);
    await page.getByText("e2e-billing-worker-1").first().waitFor();
    await shot("10-overview");
  });

  void it("edits the lock-delay; a force-released key is then held back by it, on the key", async () => {
    const detail = `${stack.webUrl}/resources/${encodeURIComponent(resource)}`;
    await page.goto(`${detail}/edit`);
    const field = page.getByLabel("lockDelayMs");
    // The form shows the defaults until the stored policy has loaded (then Save is enabled).
    await page.waitForFunction(
      () => document.querySelector<HTMLTextAreaElement>("#rf-description")?.value !== "",
    );
    assert.equal(await field.inputValue(), "0", "the stored policy: no lock-delay");
    await field.fill("70000");
    await page.getByRole("button", { name: "Save changes" }).click();
    assert.match(await page.getByTestId("error-lockDelayMs").innerText(), /at most 60000 ms/);
    assert.equal(await field.getAttribute("aria-invalid"), "true");
    await shot("07b-edit-lock-delay-invalid");
    await field.fill("20000");
    await page.getByRole("button", { name: "Save changes" }).click();
    await page.waitForURL(new RegExp(`/resources/${encodeURIComponent(resource)}$`));
    await page.getByTestId("policy-lockDelayMs").getByText("20000 ms").waitFor();

    const delayed = await locks.acquire(resource, "order-77", "settle-job-9", LEASE_MS);
    const row = page.locator(`tr[data-lock-id="${delayed.lockId}"]`);
    await row.waitFor({ timeout: 5_000 });
    await row.getByRole("button", { name: /Force release/ }).click();
    const dialog = page.getByRole("alertdialog", { name: "Force release this lock?" });
    await dialog.getByLabel(/Reason/).fill("worker hung mid-write, INC-4712");
    await dialog.getByRole("button", { name: "Force release" }).click();
    await row.waitFor({ state: "detached", timeout: 5_000 });
    // Nobody holds it, and nobody may for 20 s: the list of held-back keys and the key say so.
    const held = page.getByTestId("lock-delays").locator('li[data-key="order-77"]');
    await held.waitFor({ timeout: 5_000 });
    assert.match(await held.innerText(), /lock-delay until \d\d:\d\d:\d\d/);
    await page.locator('#timeline-key option[value="order-77"]').waitFor({ state: "attached" });
    await page.locator("#timeline-key").selectOption("order-77");
    await page.getByTestId("key-lock-delay").waitFor({ timeout: 5_000 });
    // The end shows once the audit writer has flushed it (the grant may show first).
    const ended = page.locator(
      `[data-testid="term-history"] tr[data-term="${delayed.fence}"][data-end="force-released"]`,
    );
    await ended.waitFor({ timeout: 10_000 });
    assert.match(await ended.innerText(), /INC-4712/);
    await page.getByTestId("lock-delays").scrollIntoViewIfNeeded();
    await shot("08c-lock-delay", true);
  });

  void it("shows a key's leader and its term history as candidates hand over", async () => {
    const nodeA = lockClient(stack.apiUrl, stack.tenant.apiKey, "e2e-scheduler-a");
    const nodeB = lockClient(stack.apiUrl, stack.tenant.apiKey, "e2e-scheduler-b");
    try {
      const a = await nodeA.campaign(resource, "scheduler");
      const termA = await a.elected;
      const b = await nodeB.campaign(resource, "scheduler");
      await page.goto(`${stack.webUrl}/resources/${encodeURIComponent(resource)}`);
      await page.locator('#timeline-key option[value="scheduler"]').waitFor({ state: "attached" });
      await page.locator("#timeline-key").selectOption("scheduler");
      const term = page.getByTestId("current-term");
      await term.getByText(termA, { exact: true }).waitFor({ timeout: 5_000 });
      assert.match(await page.getByTestId("current-leader").innerText(), /e2e-scheduler-a/);

      // A resigns: B, queued on the server, is elected at once with a larger term.
      await a.campaign.resign();
      const termB = await b.elected;
      assert.ok(BigInt(termB) > BigInt(termA), "terms only grow");
      await term.getByText(termB, { exact: true }).waitFor({ timeout: 5_000 });
      const history = page.getByTestId("term-history");
      // Each row settles as the audit rows and the live lease arrive.
      const previous = history.locator(`tr[data-term="${termA}"][data-end="released"]`);
      await previous.waitFor({ timeout: 10_000 });
      assert.match(await previous.innerText(), /e2e-scheduler-a/);
      await history.locator(`tr[data-term="${termB}"][data-end="leading"]`).waitFor();
      await page.getByTestId("key-history").scrollIntoViewIfNeeded();
      await shot("08d-term-history");
      await b.campaign.resign();
    } finally {
      await nodeA.close();
      await nodeB.close();
    }
  });

  void it("registers a semaphore and shows its permits in use per key, live", async () => {
    const pool = `e2e:partner-api-${Date.now().toString(36)}`;
    await page.goto(`${stack.webUrl}/resources/new`);
    await page.getByLabel("Name").fill(pool);
    await page.getByLabel("Tenant").fill(stack.tenant.id);
    await page.getByLabel("kind", { exact: true }).selectOption("semaphore");
    await page.getByLabel("permits", { exact: true }).fill("3");
    await page.getByLabel("Description").fill("E2E: at most 3 calls to a partner's API at once");
    await page.getByRole("button", { name: "Register" }).click();
    await page.waitForURL(new RegExp(`/resources/${encodeURIComponent(pool)}$`));
    await page.getByRole("heading", { name: /Permits in use/ }).waitFor();

    const two = await locks.permit(pool, "partner-acme", "sync-1", 2);
    const one = await locks.permit(pool, "partner-acme", "sync-2", 1);
    const single = await locks.permit(pool, "partner-globex", "sync-3", 1);
    const acme = page.locator('[data-testid="permits-table"] tr[data-key="partner-acme"]');
    await acme.getByTestId("permits-in-use").getByText("3 / 3").waitFor({ timeout: 5_000 });
    assert.match(await acme.first().innerText(), /e2e-billing-worker-1 \/ sync-1/);
    await page
      .locator('[data-testid="permits-table"] tr[data-key="partner-globex"]')
      .getByText("1 / 3")
      .waitFor();
    // The timeline of the first key draws its two permit grants, held now, as soon as the
    // permits show (even before the audit writer's batch is readable).
    assert.equal(await page.locator("#timeline-key").inputValue(), "partner-acme");
    await page
      .getByTestId("timeline-count")
      .getByText(/^2 permit grants,/)
      .waitFor({ timeout: 5_000 });
    assert.equal(
      await page.locator('[data-testid="key-timeline"] .timeline-bar.end-live').count(),
      2,
    );
    await shot("08e-semaphore-permits");
    // A release shows without a reload (live events, 2 s polling the floor).
    await two.release();
    await acme.getByTestId("permits-in-use").getByText("1 / 3").waitFor({ timeout: 5_000 });
    await one.release();
    // An operator force-releases the other key's permit grant by its lockId: the holder loses it.
    const globex = page.locator('[data-testid="permits-table"] tr[data-key="partner-globex"]');
    await globex.getByRole("button", { name: /Force release permit grant/ }).click();
    const dialog = page.getByRole("alertdialog", { name: "Force release this permit grant?" });
    await dialog.getByLabel(/Reason/).fill("partner sync wedged, INC-4714");
    await dialog.getByRole("button", { name: "Force release" }).click();
    await page
      .getByTestId("release-notice")
      .getByText(/the permit grant of partner-globex/)
      .waitFor();
    await globex.waitFor({ state: "detached", timeout: 5_000 });
    assert.ok(await lostWithin(single.signal, 15_000), "the permit is lost after a force-release");
    await page.goto(`${stack.webUrl}/resources`);
    await page.getByLabel("Search by name").fill("e2e:");
    const listed = page.getByTestId("resources-table").locator("tr", { hasText: pool });
    assert.match(await listed.getByTestId("resource-kind").innerText(), /semaphore ×3/);
    const mutexRow = page.getByTestId("resources-table").locator("tr", { hasText: resource });
    assert.match(await mutexRow.getByTestId("resource-kind").innerText(), /mutex/);
    await shot("08b-resources");
  });

  void it("registers a read-write lock without writer preference; shows its readers, a waiting writer, then the writer", async () => {
    const config = `e2e:tenant-config-${Date.now().toString(36)}`;
    await page.goto(`${stack.webUrl}/resources/new`);
    await page.getByLabel("Name").fill(config);
    await page.getByLabel("Tenant").fill(stack.tenant.id);
    await page.getByLabel("kind", { exact: true }).selectOption("rwlock");
    // A read-write lock has no permits; its writer preference is on unless turned off.
    assert.equal(await page.getByLabel("permits", { exact: true }).count(), 0);
    const preference = page.getByLabel("writerPreference");
    assert.equal(await preference.isChecked(), true);
    await preference.uncheck();
    await page
      .getByLabel("Description")
      .fill("E2E: a tenant's config, read by many, rewritten rarely");
    await shot("08f-rwlock-form");
    await page.getByRole("button", { name: "Register" }).click();
    await page.waitForURL(new RegExp(`/resources/${encodeURIComponent(config)}$`));
    await page.getByRole("heading", { name: /Readers and writers/ }).waitFor();
    await page.getByTestId("policy-writerPreference").getByText("off").waitFor();

    const readerA = await locks.rw("read", config, "tenant-7", "render-1");
    const readerB = await locks.rw("read", config, "tenant-7", "render-2");
    assert.equal(readerA.fence, readerB.fence, "readers of one generation share a fence");
    const writing = locks.rw("write", config, "tenant-7", "migrate-1", 30_000);
    const key = page.locator('[data-testid="rw-table"] tr[data-key="tenant-7"]');
    await key.getByTestId("rw-readers").getByText("2", { exact: true }).waitFor({ timeout: 5_000 });
    assert.equal(await key.getByTestId("rw-read-fence").innerText(), readerA.fence);
    assert.match(await key.getByTestId("rw-state").innerText(), /readers hold it/);
    const readerRows = page.locator('[data-testid="rw-table"] tr[data-mode="read"]');
    assert.equal(await readerRows.count(), 2);
    assert.match(await readerRows.first().innerText(), /e2e-billing-worker-1 \/ render-1/);
    // The writer waits for the readers: listed with the waiters.
    await page.getByTestId("waiters-table").getByText("migrate-1").waitFor({ timeout: 5_000 });
    // Without writer preference its wait stops no reader: a third one enters meanwhile.
    const readerC = await locks.rw("read", config, "tenant-7", "render-3");
    assert.equal(readerC.fence, readerA.fence);
    await key.getByTestId("rw-readers").getByText("3", { exact: true }).waitFor({ timeout: 5_000 });
    assert.equal(await key.getByTestId("rw-waiting-writers").innerText(), "0");
    // holder.list rows name their kind.
    const listed = page.getByTestId("holders-table").locator('tr[data-kind="read"]');
    await listed.nth(2).waitFor({ timeout: 5_000 });
    await page.getByTestId("rw-table").scrollIntoViewIfNeeded();
    await shot("08g-rwlock-readers", true);

    // Once the last reader leaves the writer is granted, with a fence above the readers'.
    await readerA.release();
    await readerB.release();
    await readerC.release();
    const writer = await writing;
    assert.ok(BigInt(writer.fence ?? "0") > BigInt(readerA.fence ?? "0"), "fences only grow");
    const writerRow = page.locator(`[data-testid="rw-table"] tr[data-lock-id="${writer.lockId}"]`);
    await writerRow.waitFor({ timeout: 5_000 });
    assert.match(await writerRow.innerText(), /write[\s\S]*migrate-1/);
    // The key's timeline draws the three reads and the write.
    await page
      .getByTestId("timeline-count")
      .getByText(/^4 read\/write grants,/)
      .waitFor({ timeout: 10_000 });

    // An operator force-releases the write grant by its lockId: the holder loses it.
    await writerRow.getByRole("button", { name: /Force release write grant/ }).click();
    const dialog = page.getByRole("alertdialog", { name: "Force release this write grant?" });
    await dialog.getByLabel(/Reason/).fill("migration stuck on a dead host, INC-4713");
    await shot("08h-rwlock-force-release-dialog");
    await dialog.getByRole("button", { name: "Force release" }).click();
    await page
      .getByTestId("release-notice")
      .getByText(/the write grant of tenant-7/)
      .waitFor();
    await writerRow.waitFor({ state: "detached", timeout: 5_000 });
    assert.ok(
      await lostWithin(writer.signal, 15_000),
      "the writer's lease is lost after a force-release",
    );
    await page.goto(`${stack.webUrl}/resources`);
    await page.getByLabel("Search by name").fill("e2e:tenant-config");
    const row = page.getByTestId("resources-table").locator("tr", { hasText: config });
    assert.match(
      await row.getByTestId("resource-kind").innerText(),
      /rwlock\s+no writer preference/,
    );
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
