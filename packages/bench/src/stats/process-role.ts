/**
 * The processes whose CPU a cell reports: the load generator (clients, SDK), the Warden
 * server, redis-server, mariadbd, and the bench coordinator itself (timers and IPC only).
 * `server` is every server instance the bench started; `serverPeers` is the part of it
 * spent by instances 2..n (present only when the plan starts a fleet): in a cell whose
 * clients all talk to the first instance, that is what following the fleet costs.
 */
export const PROCESS_ROLES = [
  "loadgen",
  "server",
  "serverPeers",
  "redis",
  "mysql",
  "bench",
] as const;

/** One of {@link PROCESS_ROLES}. */
export type ProcessRole = (typeof PROCESS_ROLES)[number];

/** CPU time per process over a span, in ms; a role is missing when its pid is unknown. */
export type CpuByRole = Partial<Record<ProcessRole, number>>;
