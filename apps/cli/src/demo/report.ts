import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { type RunItem, readRun, startRun } from '@eval/core';

/** What the llm-judge demo returns as `data` (see ./llm-judge.ts). */
interface LlmJudgeDemoData {
  rules: { tsa: Record<string, { mwz21: number | null }>; ruleJga: { mwz21: number | null } };
  ours: { turns: number; tsaGpt: number | null; gptJga: number | null; coherenceMwz21: number | null };
  turns: Array<{ flag: string; judge: 0 | 1; rule: 0 | 1; missed: string[] }>;
}

/**
 * Writes the llm-judge demo's results as a run (core's `startRun`) and renders its report: the demo's own figures,
 * nothing recomputed. Kept apart from the demo itself so that it goes once the demo steps write their own runs.
 * Returns the report's path, or undefined when the llm-judge demo did not run.
 */
export async function writeDemoReport(results: Record<string, unknown>, out?: string): Promise<string | undefined> {
  const data = results['llm-judge'] as LlmJudgeDemoData | undefined;
  if (!data?.turns) return undefined;
  const file = resolve(out ?? join(await mkdtemp(join(tmpdir(), 'dialeval-demo-')), 'report.html'));
  const runDir = join(dirname(file), 'dialeval-demo-run');
  const run = await startRun(runDir, {
    benchmark: 'llm-judge',
    variant: 'ours (demo templates)',
    system: 'demo-judge',
    command: ['dialeval', 'demo'],
  });
  const items: RunItem[] = data.turns.map((t) => ({
    id: t.flag,
    group: t.flag.slice(0, t.flag.lastIndexOf('-')),
    values: { judge: t.judge === 1, M21: t.rule === 1 },
    detail: {
      judge: { accurate: t.judge === 1 },
      rules: { M21: t.rule === 1 },
      disagree: t.judge !== t.rule,
      missed: t.missed,
    },
  }));
  const n = data.ours.turns;
  const pct = (value: number | null) => ({ value, n, unit: '%' });
  await run.finish({
    items,
    metrics: {
      TSA: pct(data.ours.tsaGpt),
      'GPT-JGA': pct(data.ours.gptJga),
      'coherence (MWZ2.1 rule)': pct(data.ours.coherenceMwz21),
      'rule TSA (MWZ2.1)': pct(data.rules.tsa['two-step']?.mwz21 ?? null),
    },
  });
  const loaded = await readRun(runDir);
  const { writeReport } = await import('@eval/report');
  await writeReport(file, {
    runs: [{ path: runDir, manifest: loaded.manifest, items: loaded.items }],
    title: 'dialeval demo: LLM judge of dialogue state tracking',
  });
  return file;
}
