/** The typed error lives in the wire contract; re-exported for the server's imports. */
export { QuotaExceededError } from "@warden/contract";
