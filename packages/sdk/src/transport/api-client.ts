import type { inferRouterInputs, inferRouterOutputs } from "@trpc/server";
import type { AppRouter } from "@warden/server";
import type { LockSocket } from "./lock-socket.js";

type Inputs = inferRouterInputs<AppRouter>;
type Outputs = inferRouterOutputs<AppRouter>;

/** Per-call options: how long the reply may take before the outcome counts as unknown. */
export interface CallOptions {
  readonly timeoutMs: number;
}

/** One procedure of the server's API. */
export interface ProcedureClient<I, O> {
  query(input: I, options: CallOptions): Promise<O>;
  mutate(input: I, options: CallOptions): Promise<O>;
}

/**
 * The typed API of the server as the SDK calls it, `api.lock.acquire.mutate(input, {
 * timeoutMs })`, typed from the server's router (types only: nothing of the server is
 * loaded). Queries and mutations only; the SDK uses no subscription.
 */
export type ApiClient = {
  readonly [R in keyof Inputs]: {
    readonly [P in keyof Inputs[R]]: ProcedureClient<
      Inputs[R][P],
      Outputs[R][P & keyof Outputs[R]]
    >;
  };
};

/** Builds the API over one socket; procedure handles are made once per path. */
export function apiOver(socket: Pick<LockSocket, "request">): ApiClient {
  const procedures = new Map<string, ProcedureClient<unknown, unknown>>();
  const procedure = (path: string): ProcedureClient<unknown, unknown> => {
    let handle = procedures.get(path);
    if (!handle) {
      handle = {
        query: (input, options) => socket.request("query", path, input, options.timeoutMs),
        mutate: (input, options) => socket.request("mutation", path, input, options.timeoutMs),
      };
      procedures.set(path, handle);
    }
    return handle;
  };
  const routers = new Map<string, unknown>();
  return new Proxy({} as ApiClient, {
    get: (_, router) => {
      if (typeof router !== "string") return undefined;
      let handle = routers.get(router);
      if (!handle) {
        handle = new Proxy(
          {},
          {
            get: (__, name) =>
              typeof name === "string" ? procedure(`${router}.${name}`) : undefined,
          },
        );
        routers.set(router, handle);
      }
      return handle;
    },
  });
}
