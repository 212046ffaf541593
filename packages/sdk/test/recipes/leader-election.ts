import type { Campaign, Warden } from "@warden/sdk";

/**
 * Runs `lead` on one instance of the service at a time: the elected leader. `lead` gets
 * the term (larger than every earlier leader's: pass it as the fence of the leader's
 * writes) and a signal that aborts when the term ends, before any other instance can be
 * elected; it should return once the signal has aborted. After a lost lease the instance
 * campaigns again; `campaign.resign()` on shutdown hands over at once.
 */
export function leadWhenElected(
  warden: Warden,
  service: string,
  lead: (term: string, signal: AbortSignal) => Promise<void>,
  log: (line: string) => void = console.log,
): Promise<Campaign> {
  return warden.campaign("service:leader", service, {
    leaseMs: 3_000,
    onElected: (term, { signal }) => lead(term, signal), // a rejection goes to onError
    onDemoted: (reason, term) => log(`${service}: term ${term} ended (${reason})`),
    onError: (error) => log(`${service}: ${String(error)}`),
  });
}

/** Logs who leads the campaign's service each time that changes, until `signal` aborts. */
export async function logLeaders(
  campaign: Campaign,
  signal: AbortSignal,
  log: (line: string) => void = console.log,
): Promise<void> {
  for await (const leader of campaign.watch({ intervalMs: 500, signal })) {
    if (!leader) log("no leader");
    else log(`${leader.holder.clientId} leads, term ${leader.term}, since ${leader.since}`);
  }
}
