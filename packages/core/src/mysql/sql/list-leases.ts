import { LEASE_COLUMNS } from "./lease-columns.js";

/**
 * One page of a resource's live leases in id order, after the cursor id (index
 * `(resource, id)`). Parameters: 1 resource, 2 cursor id (0 for the first page),
 * 3 page size + 1 (the extra row says whether another page follows).
 */
export const LIST_LEASES = `SELECT ${LEASE_COLUMNS} FROM mysql_lock
  WHERE resource = ? AND id > ? AND expires_at > NOW(3)
  ORDER BY id LIMIT ?`;
