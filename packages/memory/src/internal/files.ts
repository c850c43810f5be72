/**
 * Readers: the HaluMem dataset and run artifacts (streaming JSONL, one user per line, bounded memory), judged-record
 * files (HaluMem's `<frame>_eval_stat_result.json`, its per-user `tmp2/<uuid>.json`, or this package's own output) and
 * directories of per-user files (pooled as the reference pools `tmp2/`).
 */
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { InputError, readJson, readJsonl, validate, type ReadOptions } from '@eval/core';
import { addDurations, timeConsumingFromSums, type DurationSums, type TimeConsuming } from '../metrics';
import {
  RECORD_KEYS,
  datasetUserSchema,
  evalRecordsSchema,
  runArtifactUserSchema,
  type DatasetUser,
  type EvalRecords,
  type RunArtifactUser,
} from './schema';

/**
 * Streams a run artifact (`<frame>_eval_results.jsonl`), validating each user. The yielded objects are the parsed
 * JSON as written (key order and extras intact), not zod's re-built copies.
 */
export async function* readRunArtifact(
  file: string,
  read?: ReadOptions,
): AsyncGenerator<{ line: number; user: RunArtifactUser }> {
  for await (const { line, value } of readJsonl(file, undefined, read)) {
    validate(runArtifactUserSchema, value, { file, record: line });
    yield { line, user: value as RunArtifactUser };
  }
}

/** Streams a HaluMem dataset file (`HaluMem-Medium.jsonl` / `HaluMem-Long.jsonl`), validating each user. */
export async function* readDataset(
  file: string,
  read?: ReadOptions,
): AsyncGenerator<{ line: number; user: DatasetUser }> {
  for await (const { line, value } of readJsonl(file, undefined, read)) {
    validate(datasetUserSchema, value, { file, record: line });
    yield { line, user: value as DatasetUser };
  }
}

/** `time_consuming` over ALL users of an artifact file, summed in file order (as the reference). */
export async function computeTimeConsuming(file: string, read?: ReadOptions): Promise<TimeConsuming> {
  const sums: DurationSums = { addDialogueMs: 0, searchMs: 0 };
  for await (const { line, value } of readJsonl(file, undefined, read)) {
    const sessions = (value as { sessions?: unknown }).sessions;
    if (!Array.isArray(sessions))
      throw new InputError('expected a list of sessions', { file, record: line, field: ['sessions'] });
    sessions.forEach((s, i) => {
      const session = s as Record<string, unknown>;
      if ('add_dialogue_duration_ms' in session && typeof session.add_dialogue_duration_ms !== 'number') {
        throw new InputError('expected a number', {
          file,
          record: line,
          field: ['sessions', i, 'add_dialogue_duration_ms'],
        });
      }
      if (Array.isArray(session.questions)) {
        (session.questions as Array<Record<string, unknown>>).forEach((q, j) => {
          if ('search_duration_ms' in q && typeof q.search_duration_ms !== 'number') {
            throw new InputError('expected a number', {
              file,
              record: line,
              field: ['sessions', i, 'questions', j, 'search_duration_ms'],
            });
          }
        });
      }
    });
    addDurations(sums, { sessions });
  }
  return timeConsumingFromSums(sums);
}

/** An empty set of record lists. */
export function emptyRecords(): EvalRecords {
  return {
    memory_integrity_records: [],
    memory_accuracy_records: [],
    memory_update_records: [],
    question_answering_records: [],
  };
}

/** Appends `more`'s record lists to `into` (the reference's `extend`, accuracy first as it does not matter). */
export function poolRecords(into: EvalRecords, more: Partial<EvalRecords>): EvalRecords {
  for (const key of RECORD_KEYS) {
    const list = more[key] as unknown[] | undefined;
    if (list) for (const r of list) (into[key] as unknown[]).push(r);
  }
  return into;
}

/**
 * Validates one parsed records object (HaluMem result file or per-user file, or an object whose `records` field holds
 * the lists) and returns its lists as written.
 */
export function recordsFromJson(value: unknown, file?: string): EvalRecords {
  const v = value as { records?: unknown };
  if (
    v &&
    typeof v === 'object' &&
    !Array.isArray(v) &&
    v.records &&
    typeof v.records === 'object' &&
    !RECORD_KEYS.some((k) => k in v)
  ) {
    value = v.records;
  }
  validate(evalRecordsSchema, value, { file });
  const obj = value as Partial<EvalRecords>;
  if (!RECORD_KEYS.some((k) => Array.isArray(obj[k]))) {
    throw new InputError(`no record lists found (expected ${RECORD_KEYS.join(', ')})`, { file });
  }
  return poolRecords(emptyRecords(), obj);
}

/** The `overall_score.time_consuming` of a HaluMem stat result file, when it has one with three numbers. */
function storedTimeConsuming(value: unknown): TimeConsuming | undefined {
  const t = (value as { overall_score?: { time_consuming?: Record<string, unknown> } } | null)?.overall_score
    ?.time_consuming;
  if (!t || typeof t !== 'object') return undefined;
  const keys = ['add_dialogue_duration_time', 'search_memory_duration_time', 'total_duration_time'] as const;
  if (!keys.every((k) => typeof t[k] === 'number')) return undefined;
  return {
    add_dialogue_duration_time: t[keys[0]] as number,
    search_memory_duration_time: t[keys[1]] as number,
    total_duration_time: t[keys[2]] as number,
  };
}

/**
 * Loads judged records: a JSON file with `*_records` lists (HaluMem's `<frame>_eval_stat_result.json` or a
 * `tmp2/<uuid>.json`, or this package's output), or a directory whose `*.json` files are pooled in directory-listing
 * order, as `evaluation.py` pools `tmp2/`. A stat result file's stored `time_consuming` is returned as well (records carry
 * no durations, so it cannot be recomputed from them). `read.onRead` sees each file's bytes as read (a run record
 * hashes them).
 */
export async function loadEvalRecords(
  path: string,
  read?: ReadOptions,
): Promise<{ records: EvalRecords; files: string[]; timeConsuming?: TimeConsuming }> {
  const st = await stat(path).catch(() => undefined);
  if (!st) throw new InputError('file not found', { file: path, code: 'file_not_found' });
  if (!st.isDirectory()) {
    const value = await readJson(path, undefined, read);
    return { records: recordsFromJson(value, path), files: [path], timeConsuming: storedTimeConsuming(value) };
  }
  const names = (await readdir(path)).filter((n) => n.endsWith('.json'));
  const records = emptyRecords();
  const files: string[] = [];
  for (const name of names) {
    const file = join(path, name);
    poolRecords(records, recordsFromJson(await readJson(file, undefined, read), file));
    files.push(file);
  }
  if (files.length === 0) throw new InputError('directory holds no *.json record files', { file: path });
  return { records, files };
}
