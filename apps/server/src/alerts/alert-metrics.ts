import { Counter, Gauge, type Registry } from "prom-client";

/** Outcomes of one POST to a webhook. */
export type DeliveryOutcome = "delivered" | "retried" | "failed";

/**
 * The alerting metrics, registered on the server's registry (docs/decisions/0130):
 * deliveries by webhook name and outcome (`failed` = given up after every retry), and
 * whether this instance is the fleet's evaluator.
 */
export class AlertMetrics {
  private readonly deliveries: Counter<"webhook" | "outcome">;
  private readonly evaluator: Gauge;
  private readonly firing: Gauge<"severity">;

  constructor(registry: Registry) {
    const registers = [registry];
    this.deliveries = new Counter({
      name: "warden_alert_deliveries_total",
      help: "Alert webhook POSTs by webhook and outcome: delivered, retried (a failed attempt that is retried) or failed (given up after every retry).",
      labelNames: ["webhook", "outcome"],
      registers,
    });
    this.evaluator = new Gauge({
      name: "warden_alert_evaluator",
      help: "1 while this instance holds the alert evaluator lock and evaluates alerts for the fleet, else 0.",
      registers,
    });
    this.firing = new Gauge({
      name: "warden_alerts_firing",
      help: "Alerts firing by severity, as the evaluator last found them (0 on other instances).",
      labelNames: ["severity"],
      registers,
    });
  }

  delivery(webhook: string, outcome: DeliveryOutcome): void {
    this.deliveries.inc({ webhook, outcome });
  }

  setEvaluator(active: boolean): void {
    this.evaluator.set(active ? 1 : 0);
  }

  setFiring(counts: Readonly<Record<"critical" | "warning" | "info", number>>): void {
    for (const [severity, count] of Object.entries(counts)) this.firing.set({ severity }, count);
  }
}
