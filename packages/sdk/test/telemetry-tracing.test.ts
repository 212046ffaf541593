import { context, propagation, SpanKind, trace, type Span } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from "@opentelemetry/sdk-trace-base";
import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import WebSocket from "ws";
import { LockTimeoutError } from "../src/index.js";
import { LOCK_SUBPROTOCOL } from "../src/transport/lock-socket.js";
import { startStack, type Stack } from "./support/stack.js";
import { delay } from "./support/until.js";

/*
 * OpenTelemetry through the SDK and a real server (Redis, MariaDB) in this process: one
 * in-memory exporter sees the SDK's spans and the server's, so a test can check they join
 * one trace through the lock protocol's propagated context.
 */

let stack: Stack;
const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });

beforeAll(async () => {
  stack = await startStack();
});

afterAll(async () => {
  await stack?.close();
  trace.disable();
  context.disable();
  propagation.disable();
  await provider.shutdown();
});

/** Every lock-protocol command this process sends, as `[id, op, input, carrier?]`. */
function recordCommands(): { commands: unknown[][]; stop(): void } {
  const commands: unknown[][] = [];
  // eslint-disable-next-line @typescript-eslint/unbound-method -- restored by stop()
  const original = WebSocket.prototype.send;
  WebSocket.prototype.send = function (this: WebSocket, data: unknown, ...rest: unknown[]) {
    if (this.protocol === LOCK_SUBPROTOCOL && typeof data === "string" && data.startsWith("[[")) {
      commands.push(...(JSON.parse(data) as unknown[][]));
    }
    return (original as (...args: unknown[]) => void).call(this, data, ...rest);
  } as typeof original;
  return {
    commands,
    stop: () => {
      WebSocket.prototype.send = original;
    },
  };
}

/** Runs `fn` under an active application span; returns its result and the span's trace id. */
async function underParent<T>(fn: () => Promise<T>): Promise<{ result: T; traceId: string }> {
  const tracer = trace.getTracer("telemetry-test");
  return tracer.startActiveSpan("checkout", async (parent: Span) => {
    try {
      return { result: await fn(), traceId: parent.spanContext().traceId };
    } finally {
      parent.end();
    }
  });
}

function spansOf(traceId: string): ReadableSpan[] {
  return exporter.getFinishedSpans().filter((span) => span.spanContext().traceId === traceId);
}

function one(spans: ReadableSpan[], name: string, kind: SpanKind): ReadableSpan {
  const found = spans.filter((span) => span.name === name && span.kind === kind);
  expect(found, `${name} (${SpanKind[kind]})`).toHaveLength(1);
  return found[0]!;
}

function parentOf(span: ReadableSpan): string | undefined {
  return span.parentSpanContext?.spanId;
}

describe("without an OpenTelemetry SDK", () => {
  test("nothing is recorded and no command carries a trace context", async () => {
    const resource = await stack.resource("otel-off");
    const warden = stack.client();
    const sent = recordCommands();
    try {
      const lock = await warden.acquire(resource, "k1", { waitMs: 1_000 });
      await lock.extend();
      await lock.release();
    } finally {
      sent.stop();
    }
    const lockCommands = sent.commands.filter((command) => command[1] !== "call");
    expect(lockCommands.map((command) => command[1])).toEqual(
      expect.arrayContaining(["acquire", "renew", "release"]),
    );
    expect(lockCommands.every((command) => command.length === 3)).toBe(true);
    expect(trace.getActiveSpan()).toBeUndefined();
    expect(exporter.getFinishedSpans()).toHaveLength(0);
  });
});

describe("with an OpenTelemetry SDK installed", () => {
  beforeAll(() => {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    trace.setGlobalTracerProvider(provider);
  });

  test("acquire, extend and release: SDK and server spans in the caller's trace", async () => {
    const resource = await stack.resource("otel-cycle");
    const warden = stack.client();
    const sent = recordCommands();
    let lockId = "";
    let fence: string | null = null;
    const { traceId } = await underParent(async () => {
      const lock = await warden.acquire(resource, "order-17", { waitMs: 1_000 });
      lockId = lock.lockId;
      fence = lock.fence;
      await lock.extend();
      await lock.release();
    }).finally(() => sent.stop());
    await provider.forceFlush();

    // Each lock command carried the W3C context of the SDK span that sent it.
    const acquireCommand = sent.commands.find((command) => command[1] === "acquire")!;
    const carrier = acquireCommand[3] as { traceparent?: string };
    expect(Object.keys(carrier)).toEqual(["traceparent"]);
    expect(carrier.traceparent).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));

    const spans = spansOf(traceId);
    const parent = one(spans, "checkout", SpanKind.INTERNAL);
    const key = { "warden.resource": resource, "warden.business_key": "order-17" };
    const grant = { "warden.lock_id": lockId, "warden.fence": fence, "warden.tier": "redis" };

    const sdkAcquire = one(spans, "warden.acquire", SpanKind.CLIENT);
    expect(parentOf(sdkAcquire)).toBe(parent.spanContext().spanId);
    expect(sdkAcquire.attributes).toMatchObject({
      ...key,
      ...grant,
      "warden.mode": "wait",
      "warden.outcome": "granted",
    });
    const serverAcquire = one(spans, "warden.acquire", SpanKind.SERVER);
    expect(parentOf(serverAcquire)).toBe(sdkAcquire.spanContext().spanId);
    expect(serverAcquire.attributes).toMatchObject({
      ...key,
      ...grant,
      "warden.tenant": stack.tenantId,
      "warden.outcome": "granted",
    });

    // lock.extend() goes as a bulk renew command: its span and the server's are children.
    const sdkExtend = one(spans, "warden.extend", SpanKind.CLIENT);
    expect(sdkExtend.attributes).toMatchObject({ ...key, ...grant, "warden.outcome": "extended" });
    const sdkRenew = one(spans, "warden.renew", SpanKind.CLIENT);
    expect(parentOf(sdkRenew)).toBe(sdkExtend.spanContext().spanId);
    expect(sdkRenew.attributes).toMatchObject({
      "warden.lease_count": 1,
      "warden.refused_count": 0,
    });
    const serverRenew = one(spans, "warden.renew", SpanKind.SERVER);
    expect(parentOf(serverRenew)).toBe(sdkRenew.spanContext().spanId);
    expect(serverRenew.attributes).toMatchObject({ "warden.lease_count": 1 });

    const sdkRelease = one(spans, "warden.release", SpanKind.CLIENT);
    expect(sdkRelease.attributes).toMatchObject({ ...key, ...grant, "warden.outcome": "released" });
    const serverRelease = one(spans, "warden.release", SpanKind.SERVER);
    expect(parentOf(serverRelease)).toBe(sdkRelease.spanContext().spanId);
    expect(serverRelease.attributes).toMatchObject({
      ...key,
      "warden.lock_id": lockId,
      "warden.outcome": "released",
      "warden.released": true,
    });
  });

  test("a refused try has outcome refused on both sides; a wait that runs out, timeout", async () => {
    const resource = await stack.resource("otel-refused");
    const holder = await stack.client().acquire(resource, "busy");
    const warden = stack.client({ shortCircuit: false });
    try {
      const refused = await underParent(() => warden.tryAcquire(resource, "busy"));
      expect(refused.result).toBeNull();
      const timedOut = await underParent(() =>
        warden.acquire(resource, "busy", { waitMs: 300 }).then(
          () => "granted",
          (error: unknown) => error,
        ),
      );
      expect(timedOut.result).toBeInstanceOf(LockTimeoutError);
      await provider.forceFlush();

      const tried = spansOf(refused.traceId);
      expect(one(tried, "warden.acquire", SpanKind.CLIENT).attributes).toMatchObject({
        "warden.mode": "try",
        "warden.outcome": "refused",
      });
      const serverRefusal = one(tried, "warden.acquire", SpanKind.SERVER);
      expect(serverRefusal.attributes).toMatchObject({
        "warden.outcome": "refused",
        "warden.tier": "redis",
      });
      expect(serverRefusal.attributes["warden.lock_id"]).toBeUndefined();

      const waited = one(spansOf(timedOut.traceId), "warden.acquire", SpanKind.CLIENT);
      expect(waited.attributes).toMatchObject({
        "warden.mode": "wait",
        "warden.outcome": "timeout",
        "warden.error_code": "LOCK_TIMEOUT",
      });
    } finally {
      await holder.release();
    }
  });

  test("renewals: one span per renew command with its lease count, in a trace of its own", async () => {
    const resource = await stack.resource("otel-renew", { defaultLeaseMs: 1_500 });
    const warden = stack.client();
    exporter.reset();
    const { result: locks, traceId } = await underParent(() =>
      Promise.all(["a", "b", "c"].map((key) => warden.acquire(resource, key))),
    );
    await delay(2_000);
    await Promise.all(locks.map((lock) => lock.release()));
    await provider.forceFlush();

    const renewals = exporter.getFinishedSpans().filter((span) => span.name === "warden.renew");
    const sdkRenewals = renewals.filter((span) => span.kind === SpanKind.CLIENT);
    expect(sdkRenewals.length).toBeGreaterThan(0);
    for (const span of sdkRenewals) {
      // Background work: never in the trace of the caller that took the locks.
      expect(span.spanContext().traceId).not.toBe(traceId);
      expect(span.attributes["warden.lease_count"]).toBeGreaterThanOrEqual(1);
      expect(span.attributes["warden.outcome"]).toBe("renewed");
      const server = renewals.filter(
        (other) => other.kind === SpanKind.SERVER && parentOf(other) === span.spanContext().spanId,
      );
      expect(server).toHaveLength(1);
      expect(server[0]!.attributes["warden.lease_count"]).toBe(
        span.attributes["warden.lease_count"],
      );
    }
    expect(
      sdkRenewals.reduce((sum, span) => sum + Number(span.attributes["warden.lease_count"]), 0),
    ).toBeGreaterThanOrEqual(3);
    // A renew command's leases get no extend span each.
    expect(exporter.getFinishedSpans().some((span) => span.name === "warden.extend")).toBe(false);
  });

  test("the server's lock logs carry lockId, fence and the trace id", async () => {
    const resource = await stack.resource("otel-logs");
    const logger = stack.server().services.logger;
    const level = logger.level;
    logger.level = "debug";
    const debug = vi.spyOn(logger, "debug").mockImplementation(() => undefined);
    try {
      const { result: lock, traceId } = await underParent(async () => {
        const lock = await stack.client().acquire(resource, "logged");
        await lock.release();
        return lock;
      });
      const lines = debug.mock.calls.map((call) => call[0] as Record<string, unknown>);
      const granted = lines.find((line) => line.op === "acquire" && line.lockId === lock.lockId);
      expect(granted).toMatchObject({ fence: lock.fence, tier: "redis", traceId });
      const released = lines.find((line) => line.op === "release" && line.lockId === lock.lockId);
      expect(released).toMatchObject({ fence: lock.fence, traceId });
    } finally {
      debug.mockRestore();
      logger.level = level;
    }
  });
});
