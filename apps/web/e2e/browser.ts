import { chromium, type Browser } from "playwright-core";

/** System Chromium (Debian's `chromium`); Playwright's own browser downloads cannot work here. */
export const CHROMIUM_PATH = process.env.WARDEN_E2E_CHROMIUM ?? "/usr/bin/chromium";

/** Headless Chromium with nothing that phones home. */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}
