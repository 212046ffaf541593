import { StartupError } from "../process/startup-error.js";

/** How often a start is retried after another process took the port we picked. */
const PORT_CLASH_ATTEMPTS = 5;

/**
 * Runs `start` on a freshly picked port, and again on a new one when the server failed
 * because the port was taken between our check and its bind. Other errors propagate.
 */
export async function withFreePort<T>(
  pick: () => Promise<number>,
  start: (port: number) => Promise<T>,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start(await pick());
    } catch (error) {
      if (!(error instanceof StartupError && error.portInUse) || attempt >= PORT_CLASH_ATTEMPTS) {
        throw error;
      }
    }
  }
}
