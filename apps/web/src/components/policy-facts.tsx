import type { ReactNode } from "react";
import type { ResourceDetailView } from "../hooks/use-resource-detail";
import { formatDuration } from "../lib/format-time";

function Fact({
  name,
  value,
  note,
}: {
  readonly name: string;
  readonly value: ReactNode;
  readonly note?: string;
}) {
  return (
    <div className="fact" data-testid={`policy-${name}`}>
      <dt className="mono">{name}</dt>
      <dd>
        <span className="num">{value}</span>
        {note ? <span className="fact-note">{note}</span> : null}
      </dd>
    </div>
  );
}

const ms = (value: number) => `${value} ms (${formatDuration(value)})`;

/**
 * A resource's policy as a compact list: each field's name on its own line, its value
 * under it and what it means in small print, so long names and explanations do not wrap
 * into a narrow column.
 */
export function PolicyFacts({
  resource,
}: {
  readonly resource: NonNullable<ResourceDetailView["resource"]>;
}) {
  return (
    <dl className="facts-stacked">
      <Fact name="tenant" value={resource.tenantId} />
      <Fact
        name="kind"
        value={
          resource.kind === "semaphore"
            ? `semaphore, ${resource.permits ?? "?"} permits per key`
            : resource.kind
        }
        note={
          resource.kind === "mutex"
            ? "one holder per key; for leader election the holder leads, its fence is the term"
            : resource.kind === "rwlock"
              ? "many readers (sharing one fence) or one writer per key"
              : undefined
        }
      />
      {resource.kind === "rwlock" ? (
        <Fact
          name="writerPreference"
          value={resource.writerPreference ? "on" : "off"}
          note={
            resource.writerPreference
              ? "a waiting writer stops new readers: writers do not starve"
              : "readers keep entering while a writer waits: a writer waits for a moment with no reader"
          }
        />
      ) : null}
      <Fact name="defaultLeaseMs" value={ms(resource.defaultLeaseMs)} />
      <Fact name="maxLeaseMs" value={ms(resource.maxLeaseMs)} />
      <Fact name="maxRenewals" value={resource.maxRenewals ?? "unlimited"} />
      <Fact
        name="expectedHoldMs"
        value={resource.expectedHoldMs === null ? "—" : ms(resource.expectedHoldMs)}
        note={resource.expectedHoldMs === null ? "no long-hold alert" : "alert past 3×"}
      />
      {/* A mutex's alone: the registry refuses both on a semaphore or a read-write lock. */}
      {resource.kind === "mutex" ? (
        <>
          <Fact
            name="releaseOnDisconnectMs"
            value={
              resource.releaseOnDisconnectMs === null ? "—" : ms(resource.releaseOnDisconnectMs)
            }
            note={
              resource.releaseOnDisconnectMs === null
                ? "a gone holder keeps its locks until their TTL"
                : "a gone holder's locks are released once it is gone that long"
            }
          />
          <Fact
            name="lockDelayMs"
            value={resource.lockDelayMs === 0 ? "0 (none)" : ms(resource.lockDelayMs)}
            note={
              resource.lockDelayMs === 0
                ? "a key is free as soon as its lease ends"
                : "no grant of a key for that long after its lease expired or was force-released"
            }
          />
        </>
      ) : null}
      <Fact
        name="degrade"
        value={resource.degrade ? "yes, to MySQL" : "no"}
        note={resource.degrade ? undefined : "refused while Redis is down"}
      />
      <Fact
        name="localFallback"
        value={resource.localFallback === "allow" ? "allow" : "deny"}
        note={
          resource.localFallback === "allow"
            ? "unfenced in-process locks when Redis and MySQL are down"
            : "fail-closed"
        }
      />
      {resource.kind === "rwlock" ? null : (
        <Fact name="fair" value={resource.fair ? "yes (FIFO)" : "no"} />
      )}
      {/* Every kind's: a mutex's grants, a semaphore's permits and an rwlock's read and write grants wait for the replicas. */}
      <Fact name="waitReplicas" value={resource.waitReplicas} />
    </dl>
  );
}
