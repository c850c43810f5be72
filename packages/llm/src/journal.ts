import { FileSystemError } from '@eval/core';
import { mkdir, open, readFile } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';

import { canonicalJson, sha256 } from './hash';

/** One finished job. `c`, added on writing, is a checksum of the rest of the line. */
export type JournalRecord =
  | { id: string; ok: true; value: unknown; t?: string }
  | { id: string; ok: false; error: string; code?: string; status?: number; t?: string };

/** Checksum of a journal record: the first 16 hex digits of the sha256 of its canonical JSON (without `c`). */
export function journalChecksum(record: Record<string, unknown>): string {
  const { c: _c, ...rest } = record;
  return sha256(canonicalJson(rest)).slice(0, 16);
}

/**
 * Reads a run journal. Lines that do not parse (the last line of a run killed mid-write) are ignored; lines whose
 * checksum `c` is missing or does not match (edited, damaged) are dropped and counted in `dropped`: their items are
 * run again. For an id that appears more than once the last record wins (a failure retried successfully later).
 */
export async function readJournal(
  file: string,
): Promise<{ records: Map<string, JournalRecord>; endsWithNewline: boolean; exists: boolean; dropped: number }> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT')
      return { records: new Map(), endsWithNewline: true, exists: false, dropped: 0 };
    throw FileSystemError.from(error, file, 'cannot read');
  }
  const records = new Map<string, JournalRecord>();
  let dropped = 0;
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.trim() === '') continue;
    let rec: JournalRecord & { c?: unknown };
    try {
      rec = JSON.parse(line) as JournalRecord & { c?: unknown };
    } catch {
      // The last line of a run killed mid-write is expected; a broken line elsewhere is damage.
      if (i < lines.length - 1) dropped++;
      continue;
    }
    if (!rec || typeof rec !== 'object' || typeof rec.id !== 'string' || typeof rec.ok !== 'boolean') {
      dropped++;
      continue;
    }
    if (rec.ok === false && typeof rec.error !== 'string') {
      dropped++;
      continue;
    }
    if (typeof rec.c !== 'string' || rec.c !== journalChecksum(rec as unknown as Record<string, unknown>)) {
      dropped++;
      // A checked record of this id read earlier is not trusted either: the item is run again.
      records.delete(rec.id);
      continue;
    }
    const { c: _c, ...clean } = rec;
    records.set(rec.id, clean as JournalRecord);
  }
  return { records, endsWithNewline: text.length === 0 || text.endsWith('\n'), exists: true, dropped };
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
    try {
      await mkdir(dirname(file), { recursive: true });
    } catch (error) {
      throw FileSystemError.from(error, dirname(file), 'cannot create directory');
    }
    let fh: FileHandle;
    try {
      fh = await open(file, 'a');
    } catch (error) {
      throw FileSystemError.from(error, file);
    }
    return new JournalWriter(file, fh, !endsWithNewline, options.sync ?? true);
  }

  /** Appends a record with its checksum `c`. */
  append(record: JournalRecord): Promise<void> {
    return this.appendLine({ ...record, c: journalChecksum(record as unknown as Record<string, unknown>) });
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
        const failure = FileSystemError.from(error, this.file);
        for (const b of batch) b.reject(failure);
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
