/** The API's limits live in the wire contract; re-exported for the server's imports. */
export { API_LIMITS } from "@warden/contract/wire";
