import { Redis } from "ioredis";
import {
  acquireLock,
  acquireLockBatch,
  acquirePlain,
  acquirePlainBatch,
  extendLock,
  extendLockBatch,
  releaseLock,
  releaseLockBatch,
  rwAcquire,
  rwAcquireBatch,
  rwExtend,
  rwExtendBatch,
  rwRelease,
  rwReleaseBatch,
  semaphoreAcquire,
  semaphoreAcquireBatch,
  semaphoreAcquirePlain,
  semaphoreAcquirePlainBatch,
  semaphoreExtend,
  semaphoreExtendBatch,
  semaphoreRelease,
  semaphoreReleaseBatch,
  type LuaScript,
  type VariadicLuaScript,
} from "./generated/lua-scripts.js";
import { callScript, callScriptThenWait, type RedisClient } from "./redis-connection.js";
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

/**
 * A script that runs one call, the batch script that runs several of them in order, and
 * where the batch script takes each of the single script's keys and arguments (indexes
 * into them). The batch's KEYS are the `onceKeys` of the first call, then the `itemKeys` of
 * each call; its ARGV are the highest `highestArg` among the calls (when there is one), the
 * `onceArgs` of the first call, then the `itemArgs` of each call.
 */
interface BatchShape {
  readonly single: LuaScript;
  readonly batch: VariadicLuaScript;
  /** Keys the same for every call (the node's epoch record). */
  readonly onceKeys: readonly number[];
  readonly itemKeys: readonly number[];
  /**
   * The epoch floor: the batch passes the highest among its callers. A floor only rises: a
   * node below one caller's floor refuses them all, and each rebinds as after a single
   * refusal.
   */
  readonly highestArg?: number;
  /** Arguments the same for every call (the service's limits). */
  readonly onceArgs: readonly number[];
  readonly itemArgs: readonly number[];
}

/** The batch script's keys and arguments for these calls (two or more). */
function pack(
  shape: BatchShape,
  calls: readonly Pick<PendingCall, "keys" | "args">[],
): { keys: string[]; args: (string | number)[] } {
  const first = calls[0]!;
  const keys: string[] = shape.onceKeys.map((i) => first.keys[i]!);
  const args: (string | number)[] = [];
  if (shape.highestArg !== undefined) {
    let highest = 0;
    for (const call of calls) highest = Math.max(highest, Number(call.args[shape.highestArg]));
    args.push(highest);
  }
  for (const i of shape.onceArgs) args.push(first.args[i]!);
  for (const call of calls) {
    for (const i of shape.itemKeys) keys.push(call.keys[i]!);
    for (const i of shape.itemArgs) args.push(call.args[i]!);
  }
  return { keys, args };
}

/** A call waiting for its turn's batch and the `WAIT` after it. */
interface PendingWaitCall {
  readonly keys: readonly string[];
  readonly args: readonly (string | number)[];
  readonly resolve: (reply: Acknowledged) => void;
  readonly reject: (error: unknown) => void;
}

/** A script's reply and how many replicas acknowledged the writes up to it. */
export interface Acknowledged {
  readonly reply: unknown;
  readonly acknowledged: number;
}

/** The calls of one turn that wait for the same replicas within the same time. */
interface WaitGroup {
  readonly replicas: number;
  readonly timeoutMs: number;
  calls: PendingWaitCall[];
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
  private waitGroups = new Map<string, WaitGroup>();
  private waitScheduled = false;
  private readonly flushWaitsNow = (): void => this.flushWaits();

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
   * Sends one call and a `WAIT` for `replicas` replicas (at most `timeoutMs`) after it, in
   * one pipeline; resolves to the single script's raw reply and the `WAIT`'s count
   * (decision 0227). As with {@link send}, the first such call of a turn leaves at once and
   * the others of the turn that wait for the same replicas within the same time leave
   * together: one batch script call, one `WAIT` after it. `WAIT` counts the replicas that
   * have every write this connection made before it, so its answer holds for each grant of
   * the batch as it would for a grant alone.
   */
  sendThenWait(
    keys: readonly string[],
    args: readonly (string | number)[],
    replicas: number,
    timeoutMs: number,
  ): Promise<Acknowledged> {
    if (!this.waitScheduled) {
      this.waitScheduled = true;
      process.nextTick(this.flushWaitsNow);
      return callScriptThenWait(this.client, this.shape.single, keys, args, replicas, timeoutMs);
    }
    return new Promise<Acknowledged>((resolve, reject) => {
      const id = `${replicas}:${timeoutMs}`;
      let group = this.waitGroups.get(id);
      if (!group) {
        group = { replicas, timeoutMs, calls: [] };
        this.waitGroups.set(id, group);
      }
      group.calls.push({ keys, args, resolve, reject });
      if (group.calls.length >= MAX_SCRIPT_BATCH) this.sendWaitGroup(group);
    });
  }

  private flushWaits(): void {
    this.waitScheduled = false;
    const groups = this.waitGroups;
    if (groups.size === 0) return;
    this.waitGroups = new Map();
    for (const group of groups.values()) this.sendWaitGroup(group);
  }

  private sendWaitGroup(group: WaitGroup): void {
    const calls = group.calls;
    if (calls.length === 0) return;
    group.calls = [];
    const { replicas, timeoutMs } = group;
    if (calls.length === 1) {
      const only = calls[0]!;
      callScriptThenWait(
        this.client,
        this.shape.single,
        only.keys,
        only.args,
        replicas,
        timeoutMs,
      ).then(only.resolve, only.reject);
      return;
    }
    const { keys, args } = pack(this.shape, calls);
    const pipeline = this.client.pipeline();
    const command = (pipeline as unknown as Record<string, (...a: (string | number)[]) => unknown>)[
      this.shape.batch.command
    ]!;
    command.call(pipeline, keys.length, ...keys, ...args);
    pipeline.wait(replicas, timeoutMs);
    pipeline.exec().then(
      (results) => {
        const [ran, waited] = results ?? [];
        const reply: unknown = ran?.[1];
        if (ran?.[0]) {
          for (const call of calls) call.reject(ran[0]);
          return;
        }
        if (!Array.isArray(reply) || reply.length !== calls.length) {
          const error = new UnexpectedReplyError(this.shape.batch.command, reply);
          for (const call of calls) call.reject(error);
          return;
        }
        // A failed WAIT counts no replica, as for a call alone: each grant is undone.
        const acknowledged = Number(waited?.[1] ?? 0);
        for (let i = 0; i < calls.length; i++) calls[i]!.resolve({ reply: reply[i], acknowledged });
      },
      (error: unknown) => {
        for (const call of calls) call.reject(error);
      },
    );
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
    const { keys, args } = pack(this.shape, calls);
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
   * Sends the calls of one script through a batcher on standalone and sentinel; on a
   * cluster (null batcher), alone.
   */
  static send(
    batcher: ScriptBatcher | null,
    client: RedisClient,
    script: LuaScript,
    keys: readonly string[],
    args: readonly (string | number)[],
  ): Promise<unknown> {
    return batcher ? batcher.send(keys, args) : callScript(client, script, keys, args);
  }

  /**
   * {@link sendThenWait} through a batcher on standalone and sentinel; on a cluster (null
   * batcher), alone.
   */
  static sendThenWait(
    batcher: ScriptBatcher | null,
    client: RedisClient,
    script: LuaScript,
    keys: readonly string[],
    args: readonly (string | number)[],
    replicas: number,
    timeoutMs: number,
  ): Promise<Acknowledged> {
    return batcher
      ? batcher.sendThenWait(keys, args, replicas, timeoutMs)
      : callScriptThenWait(client, script, keys, args, replicas, timeoutMs);
  }

  /** A batcher for one of the shapes below; null on a cluster. */
  private static of(client: RedisClient, shape: BatchShape): ScriptBatcher | null {
    return client instanceof Redis ? new ScriptBatcher(client, shape) : null;
  }

  /**
   * Mutex plain acquires (acquirePlain-5's keys: lease, counter, epoch, delay, watch;
   * arguments: lockId, clientId, ownerId, leaseMs, minEpoch, maxLeaseMs, counterSpan,
   * lockDelayMs).
   */
  static plainAcquires(client: RedisClient): ScriptBatcher | null {
    return ScriptBatcher.of(client, {
      single: acquirePlain,
      batch: acquirePlainBatch,
      onceKeys: [2],
      itemKeys: [0, 1, 3, 4],
      highestArg: 4,
      onceArgs: [5, 6],
      itemArgs: [0, 1, 2, 3, 7],
    });
  }

  /**
   * Mutex acquires of a fair resource (acquireLock-7's keys: lease, counter, epoch, queue,
   * waiters, delay, watch; arguments: lockId, clientId, ownerId, leaseMs, minEpoch,
   * maxLeaseMs, counterSpan, heartbeatMs, waiterId, lockDelayMs).
   */
  static fairAcquires(client: RedisClient): ScriptBatcher | null {
    return ScriptBatcher.of(client, {
      single: acquireLock,
      batch: acquireLockBatch,
      onceKeys: [2],
      itemKeys: [0, 1, 3, 4, 5, 6],
      highestArg: 4,
      onceArgs: [5, 6],
      itemArgs: [0, 1, 2, 3, 7, 8, 9],
    });
  }

  /** Mutex releases (releaseLock-3's keys and lockId). */
  static releases(client: RedisClient): ScriptBatcher | null {
    return ScriptBatcher.of(client, {
      single: releaseLock,
      batch: releaseLockBatch,
      onceKeys: [],
      itemKeys: [0, 1, 2],
      onceArgs: [],
      itemArgs: [0],
    });
  }

  /**
   * Mutex extends (extendLock-2's keys: lease, delay; arguments: lockId, leaseMs,
   * maxLeaseMs). A client's bulk renewal reaches the store as many extends in one turn.
   */
  static extends(client: RedisClient): ScriptBatcher | null {
    return ScriptBatcher.of(client, {
      single: extendLock,
      batch: extendLockBatch,
      onceKeys: [],
      itemKeys: [0, 1],
      onceArgs: [2],
      itemArgs: [0, 1],
    });
  }

  /**
   * Plain semaphore acquires (semaphoreAcquirePlain-5's keys: grants, facts, counter, epoch,
   * watch; arguments: lockId, clientId, ownerId, leaseMs, minEpoch, maxLeaseMs, counterSpan,
   * permits, totalPermits, permits held elsewhere, maxTotalPermits).
   */
  static permitAcquires(client: RedisClient): ScriptBatcher | null {
    return ScriptBatcher.of(client, {
      single: semaphoreAcquirePlain,
      batch: semaphoreAcquirePlainBatch,
      onceKeys: [3],
      itemKeys: [0, 1, 2, 4],
      highestArg: 4,
      onceArgs: [5, 6, 10],
      itemArgs: [0, 1, 2, 3, 7, 8, 9],
    });
  }

  /**
   * Semaphore acquires of a fair resource (semaphoreAcquire-7's keys: grants, facts, counter,
   * epoch, queue, waiters, watch; arguments: lockId, clientId, ownerId, leaseMs, minEpoch,
   * maxLeaseMs, counterSpan, permits, totalPermits, permits held elsewhere, heartbeatMs,
   * maxTotalPermits, waiterId).
   */
  static permitFairAcquires(client: RedisClient): ScriptBatcher | null {
    return ScriptBatcher.of(client, {
      single: semaphoreAcquire,
      batch: semaphoreAcquireBatch,
      onceKeys: [3],
      itemKeys: [0, 1, 2, 4, 5, 6],
      highestArg: 4,
      onceArgs: [5, 6, 11],
      itemArgs: [0, 1, 2, 3, 7, 8, 9, 10, 12],
    });
  }

  /** Semaphore releases (semaphoreRelease-3's keys and lockId). */
  static permitReleases(client: RedisClient): ScriptBatcher | null {
    return ScriptBatcher.of(client, {
      single: semaphoreRelease,
      batch: semaphoreReleaseBatch,
      onceKeys: [],
      itemKeys: [0, 1, 2],
      onceArgs: [],
      itemArgs: [0],
    });
  }

  /**
   * Permit extends (semaphoreExtend-2's keys: grants, facts; arguments: lockId, leaseMs,
   * maxLeaseMs).
   */
  static permitExtends(client: RedisClient): ScriptBatcher | null {
    return ScriptBatcher.of(client, {
      single: semaphoreExtend,
      batch: semaphoreExtendBatch,
      onceKeys: [],
      itemKeys: [0, 1],
      onceArgs: [2],
      itemArgs: [0, 1],
    });
  }

  /**
   * Read-write acquires (rwAcquire-5's keys: state, counter, epoch, mutex, watch; arguments:
   * mode, lockId, clientId, ownerId, leaseMs, minEpoch, maxLeaseMs, counterSpan, writer
   * preference, intentMs, retainMs).
   */
  static rwAcquires(client: RedisClient): ScriptBatcher | null {
    return ScriptBatcher.of(client, {
      single: rwAcquire,
      batch: rwAcquireBatch,
      onceKeys: [2],
      itemKeys: [0, 1, 3, 4],
      highestArg: 5,
      onceArgs: [6, 7, 10],
      itemArgs: [0, 1, 2, 3, 4, 8, 9],
    });
  }

  /** Read-write releases (rwRelease-2's keys and lockId). */
  static rwReleases(client: RedisClient): ScriptBatcher | null {
    return ScriptBatcher.of(client, {
      single: rwRelease,
      batch: rwReleaseBatch,
      onceKeys: [],
      itemKeys: [0, 1],
      onceArgs: [],
      itemArgs: [0],
    });
  }

  /**
   * Read-write grant extends (rwExtend-1's key: state; arguments: lockId, leaseMs,
   * maxLeaseMs, retainMs).
   */
  static rwExtends(client: RedisClient): ScriptBatcher | null {
    return ScriptBatcher.of(client, {
      single: rwExtend,
      batch: rwExtendBatch,
      onceKeys: [],
      itemKeys: [0],
      onceArgs: [2, 3],
      itemArgs: [0, 1],
    });
  }
}
