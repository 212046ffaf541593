import { randomBytes } from "node:crypto";
import { context, propagation, SpanKind, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from "@opentelemetry/sdk-trace-base";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HttpServerHandle } from "../src/http/server.js";
import {
  registerResource,
  startHarness,
  type Harness,
  type TenantHandle,
} from "./support/harness.js";
import { serveHarness } from "./support/lock-client.js";

/*
 * W3C trace context on the HTTP paths, against a real server (Redis, MariaDB): a REST or
 * tRPC HTTP call's `traceparent`/`tracestate` headers parent the server's use-case spans;
 * a malformed header is ignored and the call answered as without one.
 */

let h: Harness;
let http: HttpServerHandle;
let tenant: TenantHandle;
const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });

beforeAll(async () => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  h = await startHarness();
  http = await serveHarness(h);
  tenant = await h.tenant();
});
afterAll(async () => {
  await http?.close();
  await h?.close();
  trace.disable();
  context.disable();
  propagation.disable();
  await provider.shutdown();
});

const hex = (bytes: number) => randomBytes(bytes).toString("hex");

function serverSpans(name: string): ReadableSpan[] {
  return exporter
    .getFinishedSpans()
    .filter((span) => span.name === name && span.kind === SpanKind.SERVER);
}

async function post(path: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${http.url}${path}`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${tenant.key}`,
      "x-warden-client-id": "otel-http",
      "content-type": "application/json",
      ...headers,
    },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const rest = (resource: string, action: string) =>
  `/v1/locks/${encodeURIComponent(resource)}/${action}`;

describe("trace context on the HTTP paths", () => {
  it("parents a REST acquire's and release's server spans on the caller's traceparent, with its tracestate", async () => {
    const resource = await registerResource(tenant);
    const traceId = hex(16);
    const callerSpan = hex(8);
    const headers = {
      traceparent: `00-${traceId}-${callerSpan}-01`,
      tracestate: "vendor=abc",
    };
    exporter.reset();
    const grant = await post(
      rest(resource, "acquire"),
      { businessKey: "k", ownerId: "o" },
      headers,
    );
    expect(grant.status, JSON.stringify(grant.body)).toBe(200);
    expect(grant.body.granted).toBe(true);
    const released = await post(
      rest(resource, "release"),
      { businessKey: "k", lockId: grant.body.lockId, tier: grant.body.tier },
      headers,
    );
    expect(released.status, JSON.stringify(released.body)).toBe(200);
    await provider.forceFlush();

    const [acquire] = serverSpans("warden.acquire");
    expect(acquire!.spanContext().traceId).toBe(traceId);
    expect(acquire!.parentSpanContext?.spanId).toBe(callerSpan);
    expect(acquire!.spanContext().traceState?.get("vendor")).toBe("abc");
    expect(acquire!.attributes).toMatchObject({
      "warden.resource": resource,
      "warden.business_key": "k",
      "warden.tenant": tenant.id,
      "warden.lock_id": grant.body.lockId,
      "warden.fence": grant.body.fence,
      "warden.tier": grant.body.tier,
      "warden.outcome": "granted",
    });
    const [release] = serverSpans("warden.release");
    expect(release!.spanContext().traceId).toBe(traceId);
    expect(release!.parentSpanContext?.spanId).toBe(callerSpan);
    expect(release!.attributes).toMatchObject({
      "warden.lock_id": grant.body.lockId,
      "warden.outcome": "released",
    });
  });

  it("parents a REST acquire that waits for a release on the caller's span", async () => {
    const resource = await registerResource(tenant);
    const first = await post(rest(resource, "acquire"), { businessKey: "w", ownerId: "first" });
    expect(first.body.granted).toBe(true);
    const traceId = hex(16);
    const callerSpan = hex(8);
    exporter.reset();
    const waiting = post(
      rest(resource, "acquire"),
      { businessKey: "w", ownerId: "second", waitMs: 10_000 },
      { traceparent: `00-${traceId}-${callerSpan}-01` },
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    await post(rest(resource, "release"), {
      businessKey: "w",
      lockId: first.body.lockId,
      tier: first.body.tier,
    });
    const second = await waiting;
    expect(second.body.granted).toBe(true);
    await provider.forceFlush();
    const traced = serverSpans("warden.acquire").filter(
      (span) => span.spanContext().traceId === traceId,
    );
    expect(traced).toHaveLength(1);
    expect(traced[0]!.parentSpanContext?.spanId).toBe(callerSpan);
    expect(traced[0]!.attributes["warden.lock_id"]).toBe(second.body.lockId);
  });

  it("parents a tRPC HTTP call's server span on the caller's traceparent", async () => {
    const resource = await registerResource(tenant);
    const traceId = hex(16);
    const callerSpan = hex(8);
    exporter.reset();
    const reply = await post(
      "/trpc/lock.acquire",
      { resource, businessKey: "t", ownerId: "o" },
      { traceparent: `00-${traceId}-${callerSpan}-01` },
    );
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    await provider.forceFlush();
    const [acquire] = serverSpans("warden.acquire");
    expect(acquire!.spanContext().traceId).toBe(traceId);
    expect(acquire!.parentSpanContext?.spanId).toBe(callerSpan);
    expect(acquire!.attributes["warden.outcome"]).toBe("granted");
  });

  it("ignores a malformed traceparent: the call is answered as without one, in a trace of its own", async () => {
    const resource = await registerResource(tenant);
    for (const [i, traceparent] of [
      "not a traceparent",
      `00-${"a".repeat(200)}-b7ad6b7169203331-01`,
      `00-${"0".repeat(32)}-b7ad6b7169203331-01`,
    ].entries()) {
      exporter.reset();
      const reply = await post(
        rest(resource, "try"),
        { businessKey: `m${i}`, ownerId: "o" },
        { traceparent },
      );
      expect(reply.status, JSON.stringify(reply.body)).toBe(200);
      expect(reply.body.granted).toBe(true);
      await provider.forceFlush();
      const [acquire] = serverSpans("warden.acquire");
      expect(acquire!.parentSpanContext).toBeUndefined();
      expect(acquire!.attributes["warden.outcome"]).toBe("granted");
    }
  });
});
