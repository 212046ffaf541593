import { Redis } from "ioredis";
import {
  acquirePlain,
  acquirePlainBatch,
  releaseLock,
  releaseLockBatch,
  type LuaScript,
  type VariadicLuaScript,
} from "./generated/lua-scripts.js";
import { callScript, type RedisClient } from "./redis-connection.js";
import { UnexpectedReplyError } from "./reply-code.js";
import { writeTogetherThisTurn } from "../io/write-together.js";

/** Most calls in one batch script: bounds how long one script keeps Redis busy. */
export const MAX_SCRIPT_BATCH = 64;

/** One call waiting for its turn's batch: the single script's keys and arguments. */
interface PendingCall {
  readonly keys: readonly string[];
  readonly args: readonly (string | number)[];
  readonly resolve: (reply: unknown) => void;
  readonly reject: (error: unknown) => void;
}

/** A script that runs one call, and the batch script that runs several of them in order. */
interface BatchShape {
  readonly single: LuaScript;
  readonly batch: VariadicLuaScript;
  /** The batch script's keys and arguments for these calls (two or more). */
  pack(calls: readonly PendingCall[]): { keys: string[]; args: (string | number)[] };
}

/**
 * Sends the calls of one script made in one event-loop turn together (decision 0213): one
 * call goes as the single script, as before; two or more go as one call of the batch script,
 * which runs the single script's body for each in order and answers each with the reply the
 * single script would give. A batch that fails (timeout, dropped connection, a reply that
 * does not parse) fails every call in it, and each caller reports its outcome as unknown,
 * exactly as for a single call that failed. Standalone and sentinel only: on a cluster the
 * keys of one turn are in many slots, and each call is sent alone.
 */
export class ScriptBatcher {
  private pending: PendingCall[] = [];
  private scheduled = false;
  private readonly flushNow = (): void => this.flush();

  private constructor(
    private readonly client: Redis,
    private readonly shape: BatchShape,
  ) {}

  /**
   * Sends one call with the single script's keys and arguments; resolves to the single
   * script's raw reply for it.
   */
  send(keys: readonly string[], args: readonly (string | number)[]): Promise<unknown> {
    if (!this.scheduled) {
      // The first call of a turn leaves at once, so Redis starts on it while this process
      // is still busy with the rest of the turn; the calls after it wait for the batch.
      this.scheduled = true;
      process.nextTick(this.flushNow);
      return callScript(this.client, this.shape.single, keys, args);
    }
    return new Promise<unknown>((resolve, reject) => {
      this.pending.push({ keys, args, resolve, reject });
      if (this.pending.length >= MAX_SCRIPT_BATCH) this.sendPending();
    });
  }

  /**
   * After the turn's promise jobs: the calls queued since its first, however many awaits
   * each took to get here, leave together.
   */
  private flush(): void {
    this.scheduled = false;
    this.sendPending();
  }

  private sendPending(): void {
    const calls = this.pending;
    if (calls.length === 0) return;
    this.pending = [];
    if (calls.length === 1) {
      const only = calls[0]!;
      callScript(this.client, this.shape.single, only.keys, only.args).then(
        only.resolve,
        only.reject,
      );
      return;
    }
    const { keys, args } = this.shape.pack(calls);
    writeTogetherThisTurn(this.client.stream);
    const command = (
      this.client as unknown as Record<string, (...a: (string | number)[]) => Promise<unknown>>
    )[this.shape.batch.command]!;
    command.call(this.client, keys.length, ...keys, ...args).then(
      (reply) => {
        if (!Array.isArray(reply) || reply.length !== calls.length) {
          const error = new UnexpectedReplyError(this.shape.batch.command, reply);
          for (const call of calls) call.reject(error);
          return;
        }
        for (let i = 0; i < calls.length; i++) calls[i]!.resolve(reply[i]);
      },
      (error: unknown) => {
        for (const call of calls) call.reject(error);
      },
    );
  }

  /**
   * Plain acquires (acquirePlain-5's keys: lease, counter, epoch, delay, watch; arguments:
   * lockId, clientId, ownerId, leaseMs, minEpoch, maxLeaseMs, counterSpan, lockDelayMs);
   * null on a cluster.
   */
  static plainAcquires(client: RedisClient): ScriptBatcher | null {
    return client instanceof Redis ? new ScriptBatcher(client, PLAIN_ACQUIRES) : null;
  }

  /** Mutex releases (releaseLock-3's keys and lockId); null on a cluster. */
  static releases(client: RedisClient): ScriptBatcher | null {
    return client instanceof Redis ? new ScriptBatcher(client, RELEASES) : null;
  }
}

const PLAIN_ACQUIRES: BatchShape = {
  single: acquirePlain,
  batch: acquirePlainBatch,
  // KEYS: the epoch key once (one record on standalone and sentinel), then lease, counter,
  // delay and watch of each acquire. ARGV: the highest epoch floor among them (a floor only
  // rises: a node below one caller's floor refuses them all, and each rebinds as after a
  // single refusal), the lease cap and the counter span once, then lockId, clientId,
  // ownerId, leaseMs and lockDelayMs of each.
  pack(calls) {
    const first = calls[0]!;
    const keys: string[] = [first.keys[2] as string];
    const args: (string | number)[] = [0, first.args[5]!, first.args[6]!];
    let minEpoch = 0;
    for (const { keys: k, args: a } of calls) {
      keys.push(k[0]!, k[1]!, k[3]!, k[4]!);
      args.push(a[0]!, a[1]!, a[2]!, a[3]!, a[7]!);
      if (Number(a[4]) > minEpoch) minEpoch = Number(a[4]);
    }
    args[0] = minEpoch;
    return { keys, args };
  },
};

const RELEASES: BatchShape = {
  single: releaseLock,
  batch: releaseLockBatch,
  pack(calls) {
    const keys: string[] = [];
    const args: (string | number)[] = [];
    for (const { keys: k, args: a } of calls) {
      keys.push(k[0]!, k[1]!, k[2]!);
      args.push(a[0]!);
    }
    return { keys, args };
  },
};
