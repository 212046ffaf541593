import { Gauge, type Registry } from "prom-client";

/**
 * `warden_instances`: how many server instances this one saw in the registry at its last
 * beat (itself included; 1 while Redis does not answer). Every instance reports the
 * fleet's size, so a dashboard takes the max over instances, not the sum.
 */
export function registerInstancesGauge(registry: Registry, fleetSize: () => number): void {
  new Gauge({
    name: "warden_instances",
    help: "Server instances in the fleet as this instance saw it at its last registry beat (itself included; 1 while Redis does not answer)",
    registers: [registry],
    collect() {
      this.set(fleetSize());
    },
  });
}
