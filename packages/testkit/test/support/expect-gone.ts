import { expect } from "vitest";

/** Asserts that no process has `pid` any more (not even a zombie left unreaped). */
export function expectGone(pid: number): void {
  expect(pid).toBeGreaterThan(0);
  let code: string | undefined;
  try {
    process.kill(pid, 0);
  } catch (error) {
    code = (error as NodeJS.ErrnoException).code;
  }
  expect(code, `process ${pid} should be gone`).toBe("ESRCH");
}
