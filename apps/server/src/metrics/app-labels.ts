import type { TenantPrincipal } from "../auth/principal.js";

/** Most distinct `app` label values a process hands out; later applications count as "other". */
export const MAX_APP_LABELS = 100;
/** The label of applications past the cap. */
export const OTHER_APP = "other";
/** The label of a key without a name. */
export const UNNAMED_APP = "unnamed";
// Prometheus takes any UTF-8; dashboards do not want a paragraph.
const MAX_LABEL_CHARS = 64;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;

/**
 * The `app` label of the lock metrics: the calling API key's name, so a dashboard shows
 * which application acquires, waits and fails. Cardinality is bounded: the first
 * {@link MAX_APP_LABELS} distinct names keep theirs, later ones share "other" (issue 17,
 * docs/decisions/0062-lock-metrics-children-and-app-label.md).
 */
export class AppLabels {
  private readonly byName = new Map<string, string>();

  constructor(private readonly max: number = MAX_APP_LABELS) {}

  /** The label of `principal`'s application. */
  of(principal: TenantPrincipal): string {
    const name = principal.keyName;
    if (name === undefined || name.length === 0) return UNNAMED_APP;
    const known = this.byName.get(name);
    if (known !== undefined) return known;
    // Past the cap every new name is "other"; the map itself stops growing too.
    if (this.byName.size >= this.max) return OTHER_APP;
    const label = name.replace(CONTROL, " ").slice(0, MAX_LABEL_CHARS) || UNNAMED_APP;
    this.byName.set(name, label);
    return label;
  }
}
