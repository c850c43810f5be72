import { numpySum } from '@eval/core';

/**
 * The bank-level Dice score of the original CGT paper (Common-Ground-detection, `make_traces`), kept separate from
 * the mmdp-cgt metric: Jaccard `J = |A∩B| / |A∪B|` of a predicted and a true bank, reported as `2J / (1 + J)`
 * (equal to Dice). Two empty banks score 0. Re-implemented from its description; no code was copied.
 */
export function bankDice(predicted: Iterable<string>, truth: Iterable<string>): number {
  const a = new Set(predicted);
  const b = new Set(truth);
  let inter = 0;
  for (const x of a) if (b.has(x)) inter++;
  const union = a.size + b.size - inter;
  if (union === 0) return 0;
  const j = inter / union;
  return (2 * j) / (1 + j);
}

/**
 * Scores a trace of moves: after each move the predicted and true banks as they stand are compared with
 * {@link bankDice}; the mean is numpy's `np.mean` (pairwise summation). No accumulation across moves, no row tags.
 */
export function bankDiceTrace(moves: ReadonlyArray<{ predicted: Iterable<string>; truth: Iterable<string> }>): {
  scores: number[];
  mean: number;
} {
  const scores = moves.map((m) => bankDice(m.predicted, m.truth));
  return { scores, mean: scores.length === 0 ? Number.NaN : numpySum(scores) / scores.length };
}
