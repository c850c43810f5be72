import { mkdir, open, readFile } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';

export type JournalRecord = { id: string; ok: true; value: unknown; t?: string } | { id: string; ok: false; error: string; t?: string };

/**
 * Reads a run journal. Lines that do not parse (the last line of a run killed mid-write) are ignored; for an id
 * that appears more than once the last record wins (a failure retried successfully in a later run).
 */
export async function readJournal(file: string): Promise<{ records: Map<string, JournalRecord>; endsWithNewline: boolean; exists: boolean }> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { records: new Map(), endsWithNewline: true, exists: false };
    throw error;
  }
  const records = new Map<string, JournalRecord>();
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    let rec: JournalRecord;
    try {
      rec = JSON.parse(line) as JournalRecord;
    } catch {
      continue;
    }
    if (!rec || typeof rec !== 'object' || typeof rec.id !== 'string' || typeof rec.ok !== 'boolean') continue;
    if (rec.ok === false && typeof rec.error !== 'string') continue;
    records.set(rec.id, rec);
  }
  return { records, endsWithNewline: text.length === 0 || text.endsWith('\n'), exists: true };
}

/**
 * Append-only JSONL journal, one line per finished item. Appends are group-committed: lines that arrive while
 * a write is in flight are written together, and `append` resolves only after the data is fsync'd.
 */
export class JournalWriter {
  private fh: FileHandle | undefined;
  private pending: Array<{ line: string; resolve: () => void; reject: (e: unknown) => void }> = [];
  private writing: Promise<void> | undefined;
  private needsNewline: boolean;
  private readonly sync: boolean;
  readonly file: string;

  private constructor(file: string, fh: FileHandle, needsNewline: boolean, sync: boolean) {
    this.file = file;
    this.fh = fh;
    this.needsNewline = needsNewline;
    this.sync = sync;
  }

  /** Opens `file` for appending; `sync: false` skips the fsync (logs that need no durability). */
  static async open(file: string, endsWithNewline: boolean, options: { sync?: boolean } = {}): Promise<JournalWriter> {
    await mkdir(dirname(file), { recursive: true });
    const fh = await open(file, 'a');
    return new JournalWriter(file, fh, !endsWithNewline, options.sync ?? true);
  }

  append(record: JournalRecord): Promise<void> {
    return this.appendLine(record);
  }

  /** Appends any JSON value as one line. */
  appendLine(value: unknown): Promise<void> {
    const line = `${JSON.stringify(value)}\n`;
    return new Promise((resolve, reject) => {
      this.pending.push({ line, resolve, reject });
      if (!this.writing) this.writing = this.flushLoop();
    });
  }

  private async flushLoop(): Promise<void> {
    while (this.pending.length > 0) {
      const batch = this.pending;
      this.pending = [];
      try {
        if (!this.fh) throw new Error(`journal ${this.file} is closed`);
        let data = batch.map((b) => b.line).join('');
        if (this.needsNewline) {
          data = `\n${data}`;
          this.needsNewline = false;
        }
        await this.fh.write(data);
        if (this.sync) await this.fh.sync();
        for (const b of batch) b.resolve();
      } catch (error) {
        for (const b of batch) b.reject(error);
      }
    }
    this.writing = undefined;
  }

  async close(): Promise<void> {
    while (this.writing) await this.writing;
    await this.fh?.close();
    this.fh = undefined;
  }
}
