/**
 * The processes whose CPU a cell reports: the load generator (clients, SDK), the Warden
 * server, redis-server, mariadbd, and the bench coordinator itself (timers and IPC only).
 */
export const PROCESS_ROLES = ["loadgen", "server", "redis", "mysql", "bench"] as const;

/** One of {@link PROCESS_ROLES}. */
export type ProcessRole = (typeof PROCESS_ROLES)[number];

/** CPU time per process over a span, in ms; a role is missing when its pid is unknown. */
export type CpuByRole = Partial<Record<ProcessRole, number>>;
