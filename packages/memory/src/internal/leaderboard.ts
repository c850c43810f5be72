/**
 * HaluMem leaderboard view (spec §6.3): the aggregate fields behind the paper's columns, for comparing systems.
 */
import type { OverallScore } from '../metrics';

export interface LeaderboardRow {
  system: string;
  /** `recall(all)` */
  R: number | null;
  /** `weighted_recall(all)` */
  weightedR: number | null;
  /** `target_accuracy(all)`, over `targetN` memories */
  targetP: number | null;
  targetN: number;
  /** `weighted_accuracy(all)`, over `accN` extracted memories */
  acc: number | null;
  accN: number;
  /** `interference_accuracy(all)` (false-memory resistance) */
  FMR: number | null;
  /** `memory_extraction_f1` */
  F1: number | null;
  updateC: number | null;
  updateH: number | null;
  updateO: number | null;
  qaC: number | null;
  qaH: number | null;
  qaO: number | null;
}

export function leaderboardRow(system: string, o: OverallScore): LeaderboardRow {
  return {
    system,
    R: o.memory_integrity['recall(all)'],
    weightedR: o.memory_integrity['weighted_recall(all)'],
    targetP: o.memory_accuracy['target_accuracy(all)'],
    targetN: o.memory_accuracy.target_memory_num,
    acc: o.memory_accuracy['weighted_accuracy(all)'],
    accN: o.memory_accuracy.memory_num,
    FMR: o.memory_accuracy['interference_accuracy(all)'],
    F1: o.memory_extraction_f1,
    updateC: o.memory_update['correct_update_memory_ratio(all)'],
    updateH: o.memory_update['hallucination_update_memory_ratio(all)'],
    updateO: o.memory_update['omission_update_memory_ratio(all)'],
    qaC: o.question_answering['correct_qa_ratio(all)'],
    qaH: o.question_answering['hallucination_qa_ratio(all)'],
    qaO: o.question_answering['omission_qa_ratio(all)'],
  };
}

/** Percent with two decimals as in the paper (`74.07`), `—` for a metric that could not be computed. */
export function formatPercent(x: number | null): string {
  return x === null ? '—' : (x * 100).toFixed(2);
}

/** The leaderboard's column headers and cells (percentages), e.g. for a text or Markdown table. */
export function leaderboardTable(rows: LeaderboardRow[]): { header: string[]; cells: string[][] } {
  const header = ['System', 'R', 'Weighted R', 'Target P', 'Acc.', 'FMR', 'F1', 'Update C/H/O', 'QA C/H/O'];
  const cells = rows.map((r) => [
    r.system,
    formatPercent(r.R),
    formatPercent(r.weightedR),
    `${formatPercent(r.targetP)} (${r.targetN})`,
    `${formatPercent(r.acc)} (${r.accN})`,
    formatPercent(r.FMR),
    formatPercent(r.F1),
    `${formatPercent(r.updateC)}/${formatPercent(r.updateH)}/${formatPercent(r.updateO)}`,
    `${formatPercent(r.qaC)}/${formatPercent(r.qaH)}/${formatPercent(r.qaO)}`,
  ]);
  return { header, cells };
}
