import { afterAll } from "vitest";

// Every test file runs with this listener: a rejected promise nobody handles (a timer
// callback, a background release, a heartbeat) fails the file that caused it.
const seen: unknown[] = [];
const listener = (reason: unknown) => {
  seen.push(reason);
};
process.on("unhandledRejection", listener);

afterAll(async () => {
  // Let pending microtasks and timers of the last test settle first.
  await new Promise((resolve) => setTimeout(resolve, 50));
  process.off("unhandledRejection", listener);
  if (seen.length > 0) {
    throw new Error(
      `unhandled rejections: ${seen.map((reason) => String((reason as Error)?.stack ?? reason)).join("\n---\n")}`,
    );
  }
});
