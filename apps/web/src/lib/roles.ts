/** An operator's role, weakest first (the server's `operatorRoleSchema`). */
export type OperatorRole = "viewer" | "operator" | "admin";

/** Whether `role` may act (force-release, override the tier, edit resources): operator or admin. */
export function canOperate(role: OperatorRole | null | undefined): boolean {
  return role === "operator" || role === "admin";
}
