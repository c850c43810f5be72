import { type RunListing, displayScale, formatMetricValue, writeFileAtomic } from '@eval/core';
import type { LeaderboardRow } from './client/model';
import { clientScript } from './internal/bundle';
import { page } from './internal/page';

/** What {@link renderLeaderboard} shows: the rows of `listRuns`, each with the path of its report when there is one. */
export interface LeaderboardInput {
  /** `listRuns` rows; `dir` as it should be shown; `report`: the run's report, as a link from the page's location. */
  runs: ReadonlyArray<RunListing & { report?: string }>;
  title?: string;
  generatedAt?: string;
}

/**
 * A self-contained leaderboard of a directory of runs: one sortable table per benchmark (system, variant, status,
 * date, headline metrics as run.json declares them, cost), each run linked to its report when one exists.
 */
export function renderLeaderboard(input: LeaderboardInput): string {
  const rows: LeaderboardRow[] = input.runs.map((r) => ({
    dir: r.dir,
    status: r.status,
    benchmark: r.benchmark ?? '(unknown)',
    variant: r.variant ?? '',
    system: r.system ?? '',
    createdAt: r.createdAt ?? '',
    report: r.report ?? null,
    cost: r.costUsd === undefined ? '' : `$${r.costUsd.toFixed(4)}`,
    metrics: Object.fromEntries(
      Object.entries(r.metrics)
        .filter(([, m]) => m.part === undefined)
        .map(([name, m]) => [
          name,
          { text: formatMetricValue(m.value, m), sort: m.value === null ? null : displayScale(m.value, m) },
        ]),
    ),
  }));
  const title = input.title ?? 'Runs';
  return page({
    title,
    data: { title, generatedAt: input.generatedAt ?? new Date().toISOString(), rows },
    script: clientScript('leaderboard'),
  });
}

/** {@link renderLeaderboard} written atomically to `file`. */
export async function writeLeaderboard(file: string, input: LeaderboardInput): Promise<void> {
  await writeFileAtomic(file, renderLeaderboard(input));
}
