import { appendFile, mkdir, readdir, readFile, rename, stat, unlink } from "node:fs/promises";
import { join } from "node:path";
import type { AuditRecord, HoldPart } from "./audit-record.js";

/** One spooled line: an audit event, or a part of a hold's row (`kind: "hold"`). */
export type SpoolEntry = AuditRecord | HoldPart;

const ACTIVE = "active.jsonl";
const SEALED = /^sealed-\d+-\d+\.jsonl$/;

/**
 * A bounded local spool of audit events and hold parts (JSON lines) for while MySQL is down. Appends go
 * to `active.jsonl`; a replay seals it (rename) and reads sealed files oldest first,
 * deleting each only after all its events are stored, so a crash mid-replay replays a
 * file again (idempotent by event id). Past `maxBytes` a batch is refused: the caller
 * counts it as dropped and alerts — it is never dropped silently.
 */
export class AuditSpool {
  private bytes = 0;
  private events = 0;
  private sealSeq = 0;

  constructor(
    private readonly dir: string,
    private readonly maxBytes: number,
  ) {}

  /** Creates the directory and counts what an earlier process left behind. */
  async open(): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    for (const name of await this.files()) {
      const info = await stat(join(this.dir, name));
      this.bytes += info.size;
      // Counting lines would mean reading the files; an estimate is fine for a gauge.
      this.events += Math.round(info.size / 300);
    }
  }

  /** Bytes and events waiting (events of files from earlier processes are estimated). */
  get size(): { bytes: number; events: number } {
    return { bytes: this.bytes, events: this.events };
  }

  /** True when the spool holds anything to replay. */
  get pending(): boolean {
    return this.bytes > 0;
  }

  /** Appends a batch; false (nothing written) when it would pass `maxBytes`. */
  async append(records: readonly SpoolEntry[]): Promise<boolean> {
    const text = records.map((record) => JSON.stringify(record)).join("\n") + "\n";
    const size = Buffer.byteLength(text);
    if (this.bytes + size > this.maxBytes) return false;
    await appendFile(join(this.dir, ACTIVE), text);
    this.bytes += size;
    this.events += records.length;
    return true;
  }

  /**
   * Replays every spooled event through `store` (batches of `batchSize`), oldest file
   * first. Stops at the first failure, leaving the rest for the next call. Returns the
   * number of events stored.
   */
  async replay(store: (batch: SpoolEntry[]) => Promise<void>, batchSize: number): Promise<number> {
    await this.sealActive();
    let stored = 0;
    for (const name of (await this.files()).filter((file) => SEALED.test(file))) {
      const path = join(this.dir, name);
      const text = await readFile(path, "utf8");
      const records = parseLines(text);
      for (let index = 0; index < records.length; index += batchSize) {
        await store(records.slice(index, index + batchSize));
      }
      await unlink(path);
      stored += records.length;
      this.bytes = Math.max(0, this.bytes - Buffer.byteLength(text));
      this.events = Math.max(0, this.events - records.length);
    }
    if (this.bytes === 0) this.events = 0;
    return stored;
  }

  private async sealActive(): Promise<void> {
    const active = join(this.dir, ACTIVE);
    try {
      this.sealSeq += 1;
      await rename(
        active,
        join(this.dir, `sealed-${Date.now()}-${String(this.sealSeq).padStart(6, "0")}.jsonl`),
      );
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    }
  }

  private async files(): Promise<string[]> {
    const names = await readdir(this.dir);
    return names.filter((name) => name === ACTIVE || SEALED.test(name)).sort();
  }
}

function parseLines(text: string): SpoolEntry[] {
  const records: SpoolEntry[] = [];
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    try {
      records.push(JSON.parse(line) as SpoolEntry);
    } catch {
      // A torn last line from a crash mid-append: the rest of the file is still good.
    }
  }
  return records;
}
