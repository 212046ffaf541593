/**
 * `@warden/contract/wire`: the zod schemas of the lock API's inputs and the shapes of its
 * replies, shared by the server (tRPC and the batched protocol), the SDK and the console.
 * Kept apart from the package root so that the lock engine does not load zod.
 */
export { API_LIMITS } from "./limits.js";
export * from "./common.js";
export * from "./lock.js";
