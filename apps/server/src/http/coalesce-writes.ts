import type { Duplex } from "node:stream";
import { writeTogetherThisTurn } from "@warden/core";
import type { WebSocket } from "ws";

/**
 * Makes every frame a WebSocket sends during one turn of the event loop leave in one
 * write (replies finished together, e.g. many grants answered by one Redis read, cost one
 * syscall instead of one each). Order and content of the frames are unchanged.
 */
export function coalesceWrites(ws: WebSocket, socket: Duplex): void {
  const send = ws.send.bind(ws);
  ws.send = ((...args: Parameters<WebSocket["send"]>) => {
    writeTogetherThisTurn(socket);
    send(...args);
  }) as WebSocket["send"];
}
