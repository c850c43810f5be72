/** Test helpers: the project's reference data in ../shared/multiwoz (read in place, never copied into the repo). */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import {
  describeWithReferenceData,
  hasReferenceData,
  itWithReferenceData,
  referencePath,
} from '../../../test-support/reference-data';
import {
  type EvaluatorOptions,
  type MultiwozData,
  type MultiwozReport,
  type RawDatabase,
  MultiwozEvaluator,
  multiwozDataFrom,
} from '../src/index';

export const SHARED = referencePath('multiwoz');
/** Whether ../shared/multiwoz is there; `describeMultiwoz`/`itMultiwoz` skip (marked) when it is not. */
export const HAS_MULTIWOZ = hasReferenceData('multiwoz');
export const describeMultiwoz = describeWithReferenceData('multiwoz');
export const itMultiwoz = itWithReferenceData('multiwoz');
/** The venue databases alone (also in a fetched `multiwoz` resource set). */
export const itDatabase = itWithReferenceData('multiwoz/data/database');
export const describeDatabase = describeWithReferenceData('multiwoz/data/database');
export const FIXTURES = join(__dirname, 'fixtures');

const cache = new Map<string, unknown>();

/** Parsed JSON (gzip transparently) of a file under ../shared/multiwoz (or the resource cache), cached per test file. */
export function shared<T = unknown>(rel: string): T {
  let v = cache.get(rel);
  if (v === undefined) {
    const buf = readFileSync(referencePath(`multiwoz/${rel}`));
    v = JSON.parse((rel.endsWith('.gz') ? gunzipSync(buf) : buf).toString('utf8'));
    cache.set(rel, v);
  }
  return v as T;
}

/** The venue database as the v2022 (restaurant_db.v2022.json) or v2023 evaluator has it. */
export function sharedDatabase(version: '2022' | '2023'): RawDatabase {
  return Object.fromEntries(
    ['restaurant', 'attraction', 'hotel', 'train'].map((d) => [
      d,
      shared(`data/database/${d}_db${d === 'restaurant' && version === '2022' ? '.v2022' : ''}.json`),
    ]),
  ) as RawDatabase;
}

/** Full test set data (no references / gold states: not obtainable) or the 21-dialogue subset with both. */
export function sharedData(version: '2022' | '2023', subset21 = false): MultiwozData {
  return multiwozDataFrom({
    database: sharedDatabase(version),
    goals: shared('derived/goals_test_reconstructed.json'),
    bookedDomains: shared('data/booked_domains.json'),
    references: subset21 ? { mwz22: shared('derived/subset21/mwz22_refs.json') } : undefined,
    goldStates: subset21 ? shared('derived/subset21/gold_states.json') : undefined,
  });
}

/** The predictions of a system restricted to the 21 subset dialogues (in the predictions file's order). */
export function subset21Predictions(name: string): Record<string, unknown[]> {
  const ids = new Set(shared<string[]>('derived/subset21/dialog_ids.json'));
  const all = shared<Record<string, unknown[]>>(`predictions/${name}.json`);
  return Object.fromEntries(Object.entries(all).filter(([id]) => ids.has(id)));
}

/** Relative float comparison (the spec: floats within 1e-12 relative, integers exactly). */
export function closeTo(actual: number, expected: number, rel = 1e-12): boolean {
  if (actual === expected) return true;
  return Math.abs(actual - expected) <= rel * Math.abs(expected);
}

/**
 * Differences between a result and an expected mwzeval output: integers (and integral floats such as 100.0) must be
 * equal, other floats within 1e-12 relative; keys must match.
 */
export function diffResults(actual: unknown, expected: unknown, path = ''): string[] {
  if (typeof expected === 'number') {
    if (typeof actual !== 'number') return [`${path}: got ${JSON.stringify(actual)}, expected ${expected}`];
    const ok = Number.isInteger(expected) ? actual === expected : closeTo(actual, expected);
    return ok ? [] : [`${path}: got ${actual}, expected ${expected}`];
  }
  if (expected === null || typeof expected !== 'object') {
    return actual === expected ? [] : [`${path}: got ${JSON.stringify(actual)}, expected ${JSON.stringify(expected)}`];
  }
  if (actual === null || typeof actual !== 'object')
    return [`${path}: got ${JSON.stringify(actual)}, expected an object`];
  const keys = new Set([...Object.keys(actual), ...Object.keys(expected)]);
  return [...keys].flatMap((k) =>
    diffResults((actual as Record<string, unknown>)[k], (expected as Record<string, unknown>)[k], `${path}.${k}`),
  );
}

/** The systems whose mwzeval outputs are recorded in expected/ (all of them), and those with per-dialogue results. */
export const EXPECTED_SYSTEMS = ['augpt', 'damd', 'galaxy-e2e', 'hdsa', 'labes', 'lava', 'mintl', 'ubar'];
export const PER_DIALOG_SYSTEMS = ['augpt', 'damd', 'galaxy-e2e', 'labes', 'mintl', 'ubar'];

const evaluators = new Map<string, MultiwozEvaluator>();
/**
 * An evaluator on the shared data (full test set, or the 21-dialogue subset with its references: BLEU only there),
 * one per version, subset and options: its databases and query caches serve every system evaluated with it.
 */
export function sharedEvaluator(
  version: '2022' | '2023',
  subset: boolean,
  extra: EvaluatorOptions = {},
): MultiwozEvaluator {
  const key = `${version}:${subset}:${JSON.stringify(extra)}`;
  let ev = evaluators.get(key);
  if (!ev) {
    ev = new MultiwozEvaluator(sharedData(version, subset), {
      normalization: version,
      success: true,
      richness: true,
      bleu: subset,
      ...extra,
    });
    evaluators.set(key, ev);
  }
  return ev;
}

const reports = new Map<string, MultiwozReport>();
/** A full-test-set evaluation of a shared predictions file, once per file and options (`transform` edits the input). */
export function fullReport(
  version: '2022' | '2023',
  name: string,
  extra: EvaluatorOptions = {},
  transform?: (p: Record<string, unknown[]>) => unknown,
): MultiwozReport {
  const key = `${version}:${name}:${JSON.stringify(extra)}:${transform ? 'T' : ''}`;
  let r = reports.get(key);
  if (!r) {
    const input = shared<Record<string, unknown[]>>(`predictions/${name}.json`);
    r = sharedEvaluator(version, false, extra).evaluate(transform ? transform(input) : input);
    reports.set(key, r);
  }
  return r;
}
