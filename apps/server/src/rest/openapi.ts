import { z } from "zod";
import {
  API_LIMITS,
  businessKeySchema,
  fenceSchema,
  holderIdSchema,
  leaseMsSchema,
  lockIdSchema,
  resourceNameSchema,
  tierSchema,
  waitIdSchema,
  waitMsSchema,
} from "@warden/contract/wire";
import { COMMON_ERRORS, ROUTES } from "./routes.js";
import {
  acquireGrantedSchema,
  acquireRefusedSchema,
  errorReplySchema,
  holderSchema,
  leaseViewSchema,
  type paramSchemas,
  permitGrantedSchema,
  permitRefusedSchema,
  permitSchema,
  rwGrantedSchema,
  rwGrantSchema,
  rwRefusedSchema,
  waiterSchema,
} from "./schemas.js";
import { HTTP_STATUS } from "./status.js";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

const REF = "#/components/schemas/";

/** Shared schemas with a name in the document, and what JSON Schema cannot say about them. */
const NAMED: readonly (readonly [string, z.ZodType, string])[] = [
  [
    "ResourceName",
    resourceNameSchema,
    "A registered resource: letters, digits and `:._-`, starting with a letter or digit.",
  ],
  [
    "BusinessKey",
    businessKeySchema,
    `The lock's key inside its resource: any text of 1..${API_LIMITS.maxBusinessKeyBytes} UTF-8 bytes ` +
      "after NFC normalization, without control characters, U+2028/U+2029, `{`, `}`, `|` or lone surrogates.",
  ],
  [
    "HolderId",
    holderIdSchema,
    `An ownerId or clientId: 1..${API_LIMITS.maxHolderIdBytes} UTF-8 bytes after NFC, same characters as BusinessKey.`,
  ],
  ["LockId", lockIdSchema, "The id of one grant, as acquire returned it."],
  [
    "Fence",
    fenceSchema,
    "The fencing token: a decimal unsigned 64-bit integer that only grows per key. Null on the local tier.",
  ],
  ["Tier", tierSchema, "Where a grant was made; release and extend send back the grant's tier."],
  ["LeaseMs", leaseMsSchema, "A lease in ms; at most the resource's maxLeaseMs."],
  ["WaitMs", waitMsSchema, "How long an acquire may wait server-side, in ms; 0 answers at once."],
  ["WaitId", waitIdSchema, "A client-chosen id of one waiting acquire, to withdraw it."],
  ["Holder", holderSchema, "Who holds a lock: the SDK instance (clientId) and the task (ownerId)."],
  ["LeaseView", leaseViewSchema, "A live lease as the store reports it."],
  ["Waiter", waiterSchema, "An acquire waiting on this instance."],
  ["AcquireGranted", acquireGrantedSchema, "A grant: keep lockId, fence and tier."],
  [
    "AcquireRefused",
    acquireRefusedSchema,
    "Refused at once: who holds the key and for how long still (ttlMs).",
  ],
  [
    "Permit",
    permitSchema,
    "One live semaphore permit grant: `permits` of the key's total, with its own lockId and fence.",
  ],
  [
    "PermitGranted",
    permitGrantedSchema,
    "A permit grant: keep lockId and tier; `inUse` counts the key's permits after it.",
  ],
  [
    "PermitRefused",
    permitRefusedSchema,
    "Refused at once: how many permits are in use, whether a fair queue is ahead (`queued`), and " +
      "when enough lapse if nobody releases (`retryAfterMs`, 0 when unknown).",
  ],
  [
    "RwGrant",
    rwGrantSchema,
    "One live read-write lock grant: `mode` read (readers of one generation share a fence) or " +
      "write (fenced above every grant on the key before it).",
  ],
  [
    "RwGranted",
    rwGrantedSchema,
    "A read or write grant: keep lockId and tier; `reentered` when the same holder entered again in " +
      "the same mode.",
  ],
  [
    "RwRefused",
    rwRefusedSchema,
    "Refused at once: `write-held` (a writer holds the key), `read-held` (readers do, for a writer) " +
      "or `writer-waiting` (a waiting writer stops new readers), who blocks it (`holders`, empty for " +
      "`writer-waiting`) and when a retry can first succeed if nobody releases (`retryAfterMs`).",
  ],
  [
    "Error",
    errorReplySchema,
    "A typed error: `code` and `details` are the contract (branch on them), `message` is for people.",
  ],
];

function stripIds(schema: JsonObject): JsonObject {
  const { $schema: _schema, $id: _id, ...rest } = schema;
  return rest;
}

function componentSchemas(): JsonObject {
  const registry = z.registry<{ id: string }>();
  const descriptions = new Map<string, string>();
  for (const [id, schema, description] of NAMED) {
    registry.add(schema, { id });
    descriptions.set(id, description);
  }
  for (const route of ROUTES) {
    if (route.body && !registry.has(route.body.schema))
      registry.add(route.body.schema, { id: route.body.id });
    if (!registry.has(route.reply.schema)) registry.add(route.reply.schema, { id: route.reply.id });
  }
  const { schemas } = z.toJSONSchema(registry, {
    target: "draft-2020-12",
    io: "input",
    uri: (id) => `${REF}${id}`,
  }) as unknown as { schemas: Record<string, JsonObject> };
  const out: JsonObject = {};
  for (const id of Object.keys(schemas).sort()) {
    const description = descriptions.get(id);
    out[id] = { ...stripIds(schemas[id]!), ...(description ? { description } : {}) };
  }
  return out;
}

const json = (schema: JsonObject): JsonObject => ({ "application/json": { schema } });
const ref = (id: string): JsonObject => ({ $ref: `${REF}${id}` });

const PARAM_REFS: Readonly<Record<keyof typeof paramSchemas, string>> = {
  resource: "ResourceName",
  businessKey: "BusinessKey",
  waitId: "WaitId",
};

function errorResponses(codes: readonly string[]): JsonObject {
  const byStatus = new Map<number, string[]>();
  for (const code of codes) {
    const status = HTTP_STATUS[code as keyof typeof HTTP_STATUS];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const out: JsonObject = {};
  for (const status of [...byStatus.keys()].sort((a, b) => a - b)) {
    const names = byStatus.get(status)!;
    const retry = status === 429 || status === 503;
    out[String(status)] = {
      description: names.join(", "),
      ...(retry
        ? {
            headers: {
              "Retry-After": {
                description: "seconds to wait, when the error's details say (`retryAfterMs`)",
                schema: { type: "integer" },
              },
            },
          }
        : {}),
      content: json(ref("Error")),
    };
  }
  return out;
}

/** The OpenAPI 3.1 document of the HTTP/JSON lock API, built from the routes and the contract's schemas. */
export function openApiDocument(): JsonObject {
  const paths: JsonObject = {};
  for (const route of ROUTES) {
    const parameters: Json[] = [];
    for (const name of route.path.match(/\{(\w+)\}/g) ?? []) {
      const key = name.slice(1, -1) as keyof typeof paramSchemas;
      parameters.push({
        name: key,
        in: "path",
        required: true,
        description:
          key === "resource" ? "the resource name" : "the waitId the acquire was sent with",
        schema: ref(PARAM_REFS[key]),
      });
    }
    for (const param of route.query) {
      parameters.push({
        name: param.name,
        in: "query",
        required: param.required,
        description: param.description,
        schema: ref(PARAM_REFS[param.name]),
      });
    }
    parameters.push({
      name: "x-warden-client-id",
      in: "header",
      required: route.clientId === "required",
      description:
        "The calling instance (e.g. host name and process), shown as the holder's clientId; " +
        "1..128 UTF-8 bytes.",
      schema: ref("HolderId"),
    });
    const errors = [...new Set([...COMMON_ERRORS, ...route.errors])];
    const operation: JsonObject = {
      operationId: route.operationId,
      summary: route.summary,
      description: route.description,
      parameters,
      ...(route.body ? { requestBody: { required: true, content: json(ref(route.body.id)) } } : {}),
      responses: {
        "200": { description: route.reply.description, content: json(ref(route.reply.id)) },
        ...errorResponses(errors),
        ...(route.body
          ? {
              "413": {
                description: "INVALID_ARGUMENT: the body is over the server's limit",
                content: json(ref("Error")),
              },
            }
          : {}),
      },
    };
    const item = (paths[route.path] ?? {}) as JsonObject;
    item[route.method.toLowerCase()] = operation;
    paths[route.path] = item;
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Warden HTTP/JSON lock API",
      version: "1",
      description:
        "Lease locks, semaphore permits and read-write locks with fencing tokens over plain HTTP and JSON. " +
        "Authenticate with a tenant " +
        "API key (`Authorization: Bearer <key>`); name the calling instance with " +
        "`x-warden-client-id`. Errors are `{ error: { code, message, details } }` with an HTTP " +
        "status per code. Generated from the wire contract's zod schemas " +
        "(apps/server/src/rest/); regenerate docs/openapi.json with " +
        "`pnpm --filter @warden/server exec tsx scripts/gen-openapi.ts`.",
    },
    security: [{ apiKey: [] }],
    paths,
    components: {
      securitySchemes: {
        apiKey: { type: "http", scheme: "bearer", description: "a tenant API key" },
      },
      schemas: componentSchemas(),
    },
  };
}

let text: string | undefined;

/** The document as served at `/openapi.json` (built once). */
export function openApiText(): string {
  return (text ??= JSON.stringify(openApiDocument()));
}
