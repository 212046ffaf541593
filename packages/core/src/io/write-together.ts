import type { Writable } from "node:stream";

/** Sockets written during the current event-loop turn: true once they are corked. */
const turn = new Map<Writable, boolean>();
let resetScheduled = false;

/**
 * Call right before each small write on `socket`. The first write of an event-loop turn
 * leaves at once, so the peer starts on it while this process is still busy; the writes
 * after it in the same turn are held (cork) and leave together in one `writev` in the
 * check phase of the turn (setImmediate). On loopback a write syscall also runs the
 * receiver's TCP stack, so on a busy 2-core box it is the largest single cost of a small
 * request; holding every write, the first one included, would instead leave the peer idle
 * while this process finishes its turn. Order and content are unchanged.
 */
export function writeTogetherThisTurn(socket: Writable | null | undefined): void {
  if (!socket || socket.destroyed) return;
  const corked = turn.get(socket);
  if (corked === undefined) {
    turn.set(socket, false);
  } else if (!corked) {
    turn.set(socket, true);
    socket.cork();
  }
  if (!resetScheduled) {
    resetScheduled = true;
    setImmediate(endTurn);
  }
}

function endTurn(): void {
  resetScheduled = false;
  for (const [socket, corked] of turn) if (corked) socket.uncork();
  turn.clear();
}
