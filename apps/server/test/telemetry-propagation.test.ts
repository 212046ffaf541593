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
import WebSocket from "ws";
import type { HttpServerHandle } from "../src/http/server.js";
import { LOCK_SUBPROTOCOL } from "../src/protocol/wire.js";
import {
  registerResource,
  startHarness,
  type Harness,
  type TenantHandle,
} from "./support/harness.js";
import { serveHarness } from "./support/lock-client.js";

/*
 * The server's side of tracing, with a bare lock-protocol client on a real server (Redis,
 * MariaDB): a command's W3C trace context parents the server's span; a malformed one is
 * ignored and changes nothing else; the tRPC path gets the same spans.
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

type Entry = [number, 0 | 1, unknown];

/** A bare lock-protocol client whose commands may carry a fourth element. */
async function connect(apiKey: string) {
  const ws = new WebSocket(`${http.url.replace("http", "ws")}/trpc`, LOCK_SUBPROTOCOL);
  const entries: Entry[] = [];
  ws.on("message", (data: Buffer) => {
    for (const entry of JSON.parse(data.toString("utf8")) as Entry[]) entries.push(entry);
  });
  await new Promise<void>((resolve, reject) => {
    ws.once("open", () => resolve());
    ws.once("error", reject);
  });
  ws.send(JSON.stringify({ hello: { apiKey, clientId: "otel-client" } }));
  let nextId = 1;
  return {
    ws,
    async send(...commands: unknown[][]): Promise<Entry[]> {
      const ids = commands.map(() => nextId++);
      ws.send(JSON.stringify(commands.map((command, i) => [ids[i], ...command])));
      const deadline = Date.now() + 10_000;
      for (;;) {
        const found = ids.map((id) => entries.find((entry) => entry[0] === id));
        if (found.every((entry) => entry !== undefined)) return found;
        if (Date.now() > deadline) throw new Error("no answer within 10 s");
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
  };
}

function hex(bytes: number): string {
  return randomBytes(bytes).toString("hex");
}

function serverSpans(name: string): ReadableSpan[] {
  return exporter
    .getFinishedSpans()
    .filter((span) => span.name === name && span.kind === SpanKind.SERVER);
}

describe("trace context in lock-protocol commands", () => {
  it("parents the server's acquire and release spans on the caller's span", async () => {
    const resource = await registerResource(tenant);
    const client = await connect(tenant.key);
    const traceId = hex(16);
    const callerSpan = hex(8);
    const carrier = { traceparent: `00-${traceId}-${callerSpan}-01` };
    exporter.reset();
    const [granted] = await client.send([
      "acquire",
      { resource, businessKey: "k", ownerId: "o" },
      carrier,
    ]);
    expect(granted![1]).toBe(0);
    const grant = granted![2] as { lockId: string; fence: string; tier: string };
    const [released] = await client.send([
      "release",
      { resource, businessKey: "k", lockId: grant.lockId, tier: grant.tier },
      carrier,
    ]);
    expect(released![1]).toBe(0);
    await provider.forceFlush();

    const [acquire] = serverSpans("warden.acquire");
    expect(acquire!.spanContext().traceId).toBe(traceId);
    expect(acquire!.parentSpanContext?.spanId).toBe(callerSpan);
    expect(acquire!.attributes).toMatchObject({
      "warden.resource": resource,
      "warden.business_key": "k",
      "warden.tenant": tenant.id,
      "warden.lock_id": grant.lockId,
      "warden.fence": grant.fence,
      "warden.tier": grant.tier,
      "warden.outcome": "granted",
    });
    const [release] = serverSpans("warden.release");
    expect(release!.spanContext().traceId).toBe(traceId);
    expect(release!.parentSpanContext?.spanId).toBe(callerSpan);
    expect(release!.attributes).toMatchObject({
      "warden.lock_id": grant.lockId,
      "warden.outcome": "released",
    });
    client.ws.close();
  });

  it("ignores a malformed trace context: the command is answered as without one", async () => {
    const resource = await registerResource(tenant);
    const client = await connect(tenant.key);
    const bogus = [
      42,
      "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
      ["00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"],
      { traceparent: 7 },
      { traceparent: `00-${"a".repeat(200)}-b7ad6b7169203331-01` },
      { traceparent: "not a traceparent" },
      null,
    ];
    exporter.reset();
    const answers = await client.send(
      ...bogus.map((carrier, i) => [
        "acquire",
        { resource, businessKey: `k${i}`, ownerId: "o" },
        carrier,
      ]),
    );
    expect(answers.map((entry) => [entry[1], (entry[2] as { granted?: boolean }).granted])).toEqual(
      bogus.map(() => [0, true]),
    );
    await provider.forceFlush();
    const spans = serverSpans("warden.acquire");
    expect(spans).toHaveLength(bogus.length);
    // Each a trace of its own, none the malformed contexts' ids.
    for (const span of spans) {
      expect(span.parentSpanContext).toBeUndefined();
      expect(span.spanContext().traceId).not.toBe("0af7651916cd43dd8448eb211c80319c");
    }
    client.ws.close();
  });

  it("gives a tRPC call the same spans; a refusal has outcome refused", async () => {
    const resource = await registerResource(tenant);
    const client = await connect(tenant.key);
    exporter.reset();
    const input = { resource, businessKey: "busy", ownerId: "first" };
    const [first] = await client.send(["call", ["mutation", "lock.acquire", input]]);
    expect((first![2] as { granted: boolean }).granted).toBe(true);
    const [second] = await client.send([
      "call",
      ["mutation", "lock.acquire", { ...input, ownerId: "second" }],
    ]);
    expect((second![2] as { granted: boolean }).granted).toBe(false);
    await provider.forceFlush();
    const outcomes = serverSpans("warden.acquire").map((span) => span.attributes["warden.outcome"]);
    expect(outcomes).toEqual(["granted", "refused"]);
    client.ws.close();
  });
});
