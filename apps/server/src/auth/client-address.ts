import { isIP } from "node:net";

function plain(address: string): string {
  // An IPv4 peer on a dual-stack socket reads as ::ffff:a.b.c.d.
  return address.startsWith("::ffff:") && isIP(address.slice(7)) === 4 ? address.slice(7) : address;
}

/**
 * The client's address: the socket's peer, unless the peer is one of `trustedProxies`
 * (e.g. the console's Next server), in which case the right-most `X-Forwarded-For` hop
 * that is not itself a trusted proxy. A hop that is not an IP address (a forged header)
 * is answered as `invalid:` plus the peer, so garbage never lands in a real address's
 * throttle bucket. Login throttles and session records use this address.
 */
export function clientAddress(
  peer: string | null,
  forwardedFor: string | undefined,
  trustedProxies: readonly string[],
): string | null {
  if (peer === null) return null;
  const from = plain(peer);
  if (!trustedProxies.includes(from) || forwardedFor === undefined) return from;
  const hops = forwardedFor
    .split(",")
    .map((hop) => plain(hop.trim()))
    .filter((hop) => hop.length > 0);
  for (let i = hops.length - 1; i >= 0; i -= 1) {
    const hop = hops[i]!;
    if (trustedProxies.includes(hop)) continue;
    return isIP(hop) === 0 ? `invalid:${from}` : hop;
  }
  return from;
}
