import { expect, it } from "vitest";
import { createLogger } from "../src/log/logger.js";
import { MirrorLog } from "../src/metrics/mirror-log.js";

// What the lease mirror's failing stretches put in the log (docs/decisions/0221): the first
// refused batch, at most one line a minute while it lasts, a line when a batch works again.

function logged(): { log: MirrorLog; lines: Record<string, unknown>[]; clock: { ms: number } } {
  const lines: Record<string, unknown>[] = [];
  const clock = { ms: 1_000_000 };
  const logger = createLogger("info", "test", {
    write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>),
  });
  return { log: new MirrorLog(logger, 60_000, () => clock.ms), lines, clock };
}

const refused = (dropped = 0) =>
  ({
    outcome: "failed",
    error: new Error("Table 'redis_lease_mirror' doesn't exist"),
    kept: 3,
    dropped,
  }) as const;

it("logs a failing stretch's first batch, one line a minute after, and its end", () => {
  const { log, lines, clock } = logged();
  log.listener({ outcome: "ok", rows: 4 });
  expect(lines).toHaveLength(0);

  log.listener(refused());
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatchObject({ level: 40, kept: 3, failedBatches: 1, dropped: 0 });
  expect((lines[0]!.err as { message: string }).message).toContain("redis_lease_mirror");

  // Five batches a second for most of a minute: no more lines.
  for (let batch = 0; batch < 250; batch += 1) {
    clock.ms += 200;
    log.listener(refused(batch === 100 ? 7 : 0));
  }
  expect(lines).toHaveLength(1);
  clock.ms += 10_000;
  log.listener(refused());
  expect(lines).toHaveLength(2);
  expect(lines[1]).toMatchObject({ level: 40, failedBatches: 252, dropped: 7, durationMs: 60_000 });

  clock.ms += 200;
  log.listener({ outcome: "ok", rows: 3 });
  expect(lines).toHaveLength(3);
  expect(lines[2]).toMatchObject({ level: 30, failedBatches: 252, dropped: 7, durationMs: 60_200 });

  // A later failure starts a new stretch, logged at once.
  clock.ms += 1_000;
  log.listener(refused());
  expect(lines).toHaveLength(4);
  expect(lines[3]).toMatchObject({ level: 40, failedBatches: 1, dropped: 0, durationMs: 0 });
});
