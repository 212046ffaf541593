/** The API's primitive schemas live in the wire contract; re-exported for the server and console. */
export {
  boundedText,
  resourceNameSchema,
  businessKeySchema,
  holderIdSchema,
  lockIdSchema,
  waitIdSchema,
  fenceSchema,
  leaseMsSchema,
  waitMsSchema,
  tierSchema,
  pageLimitSchema,
  cursorSchema,
  reasonSchema,
  tenantIdSchema,
  epochMsSchema,
} from "@warden/contract/wire";
