import type { LeftoverProcess } from "../checker/run-facts.js";

/** Whether a process with `pid` exists (a zombie counts: it was not reaped). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** The processes of `started` that still exist after teardown. */
export function leftovers(
  started: readonly { role: string; id: string; pid: number }[],
): LeftoverProcess[] {
  return started.filter((p) => alive(p.pid)).map((p) => ({ role: p.role, id: p.id, pid: p.pid }));
}
