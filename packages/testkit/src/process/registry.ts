/** Something the testkit started and must stop at the end: a server or a group. */
export interface Stoppable {
  stop(): Promise<void>;
}

/** A running child as the registry sees it: enough to list and kill it synchronously. */
export interface TrackedChild {
  readonly pid: number;
  killSync(): void;
  kill9(): Promise<void>;
}

/** Everything this process started and has not cleaned up yet. */
export interface Registry {
  readonly children: Set<TrackedChild>;
  readonly servers: Set<Stoppable>;
  readonly tempDirs: Set<string>;
  /** Ports handed out by this process, so two parallel starts never get the same one. */
  readonly reservedPorts: Set<number>;
  exitHooksInstalled: boolean;
}

// Kept on globalThis because a test runner may evaluate this module more than once in
// one process; every copy must see the same children or exit hooks would miss some.
const REGISTRY_KEY = Symbol.for("@warden/testkit/registry");

/** The process-wide registry, created on first use. */
export function registry(): Registry {
  const holder = globalThis as { [REGISTRY_KEY]?: Registry };
  holder[REGISTRY_KEY] ??= {
    children: new Set(),
    servers: new Set(),
    tempDirs: new Set(),
    reservedPorts: new Set(),
    exitHooksInstalled: false,
  };
  return holder[REGISTRY_KEY];
}
