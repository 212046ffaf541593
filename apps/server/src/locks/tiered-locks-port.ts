/**
 * The tier facade as the server uses it: the members of `@warden/core`'s `TieredLocks`
 * the routers and services call, and nothing else (docs/decisions/0011). Production
 * passes core's class (opened by `openTieredLocks`); a change to those members in core
 * is a compile error here.
 */
import type { TieredLocks as CoreTieredLocks } from "@warden/core";

/** Lock operations routed to the tier the controller decided. */
export type TieredLocks = Pick<
  CoreTieredLocks,
  | "tier"
  | "acquire"
  | "leaveQueue"
  | "readQueue"
  | "release"
  | "extend"
  | "inspect"
  | "inspectDelay"
  | "list"
  | "forceRelease"
  | "snapshot"
  | "history"
  | "override"
  | "onTierChange"
  | "probeReady"
  | "mirrorStats"
  | "close"
>;
