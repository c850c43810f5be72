// Text output of `dialeval scorekeeping`: progress lines, the play summary, the report as tables and CSV.
import { join } from 'node:path';
import type { BenchmarkReport, EpisodeOutcome, ScorekeepingPlayResult } from '@eval/scorekeeping';
import { csvLine, formatTable } from '../format';

const fmt = (x: number) => (Number.isNaN(x) ? 'NaN' : x.toFixed(2));

/** One episode's progress line on a terminal. */
export function progress(o: EpisodeOutcome, done: number, total: number): void {
  const score = Number.isNaN(o.mainScore)
    ? `aborted${o.abortReason ? ` (${o.abortReason})` : ''}`
    : `Main Score ${o.mainScore.toFixed(2)}`;
  process.stderr.write(
    `\r\x1b[K[${done}/${total}] ${o.experiment} episode ${o.gameId}: ${o.status === 'skipped' ? 'already done' : score}`,
  );
  if (done === total) process.stderr.write('\r\x1b[K');
}

export function playText(r: ScorekeepingPlayResult): string {
  const s = r.summary;
  return [
    `scorekeeping: ${s.total} episode(s) in ${join(s.outDir, s.modelPair)}: ${s.played} played, ${s.skipped} already done, ${s.aborted} aborted${s.playerFailures ? ` (${s.playerFailures} by player failures)` : ''}`,
    ...r.notes,
    '',
    reportTable(r.report),
  ].join('\n');
}

export function reportTable(report: BenchmarkReport): string {
  return [
    formatTable(
      ['game', 'model', 'episodes', '% Played', 'Quality Score', 'Quality Score (std)'],
      report.games.map((g) => [g.game, g.model, g.episodes, fmt(g.played), fmt(g.quality), fmt(g.qualityStd)]),
    ),
    formatTable(
      ['model', 'Average % Played', 'Average Quality Score', 'clemscore'],
      report.models.map((m) => [m.model, fmt(m.averagePlayed), fmt(m.averageQuality), fmt(m.clemscore)]),
    ),
    formatTable(
      ['model', 'experiment', 'episodes', '% Played', 'Quality Score', 'std', 'accuracy by probing round'],
      report.experiments.map((e) => [
        ...[e.model, e.experiment, e.episodes, fmt(e.played), fmt(e.quality), fmt(e.qualityStd)],
        Object.entries(e.accuracyByRound)
          .map(([k, v]) => `${k}:${v.mean.toFixed(2)}`)
          .join(' '),
      ]),
    ),
  ].join('\n\n');
}

export function reportCsv(report: BenchmarkReport): string {
  const rounds = [...new Set(report.experiments.flatMap((e) => Object.keys(e.accuracyByRound)))].sort(
    (a, b) => Number(a) - Number(b),
  );
  const header = ['model', 'game', 'experiment', 'episodes', 'played', 'quality', 'quality_std'];
  return [
    csvLine([...header, ...rounds.map((r) => `accuracy_round_${r}`)]),
    ...report.experiments.map((e) =>
      csvLine(
        [
          ...[e.model, e.game, e.experiment, e.episodes, e.played, e.quality, e.qualityStd],
          ...rounds.map((r) => e.accuracyByRound[r]?.mean ?? ''),
        ].map((c) => (typeof c === 'number' && Number.isNaN(c) ? 'NaN' : c)),
      ),
    ),
  ].join('\n');
}
