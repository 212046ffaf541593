/**
 * `@warden/server/schemas`: the zod schemas of the API's inputs, shared with the console
 * so that a form rejects exactly what the server would. Pure zod and the wire contract
 * (`@warden/contract/wire`): no server code.
 */
export { API_LIMITS } from "./limits.js";
export * from "./common.js";
export * from "./resource-policy.js";
export * from "./lock.js";
export * from "./admin.js";
