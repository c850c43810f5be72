// Text output of `dialeval memory`: the judged figures, the repeats' spread, the leaderboard as CSV.
import { type EvalRecords, type OverallScore, leaderboardRow, qaBreakdown } from '@eval/memory';
import { csvLine, formatTable, percent } from '../format';
import { type SelfAgreement, type Spread, selfAgreement, spread } from '../repeats';

const pct = (x: number | null | undefined) => percent(x, 2);

/** The overall score as text, with the per-question-type and per-difficulty breakdowns when `records` are given. */
export function overallText(overall: OverallScore, records?: EvalRecords): string {
  const { memory_integrity: mi, memory_accuracy: ma, memory_update: mu, question_answering: qa } = overall;
  const both = (all: number | null, valid: number | null) => `${pct(all)}   valid ${pct(valid)}`;
  const lines = [
    'memory extraction',
    `  recall (R)            ${both(mi['recall(all)'], mi['recall(valid)'])}   (${mi.memory_valid_num}/${mi.memory_num} judged)`,
    `  weighted recall       ${both(mi['weighted_recall(all)'], mi['weighted_recall(valid)'])}`,
    `  target precision      ${both(ma['target_accuracy(all)'], ma['target_accuracy(valid)'])}   (${ma.target_memory_num} target memories)`,
    `  accuracy (Acc.)       ${both(ma['weighted_accuracy(all)'], ma['weighted_accuracy(valid)'])}   (${ma.memory_valid_num}/${ma.memory_num} judged)`,
    `  false-memory resist.  ${both(ma['interference_accuracy(all)'], ma['interference_accuracy(valid)'])}   (${ma.interference_memory_num} interference points)`,
    `  extraction F1         ${pct(overall.memory_extraction_f1)}`,
    'memory update',
    `  correct/halluc./omission/other  ${pct(mu['correct_update_memory_ratio(all)'])} / ${pct(mu['hallucination_update_memory_ratio(all)'])} / ${pct(mu['omission_update_memory_ratio(all)'])} / ${pct(mu['other_update_memory_ratio(all)'])}   (${mu.update_memory_valid_num}/${mu.update_memory_num} valid)`,
    'question answering',
    `  correct/halluc./omission        ${pct(qa['correct_qa_ratio(all)'])} / ${pct(qa['hallucination_qa_ratio(all)'])} / ${pct(qa['omission_qa_ratio(all)'])}   (${qa.qa_valid_num}/${qa.qa_num} valid)`,
    '',
    formatTable(
      ['memory type', 'integrity acc', 'update acc', 'memory acc', 'points'],
      Object.entries(overall.memory_type_accuracy).map(([type, t]) => [
        type,
        pct(t.memory_integrity_acc),
        pct(t.memory_update_acc),
        pct(t.memory_acc),
        t.total_num,
      ]),
    ),
  ];
  const questions = records?.question_answering_records ?? [];
  for (const by of questions.length > 0 ? (['question_type', 'difficulty'] as const) : []) {
    const groups = Object.entries(qaBreakdown(questions, by));
    const rows = groups.map(([k, g]) => [
      k,
      g.n,
      pct(g.correct_ratio),
      pct(g.hallucination_ratio),
      pct(g.omission_ratio),
    ]);
    lines.push('', formatTable([by.replace('_', ' '), 'n', 'correct', 'halluc.', 'omission'], rows));
  }
  const t = overall.time_consuming;
  if (t)
    lines.push(
      '',
      `time (minutes): add ${t.add_dialogue_duration_time.toFixed(3)}, search ${t.search_memory_duration_time.toFixed(3)}, total ${t.total_duration_time.toFixed(3)}`,
    );
  return lines.join('\n');
}

const REPEAT_COLUMNS = 'R weightedR targetP acc FMR F1 updateC updateH updateO qaC qaH qaO'.split(' ');

export type RepeatStats = { n: number; figures: Record<string, Spread>; selfAgreement: SelfAgreement };

/** The leaderboard figures' mean and std across repeats, and the judges' self-agreement over every judgement. */
export function memoryRepeatStats(overall: OverallScore[], labels: Array<Array<string | undefined>>): RepeatStats {
  const rows = overall.map((o) => leaderboardRow('repeat', o) as unknown as Record<string, number | null>);
  const figures: Record<string, Spread> = {};
  for (const c of REPEAT_COLUMNS) figures[c] = spread(rows.map((r) => (typeof r[c] === 'number' ? r[c] : null)));
  return { n: overall.length, figures, selfAgreement: selfAgreement(labels) };
}

export function memoryRepeatText(stats: RepeatStats): string {
  const ms = (s: Spread) =>
    s.mean === null ? '—' : `${s.mean.toFixed(4)} ± ${s.std === null ? '—' : s.std.toFixed(4)}`;
  const a = stats.selfAgreement;
  return [
    `over ${stats.n} repeats (mean ± std; leaderboard columns):`,
    formatTable(
      ['figure', 'mean ± std'],
      REPEAT_COLUMNS.map((c) => [c, ms(stats.figures[c]!)]),
    ),
    `judge self-agreement: ${pct(a.agreement)} of ${a.items} judgement(s) alike in every repeat; Fleiss' kappa ${a.fleissKappa === null ? '—' : a.fleissKappa.toFixed(4)}`,
  ].join('\n');
}

/** CSV columns of the leaderboard (the fields of a leaderboard row, in order). */
const CSV_HEADER = 'system R weighted_R target_P target_n acc acc_n FMR F1 update_C update_H update_O qa_C qa_H qa_O';

export function leaderboardCsv(rows: Array<ReturnType<typeof leaderboardRow>>): string {
  return [CSV_HEADER.split(' '), ...rows.map((r) => Object.values(r))].map(csvLine).join('\n');
}
