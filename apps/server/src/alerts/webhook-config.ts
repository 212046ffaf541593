import { z } from "zod";

/** `alertmanager`: Alertmanager's `POST /api/v2/alerts` body; `json`: Warden's own. */
export type WebhookFormat = "alertmanager" | "json";

/** One configured receiver of alerts. */
export interface WebhookConfig {
  /** Shown in metrics and the console instead of the URL (which may carry a secret). */
  readonly name: string;
  readonly url: string;
  readonly format: WebhookFormat;
  /**
   * A still-firing alert is sent again this often, in ms. Alertmanager resolves an alert
   * it has not heard of for its `resolve_timeout`, so its default is short (60 s); a
   * `json` receiver hears of a firing alert again every 4 h.
   */
  readonly repeatMs: number;
  /** Extra request headers (e.g. Authorization). */
  readonly headers: Readonly<Record<string, string>>;
}

const REPEAT_DEFAULT_MS: Record<WebhookFormat, number> = {
  alertmanager: 60_000,
  json: 4 * 3_600_000,
};

function isHttpUrl(value: string): boolean {
  try {
    return ["http:", "https:"].includes(new URL(value).protocol);
  } catch {
    return false;
  }
}
const httpUrl = z.string().refine(isHttpUrl, "must be an http:// or https:// URL");
const format = z.enum(["alertmanager", "json"]);
const entry = z
  .object({
    name: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/, "letters, digits and _.- (at most 64)")
      .optional(),
    url: httpUrl,
    format: format.default("json"),
    repeatMs: z
      .number()
      .int()
      .min(1_000)
      .max(7 * 86_400_000)
      .optional(),
    headers: z.record(z.string(), z.string()).default({}),
  })
  .strict();

/** Why `WARDEN_ALERT_WEBHOOKS` was refused. */
export class WebhookConfigError extends Error {
  override readonly name = "WebhookConfigError";
}

/**
 * Reads `WARDEN_ALERT_WEBHOOKS`: a JSON array of `{url, format?, name?, repeatMs?,
 * headers?}`, or a comma-separated list of `format=url` (or bare URLs, format `json`).
 * Empty or unset: no webhooks. Names default to `<format>-<n>` and must be unique.
 */
export function parseWebhooks(text: string | undefined): WebhookConfig[] {
  const trimmed = (text ?? "").trim();
  if (trimmed === "") return [];
  let raw: unknown;
  if (trimmed.startsWith("[")) {
    try {
      raw = JSON.parse(trimmed);
    } catch {
      throw new WebhookConfigError("WARDEN_ALERT_WEBHOOKS: not valid JSON");
    }
  } else {
    raw = trimmed
      .split(",")
      .map((item) => item.trim())
      .filter((item) => item.length > 0)
      .map((item) => {
        const cut = item.indexOf("=");
        return cut > 0 && !item.slice(0, cut).includes(":")
          ? { format: item.slice(0, cut), url: item.slice(cut + 1) }
          : { url: item };
      });
  }
  const parsed = z.array(entry).max(20).safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new WebhookConfigError(
      `WARDEN_ALERT_WEBHOOKS${issue?.path.length ? `[${issue.path.join(".")}]` : ""}: ${issue?.message ?? "invalid"}`,
    );
  }
  const hooks = parsed.data.map(
    (hook, index): WebhookConfig => ({
      name: hook.name ?? `${hook.format}-${index + 1}`,
      url: hook.url,
      format: hook.format,
      repeatMs: hook.repeatMs ?? REPEAT_DEFAULT_MS[hook.format],
      headers: hook.headers,
    }),
  );
  const names = new Set(hooks.map((hook) => hook.name));
  if (names.size !== hooks.length)
    throw new WebhookConfigError("WARDEN_ALERT_WEBHOOKS: webhook names must be unique");
  return hooks;
}
