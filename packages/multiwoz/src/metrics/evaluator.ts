/**
 * `mwzeval.metrics.Evaluator(bleu, success, richness, dst).evaluate(input)`, bit for bit, plus per-dialogue results.
 * Unlike the reference, the caller's predictions are never mutated (normalisation works on copies).
 */
import { EvalError, InputError } from '@eval/core';
import { type BleuStats, addBleuStats, bleuFromStats, emptyBleuStats, segmentBleuStats } from './bleu';
import { type MultiwozData, type ReadDataOptions, DATA_FILES, readMultiwozData, missingData } from '../internal/data';
import { VenueDatabase } from '../internal/database';
import {
  type DstCounts,
  type DstResult,
  DST_MISSING_STATES,
  addDstCounts,
  dstFromCounts,
  dstTurnCounts,
  emptyDstCounts,
} from './dst';
import {
  type PredictionTurn,
  type Predictions,
  domainsFromSlotNames,
  hasDomainPredictions,
  hasStatePredictions,
  parsePredictions,
  readMultiwozPredictions,
} from '../internal/input';
import {
  type BeliefState,
  type NormalizationVersion,
  normalizeResponse,
  normalizeStateSlotName,
  normalizeStateSlotValue,
} from '../internal/normalize';
import { PythonValueError } from '@eval/core/python';
import { type RichnessResult, richness } from './richness';
import {
  type DomainOutcome,
  type SuccessResult,
  aggregateSuccess,
  dialogSuccess,
  estimateActiveDomains,
} from './success';

export interface MultiwozMetrics {
  /** sacreBLEU against the reference sets (default mwz22). */
  bleu?: boolean;
  /** Inform and Success. */
  success?: boolean;
  /** Lexical richness. */
  richness?: boolean;
  /** Dialogue state tracking (joint accuracy, slot P/R/F1). */
  dst?: boolean;
}

export interface EvaluatorOptions extends MultiwozMetrics {
  /** `"2022"` (default; the published numbers) or `"2023"` (mwzeval master: three more name rules). */
  normalization?: NormalizationVersion;
  /** BLEU reference sets to score against (default: every set in the data, i.e. `mwz22` unless more were loaded). */
  references?: string[];
  /**
   * Replace every turn's active domains by the domains of its `[domain_slot]` placeholders, as mwzeval's
   * `add_slot_domains.py` does before evaluation (default false).
   */
  addSlotDomains?: boolean;
  /**
   * Fix for a quirk of the reference: with `success` and `dst` on predictions without states, Success copies the
   * gold states into the turns and DST then scores gold against gold (JGA ~100). Default false (reproduce it, with a
   * warning); true makes DST on predictions without states an error.
   */
  strictDst?: boolean;
  /** Receives each warning (also collected in `details.warnings`). */
  onWarning?: (message: string) => void;
}

/** One dialogue's results: the units of the bootstrap and the "why" of Inform/Success failures. */
export interface DialogueResult {
  id: string;
  turns: number;
  /** The dialogue's turns as the predictions give them (not normalised), in order. */
  predictions: ReadonlyArray<PredictionTurn>;
  /** Inform of the dialogue (`match["total"]`). */
  inform?: boolean;
  /** Success of the dialogue (`success["total"]`; false when Inform failed). */
  success?: boolean;
  /** The reference's `match` (domains + total). */
  match?: Record<string, boolean>;
  /** The reference's `success` (domains + total; `{}` when Inform failed). */
  successByDomain?: Record<string, boolean>;
  /** Per goal domain: offered venues, requested/provided slots, and why it failed. */
  domains?: Record<string, DomainOutcome>;
  /** Active domains used per turn (given, estimated from states, or from slot names). */
  activeDomains?: string[][];
  /** BLEU sufficient statistics of the dialogue's turns, per reference set. */
  bleu?: Record<string, BleuStats>;
  /** DST counts of the dialogue's turns. */
  dst?: DstCounts;
}

/** The reference's output (same keys; `null` for metrics not computed). */
export interface MwzevalResults {
  bleu: Record<string, number> | null;
  success: SuccessResult | null;
  richness: RichnessResult | null;
  dst: DstResult | null;
}

export interface MultiwozReport extends MwzevalResults {
  details: {
    normalization: NormalizationVersion;
    dialogues: number;
    turns: number;
    /** States used by Success: the predictions' or the gold ones (when a turn lacks `state`). */
    stateSource?: 'predicted' | 'gold';
    /** Active domains used by Success. */
    domainSource?: 'provided' | 'estimated_from_state' | 'slot_names';
    /** States scored by DST: predicted, gold copied by Success (the reference's quirk), or none (zeros). */
    dstSource?: 'predicted' | 'gold_copied_by_success' | 'missing';
    /** Unknown placeholder names removed from responses. */
    unknownSlots: string[];
    /** Dialogues with fewer turns than the reference data (the reference scores the turns given). */
    shortDialogues: string[];
    warnings: string[];
    perDialogue: DialogueResult[];
  };
}

/** `obj[key] = value` as a data property even for "__proto__" (a Python dict has no special keys). */
function setOwn<T>(obj: Record<string, T>, key: string, value: T): void {
  if (key === '__proto__')
    Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
  else obj[key] = value;
}

interface NormalizedTurn {
  response: string;
  state?: BeliefState;
  activeDomains?: string[];
}

/**
 * Holds the data and the database (with its query caches) for any number of evaluations: create one per data
 * directory and evaluate every checkpoint with it.
 */
export class MultiwozEvaluator {
  readonly options: EvaluatorOptions;
  private readonly data: MultiwozData;
  private database?: VenueDatabase;
  private readonly responseCache = new Map<string, { text: string; unknown: string[] }>();
  /** Normalised state values: slot name -> raw value -> value. */
  private readonly valueCache = new Map<string, Map<string, string>>();
  private readonly slotNameCache = new Map<string, string>();
  private readonly slotResult: [string, string] = ['', ''];

  constructor(data: MultiwozData, options: EvaluatorOptions = {}) {
    this.data = data;
    this.options = options;
    if (!options.bleu && !options.success && !options.richness && !options.dst) {
      throw new EvalError('usage_error', 'select at least one metric (bleu, success, richness, dst)');
    }
    if (options.bleu && (!data.references || Object.keys(data.references).length === 0))
      missingData('BLEU references', DATA_FILES.references('mwz22'));
    if (options.success) {
      if (!data.database) missingData('venue database', 'database/*_db.json');
      if (!data.goals) missingData('goals', DATA_FILES.goals);
      if (!data.bookedDomains) missingData('booked domains', DATA_FILES.bookedDomains);
    }
    if (options.dst && !data.goldStates) missingData('gold states', DATA_FILES.goldStates);
  }

  get normalization(): NormalizationVersion {
    return this.options.normalization ?? '2022';
  }

  private db(): VenueDatabase {
    this.database ??= new VenueDatabase(this.data.database!, { normalization: this.normalization });
    return this.database;
  }

  private normalizeResponse(raw: string): { text: string; unknown: string[] } {
    let hit = this.responseCache.get(raw);
    if (!hit) {
      const unknown: string[] = [];
      const text = normalizeResponse(raw, { onUnknownSlot: (n) => unknown.push(n) });
      hit = { text, unknown };
      this.responseCache.set(raw, hit);
    }
    return hit;
  }

  /** The normalised slot name and value (memoised); a time the reference cannot parse is an InputError. */
  private normalizeSlot(
    domain: string,
    slot: string,
    raw: string,
    id: string,
    turn: number,
    file?: string,
  ): [string, string] {
    let name = this.slotNameCache.get(slot);
    if (name === undefined) this.slotNameCache.set(slot, (name = normalizeStateSlotName(slot)));
    let values = this.valueCache.get(name);
    if (values === undefined) this.valueCache.set(name, (values = new Map()));
    let value = values.get(raw);
    if (value === undefined) {
      try {
        value = normalizeStateSlotValue(name, raw, this.normalization);
      } catch (error) {
        if (error instanceof PythonValueError) {
          throw new InputError(
            `dialogue ${JSON.stringify(id)}, turn ${turn}, field state.${domain}.${slot}: cannot parse time ${JSON.stringify(raw)} (${error.message})`,
            {
              file,
              record: id,
              field: [turn, 'state', domain, slot],
            },
          );
        }
        throw error;
      }
      values.set(raw, value);
    }
    this.slotResult[0] = name;
    this.slotResult[1] = value;
    return this.slotResult;
  }

  private normalizeTurnState(state: BeliefState, id: string, turn: number, file?: string): BeliefState {
    // Most predicted states are already normalised: then the state itself is used (it is only read, never changed).
    let changed = false;
    for (const domain in state) {
      if (!Object.hasOwn(state, domain)) continue;
      const slots = state[domain]!;
      for (const slot in slots) {
        if (!Object.hasOwn(slots, slot)) continue;
        const r = this.normalizeSlot(domain, slot, slots[slot]!, id, turn, file);
        if (r[0] !== slot || r[1] !== slots[slot]) {
          changed = true;
          break;
        }
      }
      if (changed) break;
    }
    if (!changed) return state;
    const out: BeliefState = {};
    for (const domain of Object.keys(state)) {
      const slots = state[domain]!;
      const next: Record<string, string> = {};
      for (const slot of Object.keys(slots)) {
        const r = this.normalizeSlot(domain, slot, slots[slot]!, id, turn, file);
        setOwn(next, r[0], r[1]);
      }
      setOwn(out, domain, next);
    }
    return out;
  }

  /**
   * Evaluates predictions (parsed JSON in mwzeval's format; validated here). `file` is named in error messages.
   * Throws an InputError for bad input: invalid structure, unknown dialogue ids, more turns than the reference data.
   */
  evaluate(input: unknown, options: { file?: string } = {}): MultiwozReport {
    const file = options.file;
    const opts = this.options;
    const predictions: Predictions = parsePredictions(input, file);
    const warnings: string[] = [];
    const warn = (m: string) => {
      warnings.push(m);
      opts.onWarning?.(m);
    };
    const ids = Object.keys(predictions);

    // § 4: normalisation (on copies)
    const unknownSlots = new Set<string>();
    const norm = new Map<string, NormalizedTurn[]>();
    for (const id of ids) {
      norm.set(
        id,
        predictions[id]!.map((t, i) => {
          const r = this.normalizeResponse(t.response);
          for (const u of r.unknown) unknownSlots.add(u);
          return {
            response: r.text,
            state: t.state === undefined ? undefined : this.normalizeTurnState(t.state, id, i, file),
            activeDomains: opts.addSlotDomains ? domainsFromSlotNames(t.response) : t.active_domains,
          };
        }),
      );
    }
    for (const u of unknownSlots) {
      warn(
        `Unknown slot name: ${u}. Please use another slot names or customize the slot mapping! (placeholder removed)`,
      );
    }
    const hasState = hasStatePredictions(predictions);
    const hasDomains = opts.addSlotDomains || hasDomainPredictions(predictions);

    // Checks against the data (the reference raises KeyError/IndexError)
    const shortDialogues = new Set<string>();
    const checkTurns = (what: string, source: string, id: string, available: number | undefined) => {
      const n = norm.get(id)!.length;
      if (available === undefined) {
        throw new InputError(`unknown dialogue id ${JSON.stringify(id)}: not in the ${what} (${source})`, {
          file,
          record: id,
        });
      }
      if (n > available) {
        throw new InputError(
          `dialogue ${JSON.stringify(id)} has ${n} turns but the ${what} (${source}) has ${available}: turn ${available} has no counterpart`,
          { file, record: id, field: [available] },
        );
      }
      if (n < available) shortDialogues.add(id);
    };
    const refNames = opts.bleu ? (opts.references ?? Object.keys(this.data.references!)) : [];
    for (const name of refNames) {
      const t = this.data.references![name];
      if (!t) missingData(`BLEU references "${name}"`, DATA_FILES.references(name));
      for (const id of ids) checkTurns(`references "${name}"`, t.source, id, t.get(id)?.length);
    }
    const needGold = (opts.success && !hasState) || (opts.dst && (hasState || (opts.success && !opts.strictDst)));
    if (needGold) {
      const gold = this.data.goldStates;
      if (!gold) missingData('gold states', DATA_FILES.goldStates);
      for (const id of ids) checkTurns('gold states', gold.source, id, gold.get(id)?.length);
    }
    if (opts.success) {
      for (const id of ids) {
        if (!this.data.goals!.has(id)) {
          throw new InputError(
            `unknown dialogue id ${JSON.stringify(id)}: not in the goals (${this.data.goals!.source})`,
            { file, record: id },
          );
        }
        if (!this.data.bookedDomains!.has(id)) {
          throw new InputError(
            `unknown dialogue id ${JSON.stringify(id)}: not in the booked domains (${this.data.bookedDomains!.source})`,
            {
              file,
              record: id,
            },
          );
        }
      }
    }
    if (shortDialogues.size > 0) {
      const list = [...shortDialogues];
      warn(
        `${list.length} dialogue(s) have fewer turns than the reference data; only the turns given are scored: ${list.slice(0, 10).join(', ')}${list.length > 10 ? ', ...' : ''}`,
      );
    }

    const results: DialogueResult[] = ids.map((id) => ({
      id,
      turns: norm.get(id)!.length,
      predictions: predictions[id]!,
    }));
    const report: MultiwozReport = {
      bleu: null,
      success: null,
      richness: null,
      dst: null,
      details: {
        normalization: this.normalization,
        dialogues: ids.length,
        turns: results.reduce((s, r) => s + r.turns, 0),
        unknownSlots: [...unknownSlots],
        shortDialogues: [...shortDialogues],
        warnings,
        perDialogue: results,
      },
    };

    // BLEU (§ 5)
    if (opts.bleu) {
      const bleu: Record<string, number> = {};
      for (const name of refNames) {
        const refs = this.data.references![name]!;
        const total = emptyBleuStats();
        ids.forEach((id, k) => {
          const ref = refs.get(id)!;
          const stats = emptyBleuStats();
          norm.get(id)!.forEach((t, i) => addBleuStats(stats, segmentBleuStats(t.response, ref[i]!)));
          (results[k]!.bleu ??= {})[name] = stats;
          addBleuStats(total, stats);
        });
        bleu[name] = bleuFromStats(total);
      }
      report.bleu = bleu;
    }

    // Inform & Success (§ 7)
    let goldCopied = false;
    if (opts.success) {
      const db = this.db();
      report.details.stateSource = hasState ? 'predicted' : 'gold';
      report.details.domainSource = opts.addSlotDomains
        ? 'slot_names'
        : hasDomains
          ? 'provided'
          : 'estimated_from_state';
      if (!hasState) {
        warn('Missing state predictions, using ground-truth dialog states from MultiWOZ 2.2 for Inform/Success');
        goldCopied = true;
      }
      if (!hasDomains) warn('Missing domain predictions, estimating active domains from dialog states');
      const perDialog = ids.map((id, k) => {
        const turns = norm.get(id)!;
        const gold = hasState ? undefined : this.data.goldStates!.get(id)!;
        const states = turns.map((t, i) => (hasState ? t.state! : gold![i]!));
        const domains = hasDomains ? turns.map((t) => t.activeDomains!) : estimateActiveDomains(states);
        const goal = this.data.goals!.get(id)!;
        const booked = this.data.bookedDomains!.get(id)!;
        let r: ReturnType<typeof dialogSuccess>;
        try {
          r = dialogSuccess(
            goal,
            booked,
            turns.map((t) => t.response),
            states,
            domains,
            db,
          );
        } catch (error) {
          if (error instanceof PythonValueError) {
            throw new InputError(
              `dialogue ${JSON.stringify(id)}: a time value of a state or goal cannot be parsed (${error.message})`,
              {
                file,
                record: id,
              },
            );
          }
          throw error;
        }
        const res = results[k]!;
        res.inform = r.match.total === true;
        res.success = r.success.total === true;
        res.match = r.match;
        res.successByDomain = r.success;
        res.domains = r.domains;
        // (estimated domains are fresh arrays that nothing else holds; given ones are the input's, so copied)
        res.activeDomains = hasDomains ? domains.map((d) => d.slice()) : domains;
        return r;
      });
      report.success = aggregateSuccess(perDialog);
    }

    // Richness (§ 6)
    if (opts.richness) {
      const responses: string[] = [];
      for (const id of ids) for (const t of norm.get(id)!) responses.push(t.response);
      report.richness = richness(responses);
    }

    // DST (§ 8)
    if (opts.dst) {
      let source: 'predicted' | 'gold_copied_by_success' | 'missing';
      if (hasState) source = 'predicted';
      else if (goldCopied) {
        if (opts.strictDst) {
          throw new InputError('DST needs predicted states: at least one turn has no "state" (strictDst is on)', {
            file,
          });
        }
        source = 'gold_copied_by_success';
        warn(
          'DST on predictions without states: Success copied the gold states into the turns, so DST compares gold with gold (the reference does the same; use strictDst to make this an error)',
        );
      } else source = 'missing';
      report.details.dstSource = source;
      if (source === 'missing') {
        warn('error: Missing state predictions! (DST figures are zeros, as the reference returns)');
        report.dst = { ...DST_MISSING_STATES };
      } else {
        const gold = this.data.goldStates!;
        const total = emptyDstCounts();
        ids.forEach((id, k) => {
          const ref = gold.get(id)!;
          const counts = emptyDstCounts();
          norm.get(id)!.forEach((t, i) => {
            const hyp = source === 'predicted' ? t.state! : ref[i]!;
            addDstCounts(counts, dstTurnCounts(hyp, ref[i]!));
          });
          results[k]!.dst = counts;
          addDstCounts(total, counts);
        });
        report.dst = dstFromCounts(total);
      }
    }
    return report;
  }
}

export interface EvaluateFileOptions
  extends EvaluatorOptions,
    Pick<ReadDataOptions, 'dir' | 'flag' | 'env' | 'home' | 'onRead'> {}

/**
 * Reads a predictions file and the data it needs (from `dir`, `DIALEVAL_MULTIWOZ_DIR` or the fetched resource set)
 * and evaluates it. `onRead` sees the bytes of every file read (the predictions first).
 */
export async function evaluateMultiwozFile(file: string, options: EvaluateFileOptions = {}): Promise<MultiwozReport> {
  const predictions = await readMultiwozPredictions(file, options.onRead ? { onRead: options.onRead } : undefined);
  const hasState = hasStatePredictions(predictions);
  const data = await readMultiwozData({
    dir: options.dir,
    flag: options.flag,
    env: options.env,
    home: options.home,
    bleu: options.bleu,
    success: options.success,
    goldStates: Boolean((options.success && !hasState) || (options.dst && (hasState || options.success))),
    references: options.references,
    normalization: options.normalization,
    onRead: options.onRead,
  });
  return new MultiwozEvaluator(data, options).evaluate(predictions, { file });
}

/** The reference's output object (`bleu`, `success`, `richness`, `dst`) without this package's details. */
export function mwzevalResults(report: MwzevalResults): MwzevalResults {
  return { bleu: report.bleu, success: report.success, richness: report.richness, dst: report.dst };
}
