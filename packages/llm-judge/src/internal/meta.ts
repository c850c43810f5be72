import { cohenKappa, InputError, readText } from '@eval/core';
import { PyDict, typeName } from './python';
import { parseJsonFile, parseJsonlFile } from './records';

/**
 * Human judgements of turns: flag -> 1 (the turn's prediction is right) or 0. Read from the reference's
 * `human/manual_eval.json` (a list of objects with `flag` and `manual_eval`), a `{flag: 0|1}` object, or JSON
 * lines `{"flag": ..., "human": 0|1}` (`manual_eval` also accepted).
 */
export type HumanJudgements = Map<string, 0 | 1>;

function label(v: unknown, loc: { file?: string; record: string | number; field: Array<string | number> }): 0 | 1 {
  if (v === 0 || v === 1 || v === false || v === true) return v === true || v === 1 ? 1 : 0;
  throw new InputError(`expected a human judgement 0 or 1, got ${JSON.stringify(v)}`, loc);
}

/** Reads human judgements (see {@link HumanJudgements} for the accepted shapes); duplicate flags are an error. */
export async function readHumanJudgements(file: string): Promise<HumanJudgements> {
  const text = await readText(file);
  const values = /\.jsonl(\.gz)?$/i.test(file) ? parseJsonlFile(text, file) : parseJsonFile(text, file);
  const out: HumanJudgements = new Map();
  const add = (flag: unknown, v: unknown, record: string | number, field: string) => {
    if (typeof flag !== 'string') throw new InputError('flag must be a string', { file, record, field: ['flag'] });
    if (out.has(flag)) throw new InputError(`duplicate flag ${flag}`, { file, record, field: ['flag'] });
    out.set(flag, label(v, { file, record, field: [field] }));
  };
  if (values instanceof PyDict && !values.has('flag')) {
    for (const [k, v] of values.items()) add(k, v, String(k), String(k));
    return out;
  }
  const list = Array.isArray(values) ? values : [values];
  list.forEach((item, i) => {
    if (!(item instanceof PyDict))
      throw new InputError(`expected an object with flag and manual_eval, got ${typeName(item)}`, { file, record: i });
    const field = item.has('manual_eval') ? 'manual_eval' : item.has('human') ? 'human' : undefined;
    if (!field) throw new InputError('expected a "manual_eval" (or "human") judgement', { file, record: i });
    add(item.get('flag'), item.get(field), i, field);
  });
  return out;
}

/** One judge's per-turn judgements with the MultiWOZ 2.4 rule judgement of the same turns. */
export interface MetaJudge {
  name: string;
  turns: ReadonlyArray<{ flag: string; judge: 0 | 1; ruleMwz24: 0 | 1 | null }>;
}

/** 2x2 agreement table between a judge and the humans over the annotated turns (1 = turn right). */
export interface Confusion {
  /** judge 1, human 1 */
  bothRight: number;
  /** judge 1, human 0 */
  judgeRightHumanWrong: number;
  /** judge 0, human 1 */
  judgeWrongHumanRight: number;
  /** judge 0, human 0 */
  bothWrong: number;
}

export interface HumanCheckRow {
  name: string;
  /**
   * The paper's human-check accuracy (`human/recalc.py`), in percent:
   * `(N - |D| + |{t in D ∩ A : judge(t) = human(t)}|) / N * 100`, D = turns where the judge differs from
   * RULE-M24, A = annotated turns. For RULE-M24 itself: `(N - |A| + |{t in A : rule(t) = human(t)}|) / N * 100`.
   */
  accuracy: number | null;
  /** |D|: turns where the judge differs from RULE-M24 (for RULE-M24: |A|). */
  disagreements: number;
  /** |D ∩ A|. */
  annotatedDisagreements: number;
  /** Of those, how many agree with the human. */
  agreeWithHuman: number;
  /** Annotated turns this judge judged (the base of kappa and the confusion table). */
  annotatedJudged: number;
  /** Cohen's kappa between judge and human over the annotated turns it judged (`null` when undefined). */
  kappa: number | null;
  confusion: Confusion;
}

export interface HumanCheckResult {
  /** N: the number of turns (the paper: 732). */
  turns: number;
  annotated: number;
  rows: HumanCheckRow[];
  /** Annotated flags that are not among the judged turns (ignored, counted). */
  unknownFlags: string[];
}

function confusionOf(pairs: Array<[0 | 1, 0 | 1]>): Confusion {
  const c: Confusion = { bothRight: 0, judgeRightHumanWrong: 0, judgeWrongHumanRight: 0, bothWrong: 0 };
  for (const [j, h] of pairs) {
    if (j === 1 && h === 1) c.bothRight++;
    else if (j === 1) c.judgeRightHumanWrong++;
    else if (h === 1) c.judgeWrongHumanRight++;
    else c.bothWrong++;
  }
  return c;
}

function kappaOf(pairs: Array<[0 | 1, 0 | 1]>): number | null {
  if (pairs.length === 0) return null;
  const k = cohenKappa(
    pairs.map((p) => p[0]),
    pairs.map((p) => p[1]),
  );
  return Number.isFinite(k) ? k : null;
}

/**
 * Meta-evaluation of judges against human judgements (§6.1 "human-check accuracy"), plus Cohen's kappa and the
 * confusion table over the annotated turns. `turns` is N; `rule` gives the RULE-M24 judgement of each turn (for the
 * RULE-M24 row; usually the turns of one of the judges). Quirk 13 is kept: turns outside D count as right.
 */
export function humanCheck(options: {
  turns: number;
  human: HumanJudgements;
  judges: readonly MetaJudge[];
  /** RULE-M24 judgements, for its own row (omit to leave the row out). */
  rule?: ReadonlyArray<{ flag: string; ruleMwz24: 0 | 1 | null }>;
}): HumanCheckResult {
  const { turns: n, human } = options;
  const known = new Set<string>();
  const rows: HumanCheckRow[] = [];
  for (const judge of options.judges) {
    const pairs: Array<[0 | 1, 0 | 1]> = [];
    let disagreements = 0;
    let annotatedDisagreements = 0;
    let agree = 0;
    for (const t of judge.turns) {
      known.add(t.flag);
      const h = human.get(t.flag);
      if (h !== undefined) pairs.push([t.judge, h]);
      if (t.ruleMwz24 === null || t.judge === t.ruleMwz24) continue;
      disagreements++;
      if (h === undefined) continue;
      annotatedDisagreements++;
      if (t.judge === h) agree++;
    }
    rows.push({
      name: judge.name,
      accuracy: n === 0 ? null : ((n - disagreements + agree) / n) * 100,
      disagreements,
      annotatedDisagreements,
      agreeWithHuman: agree,
      annotatedJudged: pairs.length,
      kappa: kappaOf(pairs),
      confusion: confusionOf(pairs),
    });
  }
  if (options.rule) {
    const pairs: Array<[0 | 1, 0 | 1]> = [];
    let agree = 0;
    for (const t of options.rule) {
      known.add(t.flag);
      const h = human.get(t.flag);
      if (h === undefined || t.ruleMwz24 === null) continue;
      pairs.push([t.ruleMwz24, h]);
      if (t.ruleMwz24 === h) agree++;
    }
    rows.push({
      name: 'RULE-M24',
      accuracy: n === 0 ? null : ((n - pairs.length + agree) / n) * 100,
      disagreements: pairs.length,
      annotatedDisagreements: pairs.length,
      agreeWithHuman: agree,
      annotatedJudged: pairs.length,
      kappa: kappaOf(pairs),
      confusion: confusionOf(pairs),
    });
  }
  return { turns: n, annotated: human.size, rows, unknownFlags: [...human.keys()].filter((f) => !known.has(f)) };
}
