// A judge panel: `--judge MODEL[@BASE_URL]` given more than once (and, for llm-judge, `--templates DIR` variants),
// one judge run per judge through one cache and one budget, ended by the agreement of the judges.
import { basename } from 'node:path';
import { type JudgeLabels, type RunBenchmark, judgeAgreement, readRun } from '@eval/core';
import { readHumanLabels, renderAgreement } from './actions/agreement';
import type { LlmFlags } from './llm-options';
import { endpointHost } from './run-llm';
import { UsageError } from './util';

/** One judge of a panel: its model (and endpoint), its template directory, and the label naming its outputs. */
export interface PanelJudge {
  label: string;
  model: string;
  baseUrl?: string;
  templates?: string;
}

const safe = (s: string) => s.replace(/[^\w.+@-]+/g, '_').replace(/^\.+/, '') || 'judge';

/**
 * The judges of `--judge MODEL[@BASE_URL]` (repeatable; default `--model` and `--base-url`) times the `--templates`
 * variants: each (model, templates) pair is one judge. Labels are file-name safe and unique: the model, with the
 * endpoint's host when one model is asked at two endpoints, and the templates' directory name when there are several.
 */
export function panelJudges(flags: { judge?: string[]; model?: string; baseUrl?: string }, templates?: string[]) {
  const models = (flags.judge ?? []).map((spec) => {
    const at = /^(.+?)@(https?:\/\/.+)$/.exec(spec);
    const model = at ? at[1]! : spec;
    if (model.trim() === '') throw new UsageError(`--judge ${spec}: no model name (MODEL or MODEL@BASE_URL)`);
    return { model, baseUrl: at ? at[2] : flags.baseUrl };
  });
  if (models.length === 0) {
    if (!flags.model) throw new UsageError('--model or --judge is required for this subcommand (e.g. --model gpt-4o)');
    models.push({ model: flags.model, baseUrl: flags.baseUrl });
  }
  const dirs = templates && templates.length > 0 ? templates : [undefined];
  const judges: PanelJudge[] = [];
  for (const m of models) {
    const twice = models.filter((x) => x.model === m.model).length > 1;
    const host = endpointHost(m.baseUrl); // never user info or query: a label names directories
    for (const dir of dirs) {
      let label = twice ? `${m.model}@${host}` : m.model;
      if (dirs.length > 1) label += `+${basename(dir!)}`;
      judges.push({ label: safe(label), model: m.model, baseUrl: m.baseUrl, ...(dir ? { templates: dir } : {}) });
    }
  }
  const labels = judges.map((j) => j.label);
  judges.forEach((j, i) => {
    if (labels.indexOf(j.label) !== i) j.label = `${j.label}-${i + 1}`;
  });
  return judges;
}

/** A judge as JSON output shows it: the endpoint's host only (a URL may carry a key in its user info or query). */
export function panelJudgeJson(judge: PanelJudge) {
  return {
    label: judge.label,
    model: judge.model,
    endpointHost: endpointHost(judge.baseUrl),
    ...(judge.templates !== undefined ? { templates: judge.templates } : {}),
  };
}

/** The panel's flags for one judge: its model and endpoint; `--max-cost` is what the judges before it left. */
export function judgeLlmFlags<F extends LlmFlags & { baseUrl?: string }>(
  flags: F,
  judge: PanelJudge,
  spent: number,
): F {
  const out: F = { ...flags, model: judge.model, baseUrl: judge.baseUrl };
  if (flags.maxCost !== undefined) out.maxCost = Math.max(0, flags.maxCost - spent);
  return out;
}

/** The human label files of `--human`, each one more judge. */
export async function humanJudges(files: string[] | undefined): Promise<JudgeLabels[]> {
  const list = files ?? [];
  return Promise.all(
    list.map((file) => readHumanLabels(file, list.length === 1 ? 'human' : `human ${basename(file)}`)),
  );
}

/** The agreement of the panel's judge runs (and the human labels), as `dialeval agreement` prints it. */
export async function panelAgreement(
  runs: Array<{ label: string; dir: string }>,
  humans: JudgeLabels[],
  benchmark: RunBenchmark,
  format: 'table' | 'json',
): Promise<{ text: string; json: unknown }> {
  const loaded = await Promise.all(runs.map((r) => readRun(r.dir)));
  const result = judgeAgreement(loaded, benchmark, { names: runs.map((r) => r.label), extraJudges: humans });
  const source = benchmark.package ?? benchmark.benchmark;
  return {
    text: renderAgreement(result, source, 'table'),
    json: format === 'json' ? { ...result, recomputedBy: source } : undefined,
  };
}
