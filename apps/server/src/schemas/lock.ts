/** The lock API's input schemas live in the wire contract; re-exported for the server and console. */
export {
  acquireInputSchema,
  releaseInputSchema,
  extendInputSchema,
  lockKeyInputSchema,
  cancelWaitInputSchema,
  staleFenceReportSchema,
  holderListInputSchema,
  forceReleaseInputSchema,
} from "@warden/contract/wire";
