/**
 * The body of a proxy failure (the Warden server is unreachable) in tRPC's error shape,
 * so the console shows "Warden server unreachable" instead of a JSON parse error. A
 * batched call (`?batch=1`, procedures joined by commas) needs one error per procedure.
 */
export function proxyErrorBody(
  pathAfterTrpc: string,
  search: URLSearchParams,
  message: string,
): string {
  const error = {
    error: {
      message,
      code: -32603,
      data: { code: "BAD_GATEWAY", httpStatus: 502, path: null as string | null },
    },
  };
  const paths = decodeURIComponent(pathAfterTrpc.replace(/^\/+/, "")).split(",");
  if (search.get("batch") !== "1") {
    return JSON.stringify({
      error: { ...error.error, data: { ...error.error.data, path: paths[0] ?? null } },
    });
  }
  return JSON.stringify(
    paths.map((path) => ({ error: { ...error.error, data: { ...error.error.data, path } } })),
  );
}
