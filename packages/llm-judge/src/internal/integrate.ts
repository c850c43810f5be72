import { EvalError, InputError } from '@eval/core';
import { parseAccuracyOutput, parseCompletenessOutput, parseSingleStepOutput, type ParsedVia } from './parse';
import type { PyValue } from './python';
import { groupByDialogue, orderedTurns, type TurnRecord } from './records';
import type { OutputEntry } from './recorded';
import { DEFAULT_SCHEMA, type SlotSchema } from './slots';

/**
 * What to do with an output the reference cannot use (quirk 10):
 * - `reference` (default): throw where the reference crashes, skip the turn where it skips;
 * - `skip`: leave the turn out everywhere;
 * - `judge-wrong`: keep the turn with judgement 0 (no incorrect/missed slots taken from the output).
 * A failed LLM call (empty output) is never a crash: `reference` and `skip` leave the turn out, `judge-wrong`
 * keeps it with judgement 0.
 */
export type OnParseFailure = 'reference' | 'skip' | 'judge-wrong';

export interface IntegrateOptions {
  schema?: SlotSchema;
  onParseFailure?: OnParseFailure;
  /**
   * Quirk 4: the completeness filter drops a "missed" slot that is already in `correct`, whatever value the
   * judge reports (default `false`, the reference). `true` keeps it when the reported value differs.
   */
  completenessValueAware?: boolean;
}

/** The dialogue-level sets, as lists (insertion order; the reference's order is arbitrary). */
export interface TrackedSets {
  incorrect: string[];
  missed: string[];
  /** Slots in `correct` (their keys). */
  correct: string[];
}

export interface TurnJudgement {
  flag: string;
  dialogueId: string;
  turnIndex: number;
  /** 1 = the turn's predicted slot-values are accurate and complete. */
  judge: 0 | 1;
  /** Slots judged incorrect in this turn, after the method's filter (`incorrect_after_acc_filter` / `incorrect_after_filter`). */
  incorrect: string[];
  /** Slots judged missed in this turn, after the completeness filter (`missed_after_filter`). */
  missed: string[];
  /** The sets before this turn was processed (the reference's `already`, used by its GPT-JGA). */
  before: TrackedSets;
  /** The sets after this turn (for the after-turn GPT-JGA variant). */
  after: TrackedSets;
  record: TurnRecord;
  /** Set when the turn was kept with judgement 0 because its output was unusable (`judge-wrong`). */
  failure?: string;
}

export type FailureStage = 'accuracy' | 'completeness' | 'single-step';

export interface TurnFailure {
  flag: string;
  stage: FailureStage;
  /** `llm` = the call failed (empty output); `parse` = the output could not be used. */
  kind: 'llm' | 'parse';
  reason: string;
  /** What happened to the turn. */
  action: 'skipped' | 'judged-wrong';
}

export interface IntegrationResult {
  kind: 'two-step' | 'single-step';
  /** Emitted turns, in the reference's order (dialogues by first appearance, turns ascending). */
  turns: TurnJudgement[];
  /** Every turn of the main file (completeness / single-step), same order, emitted or not (rule JGA's denominator). */
  allTurns: TurnRecord[];
  failures: TurnFailure[];
  /** How each stage's outputs were parsed. */
  parsedVia: Record<string, number>;
  /** Predicted slot names outside the schema (judged wrong by the rules), with counts. */
  unknownSlots: Record<string, number>;
}

function snapshot(incorrect: Set<string>, missed: Set<string>, correct: Map<string, string>): TrackedSets {
  return { incorrect: [...incorrect], missed: [...missed], correct: [...correct.keys()] };
}

function parseError(file: string | undefined, entry: OutputEntry, stage: FailureStage, reason: string): EvalError {
  const where = file
    ? `${file}, record ${entry.index} (${entry.record.flag})`
    : `record ${entry.index} (${entry.record.flag})`;
  return new EvalError(
    'unparseable_output',
    `${where}: the ${stage} output cannot be used: ${reason}. The reference crashes here; pass onParseFailure "skip" or "judge-wrong" (CLI --on-parse-failure) to go on`,
  );
}

const isFailedCall = (e: OutputEntry) => e.output === '' && e.prompt !== '';

interface TurnInputs {
  record: TurnRecord;
  /** Incorrect slots reported for this turn (already filtered as the method does). */
  reportedIncorrect: PyValue[];
  missed: Array<[PyValue, PyValue]>;
  failure?: string;
}

/** The reference's per-turn rules, shared by both pipelines. */
class DialogueState {
  readonly missed = new Set<string>();
  readonly incorrect = new Set<string>();
  readonly correct = new Map<string, string>();

  constructor(
    private readonly kind: 'two-step' | 'single-step',
    private readonly schema: SlotSchema,
    private readonly valueAware: boolean,
    private readonly unknownSlots: Record<string, number>,
  ) {}

  process(input: TurnInputs, before: TrackedSets): TurnJudgement {
    const { record } = input;
    const label = record.predictTurnLabel;
    let okAcc = true;
    const turnIncorrect: string[] = [];
    for (const ds of input.reportedIncorrect) {
      if (typeof ds !== 'string') continue;
      if (this.kind === 'single-step' && (!this.schema.slots.has(ds) || !label.has(ds))) continue;
      this.incorrect.add(ds);
      turnIncorrect.push(ds);
      okAcc = false;
    }
    const toBeAdded: string[] = [];
    for (const [ds, value] of input.missed) {
      if (typeof ds !== 'string' || !this.schema.slots.has(ds)) continue;
      if (this.correct.has(ds)) {
        // quirk 4: the reference ignores the reported value
        if (!this.valueAware || (typeof value === 'string' && value === this.correct.get(ds))) continue;
      }
      // (the two-step reference also tests `already_correct`, which equals `correct` at this point)
      if (label.has(ds)) continue;
      toBeAdded.push(ds);
    }
    for (const ds of toBeAdded) this.missed.add(ds);
    let judge: 0 | 1 = okAcc && toBeAdded.length === 0 ? 1 : 0;
    for (const [ds, v] of label) {
      if (!this.schema.slots.has(ds)) {
        judge = 0;
        this.unknownSlots[ds] = (this.unknownSlots[ds] ?? 0) + 1;
        if (this.kind === 'two-step') this.incorrect.add(ds);
        continue;
      }
      if (this.correct.has(ds) && this.correct.get(ds) === v) {
        judge = 0;
        continue;
      }
      const slot = ds.split('-')[1]!;
      const allowed = this.schema.numericValues.get(slot);
      if (allowed && !allowed.has(v)) {
        judge = 0;
        continue;
      }
      if (!this.incorrect.has(ds)) {
        this.missed.delete(ds);
        this.correct.set(ds, v);
      }
    }
    if (input.failure) judge = 0;
    return {
      flag: record.flag,
      dialogueId: record.dialogueId,
      turnIndex: record.turnIndex,
      judge,
      incorrect: turnIncorrect,
      missed: toBeAdded,
      before,
      after: snapshot(this.incorrect, this.missed, this.correct),
      record,
      ...(input.failure ? { failure: input.failure } : {}),
    };
  }
}

export interface TwoStepOutputs {
  /** Completeness outputs, in file order (the dialogue order of the result follows this file). */
  completeness: readonly OutputEntry[];
  /** Accuracy outputs (any order), one per turn; skipped calls carry the placeholder output. */
  accuracy: readonly OutputEntry[];
  files?: { accuracy?: string; completeness?: string };
}

/**
 * The two-step integration (`parser_acc_result.py` + `analyze/parser.py`; methods Ours and Two-dimensional
 * CoT): accuracy sets per flag, then per dialogue, per turn in order, the completeness filters, the sticky
 * incorrect set and the redundant / out-of-range value rules.
 */
export function integrateTwoStep(outputs: TwoStepOutputs, options: IntegrateOptions = {}): IntegrationResult {
  const schema = options.schema ?? DEFAULT_SCHEMA;
  const policy = options.onParseFailure ?? 'reference';
  const accFile = outputs.files?.accuracy;
  const compFile = outputs.files?.completeness;
  const failures: TurnFailure[] = [];
  const parsedVia: Record<string, number> = {};
  const count = (key: string) => (parsedVia[key] = (parsedVia[key] ?? 0) + 1);

  const placeholder = outputs.completeness.find((e) => e.prompt === '');
  if (placeholder) {
    throw new InputError(
      'a completeness entry has an empty prompt (a skipped-accuracy placeholder): were the accuracy and completeness files swapped?',
      {
        file: compFile,
        record: placeholder.index,
      },
    );
  }

  // 1. accuracy: flag -> incorrect set (duplicates are an error)
  const acc = new Map<string, { incorrect: string[] } | { failure: TurnFailure }>();
  for (const e of outputs.accuracy) {
    if (acc.has(e.record.flag))
      throw new InputError(`duplicate flag ${e.record.flag}`, { file: accFile, record: e.index, field: ['flag'] });
    if (isFailedCall(e)) {
      acc.set(e.record.flag, {
        failure: {
          flag: e.record.flag,
          stage: 'accuracy',
          kind: 'llm',
          reason: 'the LLM call failed (empty output)',
          action: 'skipped',
        },
      });
      continue;
    }
    const p = parseAccuracyOutput(e.output, e.record.predictTurnLabel);
    if (p.ok) {
      count(`accuracy:${p.via}`);
      acc.set(e.record.flag, { incorrect: p.incorrect });
      continue;
    }
    if (policy === 'reference') throw parseError(accFile, e, 'accuracy', p.reason);
    acc.set(e.record.flag, {
      failure: { flag: e.record.flag, stage: 'accuracy', kind: 'parse', reason: p.reason, action: 'skipped' },
    });
  }

  // 2. completeness, grouped by dialogue in order of first appearance
  const groups = groupByDialogue(outputs.completeness, (e) => e.record, { file: compFile, indexOf: (e) => e.index });
  const result: IntegrationResult = {
    kind: 'two-step',
    turns: [],
    allTurns: [],
    failures,
    parsedVia,
    unknownSlots: {},
  };
  for (const [dialogueId, turnMap] of groups) {
    const entries = orderedTurns(dialogueId, turnMap, compFile);
    const state = new DialogueState('two-step', schema, options.completenessValueAware ?? false, result.unknownSlots);
    for (const e of entries) {
      result.allTurns.push(e.record);
      const before = snapshot(state.incorrect, state.missed, state.correct);
      const flag = e.record.flag;
      const a = acc.get(flag);
      if (!a) {
        throw new InputError(
          `the accuracy outputs have no entry for ${flag} (present in the completeness outputs${compFile ? ` ${compFile}` : ''})`,
          {
            file: accFile,
            record: flag,
          },
        );
      }
      const turnFailures: TurnFailure[] = [];
      let missed: Array<[PyValue, PyValue]> = [];
      if (isFailedCall(e)) {
        turnFailures.push({
          flag,
          stage: 'completeness',
          kind: 'llm',
          reason: 'the LLM call failed (empty output)',
          action: 'skipped',
        });
      } else {
        const c = parseCompletenessOutput(e.output);
        if (c.ok) {
          count(`completeness:${c.via}`);
          missed = c.missed;
        } else {
          if (c.outcome === 'crash' && policy === 'reference') throw parseError(compFile, e, 'completeness', c.reason);
          turnFailures.push({ flag, stage: 'completeness', kind: 'parse', reason: c.reason, action: 'skipped' });
        }
      }
      if ('failure' in a) turnFailures.push({ ...a.failure });
      const incorrect = 'incorrect' in a ? a.incorrect : [];
      if (turnFailures.length > 0) {
        if (policy === 'judge-wrong') {
          for (const f of turnFailures) f.action = 'judged-wrong';
          const reason = turnFailures.map((f) => `${f.stage}: ${f.reason}`).join('; ');
          result.turns.push(
            state.process({ record: e.record, reportedIncorrect: incorrect, missed, failure: reason }, before),
          );
        }
        failures.push(...turnFailures);
        continue;
      }
      result.turns.push(state.process({ record: e.record, reportedIncorrect: incorrect, missed }, before));
    }
  }
  return result;
}

export interface SingleStepOutputs {
  outputs: readonly OutputEntry[];
  file?: string;
}

/**
 * The single-step integration (`turn_level_judge.py`; methods Direct and CoT): one output per turn with both
 * `incorrect_domain_slot` (kept if a schema slot in the predicted turn label) and `missed_domain_slot`.
 */
export function integrateSingleStep(outputs: SingleStepOutputs, options: IntegrateOptions = {}): IntegrationResult {
  const schema = options.schema ?? DEFAULT_SCHEMA;
  const policy = options.onParseFailure ?? 'reference';
  const file = outputs.file;
  const result: IntegrationResult = {
    kind: 'single-step',
    turns: [],
    allTurns: [],
    failures: [],
    parsedVia: {},
    unknownSlots: {},
  };
  const groups = groupByDialogue(outputs.outputs, (e) => e.record, { file, indexOf: (e) => e.index });
  for (const [dialogueId, turnMap] of groups) {
    const entries = orderedTurns(dialogueId, turnMap, file);
    const state = new DialogueState(
      'single-step',
      schema,
      options.completenessValueAware ?? false,
      result.unknownSlots,
    );
    for (const e of entries) {
      result.allTurns.push(e.record);
      const before = snapshot(state.incorrect, state.missed, state.correct);
      const flag = e.record.flag;
      let failure: TurnFailure | undefined;
      if (isFailedCall(e))
        failure = {
          flag,
          stage: 'single-step',
          kind: 'llm',
          reason: 'the LLM call failed (empty output)',
          action: 'skipped',
        };
      else {
        const p = parseSingleStepOutput(e.output);
        if (p.ok) {
          result.parsedVia[`single-step:${p.via}`] = (result.parsedVia[`single-step:${p.via}`] ?? 0) + 1;
          result.turns.push(
            state.process({ record: e.record, reportedIncorrect: p.incorrect, missed: p.missed }, before),
          );
          continue;
        }
        if (p.outcome === 'crash' && policy === 'reference') throw parseError(file, e, 'single-step', p.reason);
        failure = { flag, stage: 'single-step', kind: 'parse', reason: p.reason, action: 'skipped' };
      }
      if (policy === 'judge-wrong') {
        failure.action = 'judged-wrong';
        result.turns.push(
          state.process({ record: e.record, reportedIncorrect: [], missed: [], failure: failure.reason }, before),
        );
      }
      result.failures.push(failure);
    }
  }
  return result;
}

export type { ParsedVia };
