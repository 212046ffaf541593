import { apiUrl } from "../../../env";
import { parseReadiness, serverOriginOf } from "../../../lib/readyz";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/**
 * The server's public `/readyz` (no session needed): the tier the login page shows, and
 * the fallback when the console cannot read `tier.state` (e.g. a new login while MySQL
 * is down). Always 200 with `{ ready, tier, reachable }`; the client decides what it means.
 */
export async function GET(request: Request): Promise<Response> {
  const headers = { "content-type": "application/json", "cache-control": "no-store" };
  try {
    const upstream = await fetch(`${serverOriginOf(apiUrl())}/readyz`, {
      cache: "no-store",
      signal: AbortSignal.any([request.signal, AbortSignal.timeout(3_000)]),
    });
    const readiness = parseReadiness(await upstream.json());
    return new Response(JSON.stringify({ ...readiness, reachable: true }), { headers });
  } catch {
    return new Response(JSON.stringify({ ready: false, tier: null, reachable: false }), {
      headers,
    });
  }
}
