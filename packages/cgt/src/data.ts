import { readdir, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { InputError, jsonSyntaxError, readText, validate, type ReadOptions } from '@eval/core';
import { PythonJsonError, isPyDict, parsePythonJson, toPlainJson } from '@eval/core/python';
import { z } from 'zod';
import {
  CGA_VARIANT_DIRS,
  type CgaVariant,
  type CommonGroundHistory,
  cgaFileName,
  fbankWeights,
  loadCgaHistory,
  parsePythonFloat,
} from './common-ground';
import {
  type InvalidPredictionReason,
  type Weights,
  type WeightsInput,
  parseGoldList,
  parsePrediction,
  toWeights,
} from './normalize';

/** One evaluation row: the gold common ground at an accepted statement and the model's (normalised) answer. */
export interface CgtRow {
  /** The row key: the ACCEPT end time as written in the file (Python float repr, e.g. `"98.088"`). */
  key: string;
  gold: Weights;
  pred: Weights;
  /** The raw answer text (`gpt_chat[-1].output.text`) when read from a file. */
  text?: string | null;
  /** Set when the answer was not a JSON object and was scored as `{}` (`invalidPrediction: 'empty'`). */
  invalid?: { reason: InvalidPredictionReason; message: string };
}

/** One group (one dialogue) of a setting. */
export interface CgtGroup {
  /** Group id, e.g. `"1"` (from `..._group_1.json`). */
  id: string;
  /** The file it was read from, if any. */
  file?: string;
  rows: CgtRow[];
}

/** What to do with an answer that is not a JSON object: the reference crashes later; we throw or score it as `{}`. */
export type InvalidPredictionMode = 'error' | 'empty';

export interface ReadGroupOptions {
  /** Group id (default: from the file name `..._group_<id>.json`, else the file name). */
  id?: string;
  /** File name used in error messages. */
  file?: string;
  /** `error` (default): an answer that is not a JSON object is an {@link InputError}; `empty`: scored as `{}` and counted. */
  invalidPrediction?: InvalidPredictionMode;
  /** Called with each group file's path and bytes as read (`ReadOptions.onRead`: a run record hashes them). */
  onRead?: ReadOptions['onRead'];
}

const ChatTurnSchema = z.object({
  output: z.object({ text: z.string().nullable() }),
});
const RowSchema = z.object({
  gold: z.array(z.string()),
  gpt_chat: z.array(ChatTurnSchema).min(1, { error: 'no chat turns: the prediction is the last turn output.text' }),
});

const GROUP_FILE_RE = /_group_(\d+)\.json$/;

/** The group id of a recorded-output file name (`mmdp_gpt_output_gpt-3.5-0125_segmented_group_7.json` → `"7"`). */
export function groupIdOf(file: string): string | undefined {
  const m = GROUP_FILE_RE.exec(basename(file));
  return m ? String(Number(m[1])) : undefined;
}

/**
 * Reads one recorded-output group file (`{ "<end time>": { "gold": [...], "gpt_chat": [...] } }`) into rows, in the
 * file's key order, exactly as the reference's `load_cga_json`: gold items `"c=w"` and the last chat output parsed
 * and normalised ({@link parsePrediction}).
 */
export function parseGroupJson(text: string, options: ReadGroupOptions = {}): CgtGroup {
  const file = options.file;
  let doc;
  try {
    doc = parsePythonJson(text);
  } catch (error) {
    if (error instanceof PythonJsonError) throw jsonSyntaxError(error, text, { file });
    throw error;
  }
  if (!isPyDict(doc)) throw new InputError('expected a JSON object keyed by ACCEPT end time', { file });
  const rows: CgtRow[] = [];
  for (const [key, value] of doc) {
    const row = validate(RowSchema, toPlainJson(value), { file, record: key });
    const gold = parseGoldList(row.gold);
    if (!gold.ok) {
      throw new InputError(`gold item ${JSON.stringify(row.gold[gold.index])} has no "=" (expected "color=weight")`, {
        file,
        record: key,
        field: ['gold', gold.index],
      });
    }
    const last = row.gpt_chat.length - 1;
    const answer = row.gpt_chat[last]!.output.text;
    const pred = parsePrediction(answer);
    if (pred.ok) {
      rows.push({ key, gold: gold.weights, pred: pred.weights, text: answer });
      continue;
    }
    if (options.invalidPrediction !== 'empty') {
      throw new InputError(
        `${pred.message}; the reference crashes on such a prediction (use invalidPrediction: 'empty' / --invalid-prediction empty to score it as {})`,
        { file, record: key, field: ['gpt_chat', last, 'output', 'text'], code: 'input_invalid_prediction' },
      );
    }
    rows.push({
      key,
      gold: gold.weights,
      pred: new Map(),
      text: answer,
      invalid: { reason: pred.reason, message: pred.message },
    });
  }
  return { id: options.id ?? (file ? (groupIdOf(file) ?? basename(file)) : '1'), file, rows };
}

/** Reads a group file from disk (gzip transparently); see {@link parseGroupJson}. */
export async function readGroupFile(file: string, options: Omit<ReadGroupOptions, 'file'> = {}): Promise<CgtGroup> {
  return parseGroupJson(await readText(file, options.onRead ? { onRead: options.onRead } : undefined), {
    ...options,
    file,
  });
}

/** Builds a group from in-memory rows (gold and already-normalised predictions). */
export function groupFromRows(
  rows: ReadonlyArray<{ key?: string; gold: WeightsInput; pred: WeightsInput }>,
  id = '1',
): CgtGroup {
  return {
    id,
    rows: rows.map((r, i) => ({ key: r.key ?? String(i), gold: toWeights(r.gold), pred: toWeights(r.pred) })),
  };
}

/** The recorded outputs of one setting (one model/condition): its groups in group-number order. */
export interface CgtSetting {
  name: string;
  dir?: string;
  groups: CgtGroup[];
}

async function listGroupFiles(dir: string): Promise<string[]> {
  const names = await readdir(dir);
  return names
    .filter((n) => GROUP_FILE_RE.test(n))
    .sort((a, b) => Number(groupIdOf(a)) - Number(groupIdOf(b)) || (a < b ? -1 : a > b ? 1 : 0));
}

async function isDir(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined))?.isDirectory() ?? false;
}

/** Reads every `..._group_<n>.json` of a setting folder, in group-number order. */
export async function readSettingDir(
  dir: string,
  options: Omit<ReadGroupOptions, 'file' | 'id'> & { name?: string } = {},
): Promise<CgtSetting> {
  if (!(await isDir(dir))) throw new InputError('not a directory', { file: dir, code: 'file_not_found' });
  const files = await listGroupFiles(dir);
  if (files.length === 0) throw new InputError('no group files (*_group_<n>.json) in this directory', { file: dir });
  const groups: CgtGroup[] = [];
  const seen = new Map<string, string>();
  for (const f of files) {
    const id = groupIdOf(f)!;
    if (seen.has(id)) throw new InputError(`group ${id} appears twice (${seen.get(id)} and ${f})`, { file: dir });
    seen.set(id, f);
    groups.push(await readGroupFile(join(dir, f), { ...options, id }));
  }
  return { name: options.name ?? basename(dir), dir, groups };
}

/**
 * Reads predictions from a setting folder (group files directly inside), from a folder of setting folders (every
 * sub-folder that holds group files, sorted by name), or from a single group file.
 */
export async function readPredictions(
  dir: string,
  options: Omit<ReadGroupOptions, 'file' | 'id'> = {},
): Promise<CgtSetting[]> {
  if (!(await isDir(dir))) {
    const st = await stat(dir).catch(() => undefined);
    // A single group file: one setting named after its folder.
    if (st?.isFile())
      return [{ name: basename(dirname(dir)), dir: dirname(dir), groups: [await readGroupFile(dir, options)] }];
    throw new InputError('directory not found', { file: dir, code: 'file_not_found' });
  }
  if ((await listGroupFiles(dir)).length > 0) return [await readSettingDir(dir, options)];
  const subdirs: string[] = [];
  for (const name of (await readdir(dir)).sort()) {
    const sub = join(dir, name);
    if ((await isDir(sub)) && (await listGroupFiles(sub)).length > 0) subdirs.push(name);
  }
  if (subdirs.length === 0) {
    throw new InputError('no group files (*_group_<n>.json) here or in any sub-folder', { file: dir });
  }
  const settings: CgtSetting[] = [];
  for (const name of subdirs) settings.push(await readSettingDir(join(dir, name), { ...options, name }));
  return settings;
}

/**
 * The folder holding `Group_NN_CGA.csv` for a variant: `<dir>/cga_originals` or `<dir>/cga_new` when present
 * (the `cgt` resource set layout), else `dir` itself.
 */
export async function cgaDirFor(dir: string, variant: CgaVariant = 'originals'): Promise<string> {
  const sub = join(dir, CGA_VARIANT_DIRS[variant]);
  return (await isDir(sub)) ? sub : dir;
}

/**
 * Gold of a row from a replayed history: the FBank of the snapshot at `float(rowKey)`. Throws when the row key is not
 * an end time of a STATEMENT/ACCEPT row of the annotations.
 */
export function goldAt(
  history: CommonGroundHistory,
  key: string,
  where: { file?: string; cgaFile?: string } = {},
): Weights {
  const t = parsePythonFloat(key);
  if (t === undefined) throw new InputError('row key is not a time in seconds', { file: where.file, record: key });
  const snap = history.get(t);
  if (!snap) {
    throw new InputError(`no STATEMENT/ACCEPT of ${where.cgaFile ?? 'the CGA annotations'} ends at this time`, {
      file: where.file,
      record: key,
    });
  }
  return fbankWeights(snap);
}

/**
 * Replaces every row's gold by the common ground replayed from the CGA annotations (`Group_NN_CGA.csv` in `cgaDir`),
 * as the reference built the recorded gold lists.
 */
export async function withReplayedGold(groups: readonly CgtGroup[], cgaDir: string): Promise<CgtGroup[]> {
  const out: CgtGroup[] = [];
  for (const group of groups) {
    const cgaFile = join(cgaDir, cgaFileName(group.id));
    const history = await loadCgaHistory(cgaFile);
    out.push({
      ...group,
      rows: group.rows.map((r) => ({ ...r, gold: goldAt(history, r.key, { file: group.file, cgaFile }) })),
    });
  }
  return out;
}

export interface GoldCheck {
  key: string;
  ok: boolean;
  /** Snapshot type at the row's time (`ACCEPT` expected), or `missing` when the time is not in the history. */
  cgType: 'STATEMENT' | 'ACCEPT' | null | 'missing';
  expected: string[];
  replayed: string[];
}

/**
 * Checks a group's recorded gold against a replayed history: at `float(rowKey)` the snapshot must be an ACCEPT and
 * its FBank must equal the set of recorded gold items.
 */
export function checkGold(group: CgtGroup, history: CommonGroundHistory): GoldCheck[] {
  return group.rows.map((row) => {
    const expected = [...row.gold].map(([k, v]) => `${k}=${v}`).sort();
    const t = parsePythonFloat(row.key);
    const snap = t === undefined ? undefined : history.get(t);
    if (!snap) return { key: row.key, ok: false, cgType: 'missing', expected, replayed: [] };
    const replayed = [...snap.fbank].sort();
    const ok =
      snap.cgType === 'ACCEPT' && replayed.length === expected.length && replayed.every((x, i) => x === expected[i]);
    return { key: row.key, ok, cgType: snap.cgType, expected, replayed };
  });
}
