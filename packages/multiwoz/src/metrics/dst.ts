/**
 * Dialogue state tracking (`get_dst`, fuzzy_ratio = 95): joint goal accuracy and slot precision/recall/F1 with
 * partial-ratio value matching. Spec: shared/specs/multiwoz.md § 8.
 */
import { partialRatio } from '../internal/fuzzy';
import type { BeliefState } from '../internal/normalize';

/** `get_dst` output, same keys: JGA and F1 in percent, precision and recall as fractions (sic). */
export interface DstResult {
  joint_accuracy: number;
  slot_f1: number;
  slot_precision: number;
  slot_recall: number;
}

export interface DstCounts {
  tp: number;
  fp: number;
  fn: number;
  joint: number;
  turns: number;
}

function flatten(state: BeliefState): Map<string, string> {
  const out = new Map<string, string>();
  for (const domain of Object.keys(state)) {
    const slots = state[domain]!;
    for (const slot of Object.keys(slots)) out.set(`${domain}\u0000${slot}`, slots[slot]!);
  }
  return out;
}

/** Counts of one turn: predicted state `hyp` against the gold state `ref` (both normalised). */
export function dstTurnCounts(hyp: BeliefState, ref: BeliefState, fuzzyRatio = 95): DstCounts {
  const h = flatten(hyp);
  const r = flatten(ref);
  let joint = h.size === r.size;
  if (joint) for (const k of r.keys()) if (!h.has(k)) joint = false;
  if (joint) for (const [k, v] of r) if (partialRatio(h.get(k)!, v) <= fuzzyRatio) joint = false;
  let tp = 0;
  let fp = 0;
  let fn = 0;
  for (const [k, v] of h) {
    if (r.has(k) && partialRatio(v, r.get(k)!) > fuzzyRatio) tp++;
    else fp++;
  }
  for (const [k, v] of r) if (!h.has(k) || partialRatio(h.get(k)!, v) <= fuzzyRatio) fn++;
  return { tp, fp, fn, joint: joint ? 1 : 0, turns: 1 };
}

export function addDstCounts(into: DstCounts, c: DstCounts): DstCounts {
  into.tp += c.tp;
  into.fp += c.fp;
  into.fn += c.fn;
  into.joint += c.joint;
  into.turns += c.turns;
  return into;
}

export function emptyDstCounts(): DstCounts {
  return { tp: 0, fp: 0, fn: 0, joint: 0, turns: 0 };
}

/** The reference's figures from summed counts, with its `+ 1e-10` in every denominator. */
export function dstFromCounts(c: DstCounts): DstResult {
  const p = c.tp / (c.tp + c.fp + 1e-10);
  const r = c.tp / (c.tp + c.fn + 1e-10);
  const f1 = ((2 * p * r) / (p + r + 1e-10)) * 100;
  return { joint_accuracy: (c.joint / (c.turns + 1e-10)) * 100, slot_f1: f1, slot_precision: p, slot_recall: r };
}

/** The reference's result when predictions have no states: integer zeros. */
export const DST_MISSING_STATES: Readonly<DstResult> = Object.freeze({
  joint_accuracy: 0,
  slot_f1: 0,
  slot_precision: 0,
  slot_recall: 0,
});
