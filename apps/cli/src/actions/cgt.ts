import { join } from 'node:path';
import { FileDigests, getResourceSet, resolveResourceDir } from '@eval/core';
import { pythonFloatRepr } from '@eval/core/python';
import {
  type CgtEvaluation,
  type CgtGoldOptions,
  type PyNumber,
  type SettingResult,
  cgtRun,
  evaluateCgt,
  formatReferenceOutput,
  formatReport,
  runBenchmark,
} from '@eval/cgt';
import type { CgtCommandOptions } from '../flags/cgt';
import { openRun, runRequested } from '../run-record';
import { emit } from '../util';
import { csvLine, formatTable } from '../format';

/** Python repr of a value (`1.0`, `0`), or empty for null. */
function repr(x: PyNumber | number | null | undefined): string {
  if (x === null || x === undefined) return '';
  if (typeof x === 'number') return pythonFloatRepr(x);
  return x.int ? String(x.value) : pythonFloatRepr(x.value);
}

function fixed(x: PyNumber | number | null | undefined): string {
  if (x === null || x === undefined) return '-';
  const v = typeof x === 'number' ? x : x.value;
  return v.toFixed(4);
}

function table(results: SettingResult[], gold: string): string {
  const out: string[] = [];
  for (const s of results) {
    const mode = s.options.dsc;
    const rows = s.groups.reduce((n, g) => n + g.nRows, 0);
    out.push(
      `setting ${s.name}: ${s.groups.length} groups, ${rows} rows; gold: ${gold}; DSC ${mode}; ${s.options.mean} means` +
        (s.invalidPredictions ? `; ${s.invalidPredictions} invalid predictions scored as {}` : '') +
        (s.skippedGroups.length ? `; skipped groups: ${s.skippedGroups.join(', ')}` : ''),
    );
    out.push('');
    out.push(
      formatTable(
        ['group', 'rows', 'mean P', 'mean R', 'mean F1', 'final F1', `mean DSC`, 'final DSC'],
        s.groups.map((g, i) => [
          g.id,
          String(g.nRows),
          fixed(s.groupMeanP[i]),
          fixed(s.groupMeanR[i]),
          fixed(s.groupMeanF1[i]),
          fixed(g.prf1.final?.f1),
          fixed(s.groupMeanDsc[i]),
          fixed(g.dsc[mode].final),
        ]),
      ),
    );
    out.push('');
    const ci = (c?: { lower: number; upper: number; confidence: number }) =>
      c ? `  [${Math.round(c.confidence * 100)}% CI ${c.lower.toFixed(4)}, ${c.upper.toFixed(4)}]` : '';
    out.push(`macro P   ${fixed(s.macro.p)}`);
    out.push(`macro R   ${fixed(s.macro.r)}`);
    out.push(`macro F1  ${fixed(s.macro.f1)}${ci(s.bootstrap?.f1)}`);
    out.push(`macro DSC ${fixed(s.macro.dsc)}${ci(s.bootstrap?.dsc)}  (${mode})`);
    out.push('');
    out.push('reference printout:');
    out.push(`  ${s.printed.dsc}`, `  ${s.printed.f1}`, `  ${s.printed.dscLatex}`, `  ${s.printed.macroDsc}`);
    out.push('');
  }
  return out.join('\n').trimEnd();
}

function csv(results: SettingResult[]): string {
  const header = [
    'setting',
    'group',
    'rows',
    'mean_p',
    'mean_r',
    'mean_f1',
    'final_p',
    'final_r',
    'final_f1',
    'mean_dsc',
    'final_dsc',
    'mean_dsc_strict',
    'mean_dsc_lenient',
    'final_dsc_strict',
    'final_dsc_lenient',
    'invalid_predictions',
    'ci_lower_f1',
    'ci_upper_f1',
    'ci_lower_dsc',
    'ci_upper_dsc',
  ];
  const lines = [csvLine(header)];
  for (const s of results) {
    const mode = s.options.dsc;
    s.groups.forEach((g, i) => {
      const f = g.prf1.final;
      const fin = (k: 'p' | 'r' | 'f1') => (f ? repr({ value: f[k], int: f.int }) : '');
      lines.push(
        csvLine([
          s.name,
          g.id,
          g.nRows,
          repr(s.groupMeanP[i]),
          repr(s.groupMeanR[i]),
          repr(s.groupMeanF1[i]),
          fin('p'),
          fin('r'),
          fin('f1'),
          repr(s.groupMeanDsc[i]),
          repr(g.dsc[mode].final),
          repr(g.dsc.strict.mean),
          repr(g.dsc.lenient.mean),
          repr(g.dsc.strict.final),
          repr(g.dsc.lenient.final),
          g.invalidPredictions,
          '',
          '',
          '',
          '',
        ]),
      );
    });
    const rows = s.groups.reduce((n, g) => n + g.nRows, 0);
    lines.push(
      csvLine([
        s.name,
        'macro',
        rows,
        repr(s.macro.p),
        repr(s.macro.r),
        repr(s.macro.f1),
        '',
        '',
        '',
        repr(s.macro.dsc),
        '',
        '',
        '',
        '',
        '',
        s.invalidPredictions,
        repr(s.bootstrap?.f1.lower),
        repr(s.bootstrap?.f1.upper),
        repr(s.bootstrap?.dsc.lower),
        repr(s.bootstrap?.dsc.upper),
      ]),
    );
  }
  return lines.join('\n');
}

export async function runCgt(dir: string, opts: CgtCommandOptions): Promise<void> {
  // choice flags are validated (and defaulted) by commander's .choices() in commands/cgt.ts
  const samples = opts.bootstrap ?? 1000;
  let gold: CgtGoldOptions | undefined;
  if (opts.gold !== undefined && opts.gold !== false) {
    const given = typeof opts.gold === 'string' ? opts.gold : undefined;
    gold = {
      dir: await resolveResourceDir('cgt', { dir: given, flag: '--gold' }),
      variant: opts.cgaVariant,
      source: given !== undefined ? 'option' : process.env[getResourceSet('cgt').envVar] ? 'env' : 'cache',
    };
  }
  // the run record hashes the group files from the bytes read here (no second read at the end)
  const digests = runRequested(opts) ? new FileDigests() : undefined;
  const evaluation = await evaluateCgt(dir, {
    dsc: opts.mode,
    mean: opts.mean,
    prf1: opts.prf1,
    emptyGroup: opts.emptyGroup,
    bootstrap: samples === 0 ? false : { samples, seed: opts.seed ?? 0, confidence: opts.confidence ?? 0.95 },
    invalidPrediction: opts.invalidPrediction,
    gold,
    onRead: digests?.onRead,
  });
  const results = evaluation.settings;
  const cgaDir = evaluation.gold?.cgaDir;
  let text: string;
  if (opts.format === 'json') {
    text = formatReport(results, {
      extras: opts.details === true,
      meta: {
        options: new Map<string, string | null>([
          ['dsc', opts.mode],
          ['mean', opts.mean],
          ['prf1', opts.prf1],
          ['empty_group', opts.emptyGroup],
          ['invalid_prediction', opts.invalidPrediction],
          ['gold', cgaDir ? 'cga' : 'embedded'],
          ['cga_dir', cgaDir ?? null],
        ]),
      },
    });
  } else if (opts.format === 'csv') text = csv(results);
  else if (opts.format === 'reference') {
    // One setting: byte for byte the reference's stdout; several: each under a `==> name <==` header.
    text =
      results.length === 1
        ? formatReferenceOutput(results[0]!)
        : results.map((r) => `==> ${r.name} <==\n${formatReferenceOutput(r)}`).join('\n');
  } else text = table(results, cgaDir ? `replayed from ${cgaDir}` : 'embedded');
  await emit(text, opts.out);
  // with several settings, `--run DIR` holds one run per setting in `DIR/<setting>`; they are written side by side
  await Promise.all(results.map((s) => writeCgtRun(opts, evaluation, s, digests)));
}

/**
 * Writes the run record of one setting when asked for (`--run`, `$DIALEVAL_RUNS`): what `cgtRun` gives (options,
 * prediction files, replayed annotations, items, metrics, the reference's printout as `reference-output.txt`) and the
 * `--out` file. The JSON layout (`--format json`) is not kept beside it: items.jsonl and run.json hold the same figures.
 */
async function writeCgtRun(
  opts: CgtCommandOptions,
  evaluation: CgtEvaluation,
  s: SettingResult,
  digests: FileDigests | undefined,
): Promise<void> {
  const several = evaluation.settings.length > 1;
  const flags = {
    run: opts.run !== undefined && several ? join(opts.run, s.name) : opts.run,
    system: opts.system !== undefined && several ? `${opts.system}/${s.name}` : opts.system,
  };
  if (!runRequested(flags)) return;
  const record = await cgtRun(evaluation, s);
  const run = await openRun(flags, {
    benchmark: record.benchmark,
    descriptor: runBenchmark,
    variant: record.variant,
    system: record.system,
    input: evaluation.input,
    options: record.options,
  });
  if (!run) return;
  for (const file of record.predictions) await run.addInput('predictions', file, digests);
  if (record.resource) run.addResource(record.resource);
  // written by finish, with the run's own files
  run.addArtifact(join(run.dir, 'reference-output.txt'), 'cgt-printout', record.referenceOutput);
  if (opts.out) run.addArtifact(opts.out, opts.format === 'reference' ? 'cgt-printout' : `dialeval-cgt-${opts.format}`);
  await run.finish({ items: record.items, metrics: record.metrics });
}
