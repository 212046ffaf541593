export { fencedUpdate } from "./fenced-update.js";
export { claimFence } from "./claim-fence.js";
export { claimedUpdate } from "./claimed-update.js";
export { versionedUpdate } from "./versioned-update.js";
export {
  MYSQL_GUARD_COLUMNS,
  type MysqlGuardColumns,
  type MysqlGuardTarget,
  type MysqlWriteTarget,
  type VersionedWriteTarget,
  type SqlExecutor,
  type SqlValue,
} from "./mysql-guard-types.js";
