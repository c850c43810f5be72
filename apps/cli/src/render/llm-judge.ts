// Text output of `dialeval llm-judge`: the metric table, the repeats' spread, the import and human-check tables.
import { type ImportFileReport, type JudgeReport, llmJudgeRunMetrics, type MethodEvaluation } from '@eval/llm-judge';
import { formatMetricValue, formatTable, percent } from '../format';
import { type SelfAgreement, type Spread, selfAgreement, spread } from '../repeats';

export const METRIC_HEADER = 'method|turns|skipped|TSA|TSA M21|TSA M24|coh. M21|coh. M24|GPT-JGA|JGA M21|JGA M24'.split(
  '|',
);

/** A method's row: its run metrics as the run record declares them (percent points, two decimals), `—` for none. */
export function metricRow(e: MethodEvaluation): string[] {
  const shown = Object.values(llmJudgeRunMetrics(e)).map((m) => formatMetricValue(m.value, m) || '—');
  return [e.method, String(e.metrics.turns), String(e.summary.skippedTurns), ...shown];
}

const REPEAT_FIGURES = [
  'tsaGpt',
  'tsaRuleMwz21',
  'tsaRuleMwz24',
  'coherenceMwz21',
  'coherenceMwz24',
  'gptJga',
  'ruleJgaMwz21',
  'ruleJgaMwz24',
] as const;

export type RepeatStats = { n: number; figures: Record<string, Spread>; selfAgreement: SelfAgreement };

/** Each figure's mean and std across repeats, and the judge's self-agreement on the turns judged in every repeat. */
export function judgeRepeatStats(evaluations: MethodEvaluation[]): RepeatStats {
  const figures: Record<string, Spread> = {};
  for (const f of REPEAT_FIGURES) figures[f] = spread(evaluations.map((e) => e.metrics[f]));
  const byRepeat = evaluations.map((e) => new Map(e.turns.map((t) => [t.flag, t.judge] as const)));
  const labels = evaluations[0]!.records.map((r) => byRepeat.map((m) => m.get(r.flag)));
  return { n: evaluations.length, figures, selfAgreement: selfAgreement(labels) };
}

export function repeatTable(method: string, stats: RepeatStats): string {
  const ms = (s: Spread) =>
    s.mean === null ? '—' : `${s.mean.toFixed(2)} ± ${s.std === null ? '—' : s.std.toFixed(2)}`;
  const a = stats.selfAgreement;
  return [
    `over ${stats.n} repeats (mean ± std):`,
    formatTable(['method', ...REPEAT_FIGURES], [[method, ...REPEAT_FIGURES.map((f) => ms(stats.figures[f]!))]]),
    `judge self-agreement: ${percent(a.agreement, 2)} of ${a.items} turn(s) judged alike in every repeat; Fleiss' kappa ${a.fleissKappa === null ? '—' : a.fleissKappa.toFixed(4)}`,
  ].join('\n');
}

/** The fields of a file's import report, in the table's order. */
const IMPORT_COLUMNS = 'file role entries verified placeholders failedCalls written unchanged replaced'.split(
  ' ',
) as Array<keyof ImportFileReport>;

export function importTable(files: ImportFileReport[]): string {
  return formatTable(
    ['file', 'role', 'entries', 'verified', 'placeholders', 'failed calls', 'written', 'unchanged', 'replaced'],
    files.map((f) => IMPORT_COLUMNS.map((k) => f[k])),
  );
}

/** `llm-judge report` as text: the metric table, the rule-only rows, the human check. */
export function reportText(report: JudgeReport): string {
  const { partial, rules, human, options } = report;
  const lines: string[] =
    partial.length > 0
      ? ['PARTIAL: the judge outputs are incomplete; these figures are not those of a complete run', '']
      : [];
  if (report.evaluations.length > 0) lines.push(formatTable(METRIC_HEADER, report.evaluations.map(metricRow)));
  if (rules) {
    const fixed2 = (x: number | null) => formatMetricValue(x, { unit: '%', digits: 2 }) || '—';
    if (lines.length) lines.push('');
    lines.push(
      formatTable(
        ['rule judgement', 'turns', 'TSA (two-step norm.)', 'TSA (single-step norm.)', `rule JGA (${options.ruleJga})`],
        (['mwz21', 'mwz24'] as const).map((k) => [
          k === 'mwz21' ? 'RULE-M21' : 'RULE-M24',
          String(rules.turns),
          fixed2(rules.tsa['two-step'][k]),
          fixed2(rules.tsa['single-step'][k]),
          fixed2(rules.ruleJga[k]),
        ]),
      ),
    );
  }
  if (human) {
    lines.push(
      '',
      `agreement with ${human.annotated} human judgements (N = ${human.turns}; turns where a judge agrees with RULE-M24 count as right, as in the paper)`,
      formatTable(
        ['judge', 'accuracy', '|D|', '|D∩A|', 'agree', 'kappa (annotated)', 'J1H1', 'J1H0', 'J0H1', 'J0H0'],
        human.rows.map((r) => [
          r.name,
          formatMetricValue(r.accuracy, { unit: '%', digits: 2 }) || '—',
          String(r.disagreements),
          String(r.annotatedDisagreements),
          String(r.agreeWithHuman),
          r.kappa === null ? '—' : r.kappa.toFixed(4),
          String(r.confusion.bothRight),
          String(r.confusion.judgeRightHumanWrong),
          String(r.confusion.judgeWrongHumanRight),
          String(r.confusion.bothWrong),
        ]),
      ),
    );
  }
  return lines.join('\n');
}
