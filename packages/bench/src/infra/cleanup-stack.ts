/** Longest any one cleanup step may take before the next one runs, in ms. */
const STEP_TIMEOUT_MS = 20_000;

/**
 * Undo steps registered as resources are made (a server started, a database created) and
 * run newest first, once, whatever failed in between: the bench leaves no process or
 * database behind on success, error or Ctrl-C.
 */
export class CleanupStack {
  private readonly steps: { readonly name: string; readonly run: () => Promise<void> }[] = [];
  private running: Promise<string[]> | null = null;

  /** Registers an undo step. */
  push(name: string, run: () => Promise<void>): void {
    this.steps.push({ name, run });
  }

  /**
   * Runs every step newest first; a step that fails or hangs does not stop the others.
   * Idempotent: a second call waits for the first.
   * @returns messages of the steps that failed
   */
  runAll(): Promise<string[]> {
    this.running ??= this.drain();
    return this.running;
  }

  private async drain(): Promise<string[]> {
    const failures: string[] = [];
    for (let step = this.steps.pop(); step; step = this.steps.pop()) {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`timed out after ${STEP_TIMEOUT_MS} ms`)),
          STEP_TIMEOUT_MS,
        );
      });
      try {
        await Promise.race([step.run(), timeout]);
      } catch (error) {
        failures.push(`${step.name}: ${(error as Error).message}`);
      } finally {
        clearTimeout(timer);
      }
    }
    return failures;
  }
}
