import { readFile, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import {
  type BaseRate,
  type JudgeAgreement,
  type JudgeLabel,
  type JudgeLabels,
  type LoadedRun,
  type RunBenchmark,
  InputError,
  judgeAgreement,
  readRun,
} from '@eval/core';
import type { AgreementCommandOptions } from '../flags/agreement';
import { csvLine, formatMarkdownTable, formatNumber, formatTable, percent } from '../format';
import { UsageError, emit } from '../util';

/** The benchmark's descriptor, found as `dialeval compare` finds it. */
async function loadDescriptor(
  manifest: LoadedRun['manifest'],
  opts: AgreementCommandOptions,
): Promise<{ benchmark: RunBenchmark; source: string }> {
  return (await import('./compare')).findRunBenchmark(manifest, opts);
}

async function loadRuns(dirs: string[]): Promise<LoadedRun[]> {
  for (const dir of dirs) {
    const s = await stat(dir).catch(() => undefined);
    if (!s) throw new UsageError(`${dir}: no such run directory`);
    if (!s.isDirectory())
      throw new UsageError(`${dir}: not a directory (agreement takes run directories: run.json + items.jsonl)`);
  }
  return Promise.all(dirs.map((d) => readRun(d)));
}

function isLabel(x: unknown): x is JudgeLabel {
  return typeof x === 'string' || typeof x === 'boolean' || (typeof x === 'number' && Number.isFinite(x));
}

/** A file of human labels: JSONL of `{"id": ..., "label": ...}` (one per line) or a JSON object mapping id -> label. */
export async function readHumanLabels(file: string, name: string): Promise<JudgeLabels> {
  const text = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
    throw new InputError(`cannot read the human labels (${error.code ?? error.message})`, { file });
  });
  const labels = new Map<string, JudgeLabel>();
  let whole: unknown;
  try {
    whole = JSON.parse(text);
  } catch {
    whole = undefined;
  }
  // A JSON object is a map id -> label, unless it is a one-line JSONL file's `{"id", "label"}`.
  const record = whole as { id?: unknown; label?: unknown } | null;
  const oneRecord = typeof record?.id === 'string' && record !== null && 'label' in record;
  if (whole !== null && typeof whole === 'object' && !Array.isArray(whole) && !oneRecord) {
    for (const [id, label] of Object.entries(whole)) {
      if (!isLabel(label))
        throw new InputError(`the label of ${JSON.stringify(id)} must be a boolean, number or string`, {
          file,
          field: [id],
        });
      labels.set(id, label);
    }
    return { name, labels, source: file };
  }
  const lines = text.split('\n');
  lines.forEach((line, i) => {
    if (line.trim() === '') return;
    let record: unknown;
    try {
      record = JSON.parse(line);
    } catch {
      throw new InputError('not JSON (expected {"id": ..., "label": ...} per line, or one JSON object id -> label)', {
        file,
        record: i + 1,
      });
    }
    const r = record as { id?: unknown; label?: unknown };
    if (typeof r !== 'object' || r === null || typeof r.id !== 'string' || r.id === '')
      throw new InputError('expected {"id": "<item id>", "label": ...}', { file, record: i + 1, field: ['id'] });
    if (!isLabel(r.label))
      throw new InputError('the label must be a boolean, number or string', { file, record: i + 1, field: ['label'] });
    if (labels.has(r.id)) throw new InputError(`duplicate id ${JSON.stringify(r.id)}`, { file, record: i + 1 });
    labels.set(r.id, r.label);
  });
  if (labels.size === 0) throw new InputError('no label in the file', { file });
  return { name, labels, source: file };
}

const letter = (i: number) => (i < 26 ? String.fromCharCode(65 + i) : `J${i + 1}`);
const num = (x: number | null | undefined, digits = 4) =>
  x === null || x === undefined ? '' : formatNumber(x, digits);
const pval = (p: number | null) => (p === null ? '' : p >= 0.001 || p === 0 ? p.toFixed(4) : p.toExponential(2));
const rates = (r: BaseRate[]) => r.map((x) => `${String(x.label)} ${percent(x.share)}`).join(' / ');
const interval = (ci: [number, number] | null, digits = 4) =>
  ci ? `[${num(ci[0], digits)}, ${num(ci[1], digits)}]` : '';

function formatText(r: JudgeAgreement, source: string, markdown: boolean): string {
  const dash = markdown ? '- ' : '';
  const table = markdown ? formatMarkdownTable : formatTable;
  const over = r.unit === 'item' ? `${r.items} items` : `${r.items} items in ${r.clusters} ${r.unit}s`;
  const lines: string[] = [
    `agreement of ${r.judges.length} judges: ${r.benchmark}, verdict ${JSON.stringify(r.value)} (${r.level}), ${over}, ${r.resamples} resamples, seed ${r.seed}`,
  ];
  if (markdown) lines.push('');
  r.judges.forEach((j, i) =>
    lines.push(
      `${dash}${letter(i)} = ${j.name}${j.source && j.source !== j.name ? ` (${j.source})` : ''}: ${j.judged} judged; ${rates(j.baseRates)}`,
    ),
  );
  lines.push(`${dash}metrics recomputed by ${source}`);
  lines.push(
    '',
    `Krippendorff's alpha (${r.level}): ${num(r.alpha.value, 3)} ${interval(r.alpha.ci, 3)}` +
      ` (95% bootstrap over ${r.unit === 'item' ? 'items' : `${r.unit}s`}; ${r.pairable} items judged at least twice)`,
  );
  const pairLabel = (a: number, b: number) => `${letter(a)} - ${letter(b)}`;
  lines.push(
    '',
    table(
      ['pair', 'compared', 'agreement', 'kappa', 'base rates A', 'base rates B', 'flips', 'changes'],
      r.pairs.map((p) => [
        pairLabel(p.a, p.b),
        p.compared,
        p.observed === null ? '' : percent(p.observed),
        num(p.kappa, 3),
        rates(p.baseRates[0]),
        rates(p.baseRates[1]),
        p.flips.length,
        p.changes.map((c) => `${String(c.from)} > ${String(c.to)}: ${c.count}`).join(', '),
      ]),
    ),
  );
  lines.push(
    '',
    'flip matrix (items judged by both and labelled differently):',
    '',
    table(
      ['judge', ...r.judges.map((_, i) => letter(i))],
      r.flipMatrix.map((row, i) => [letter(i), ...row.map((x, j) => (i === j ? '-' : String(x)))]),
    ),
  );
  if (r.metrics.length > 0) {
    const runJudges = r.runs.map((_, i) => letter(i));
    lines.push(
      '',
      `headline metrics under each judge (on the ${r.common} items every run evaluated), and the largest shift:`,
      '',
      table(
        ['metric', ...runJudges, 'largest shift', 'delta', '95% CI', 'p (rand.)'],
        r.metrics.map((m) => [
          m.name,
          ...m.values.map((x) => num(x)),
          m.shift ? `${letter(m.shift.to)} - ${letter(m.shift.from)}` : '',
          num(m.shift?.delta),
          m.shift ? interval(m.shift.ci) || (m.shift.ciMethod === 'refused' ? 'refused' : '') : '',
          m.shift ? pval(m.shift.pRandomization) : '',
        ]),
      ),
    );
  }
  if (r.notes.length > 0) lines.push('', ...r.notes.map((note) => `${dash}note: ${note}`));
  lines.push(
    '',
    "kappa: Cohen's, on the items both judged, with each judge's label shares there (a high kappa on a skewed label is no good judge). " +
      '--format json lists every flipped item.',
  );
  return lines.join('\n');
}

function formatCsv(r: JudgeAgreement): string {
  const header = ['kind', 'judge_a', 'judge_b', 'name', 'value', 'ci_low', 'ci_high', 'n', 'detail'];
  const name = (i: number) => r.judges[i]!.name;
  const rows: Array<Array<string | number | boolean | null | undefined>> = [
    ['alpha', '', '', r.level, r.alpha.value, r.alpha.ci?.[0], r.alpha.ci?.[1], r.pairable, `${r.clusters} ${r.unit}`],
  ];
  for (const p of r.pairs) {
    const shares = `${rates(p.baseRates[0])}; ${rates(p.baseRates[1])}`;
    rows.push(['kappa', name(p.a), name(p.b), 'kappa', p.kappa, '', '', p.compared, shares]);
    rows.push([
      'flips',
      name(p.a),
      name(p.b),
      r.value,
      p.flips.length,
      '',
      '',
      p.compared,
      p.flips.map((f) => `${f.id}:${String(f.a)}>${String(f.b)}`).join(' '),
    ]);
  }
  for (const m of r.metrics) {
    m.values.forEach((x, i) => rows.push(['metric', name(i), '', m.name, x, '', '', r.common, '']));
    if (m.shift)
      rows.push([
        'shift',
        name(m.shift.from),
        name(m.shift.to),
        m.name,
        m.shift.delta,
        m.shift.ci?.[0],
        m.shift.ci?.[1],
        r.common,
        m.shift.pRandomization === null ? '' : `p_randomization ${m.shift.pRandomization}`,
      ]);
  }
  return [csvLine(header), ...rows.map(csvLine)].join('\n');
}

/** `dialeval agreement RUN_A RUN_B [RUN_C ...]`. */
export async function runAgreement(dirs: string[], opts: AgreementCommandOptions): Promise<void> {
  const humans = opts.human ?? [];
  if (dirs.length + humans.length < 2 || dirs.length === 0)
    throw new UsageError('agreement needs at least two judges: two run directories, or one and --human FILE');
  const runs = await loadRuns(dirs);
  const { benchmark, source } = await loadDescriptor(runs[0]!.manifest, opts);
  const extraJudges = await Promise.all(
    humans.map((file) => readHumanLabels(file, humans.length === 1 ? 'human' : `human ${basename(file)}`)),
  );
  const result = judgeAgreement(runs, benchmark, {
    resamples: opts.resamples,
    seed: opts.seed,
    unit: opts.unit,
    ...(opts.value !== undefined ? { value: opts.value } : {}),
    ...(opts.level !== undefined ? { level: opts.level } : {}),
    ...(opts.metric ? { metrics: opts.metric } : {}),
    extraJudges,
  });
  await emit(renderAgreement(result, source, opts.format), opts.out);
}

/** An agreement as `dialeval agreement` prints it (also the end of a judge panel's run); `source` recomputed the metrics. */
export function renderAgreement(
  result: JudgeAgreement,
  source: string,
  format: AgreementCommandOptions['format'],
): string {
  if (format === 'json') return JSON.stringify({ ...result, recomputedBy: source }, null, 2);
  if (format === 'csv') return formatCsv(result);
  return formatText(result, source, format === 'markdown');
}
