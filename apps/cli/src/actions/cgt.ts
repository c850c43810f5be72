import { readFile } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import {
  FileDigests,
  type RunResource,
  getResourceSet,
  resolveResourceDir,
  pythonFloatRepr,
  resourceFileListSha256,
  sha256Hex,
} from '@eval/core';
import {
  CGT_BENCHMARK,
  type CgaVariant,
  type CgtOptions,
  type InvalidPredictionMode,
  type PyNumber,
  type SettingResult,
  cgaDirFor,
  cgaFileName,
  cgtRunItems,
  cgtRunMetrics,
  cgtVariant,
  evaluateSetting,
  formatReferenceOutput,
  formatReport,
  readPredictions,
  withReplayedGold,
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
  const format = opts.format;
  const invalidPrediction: InvalidPredictionMode = opts.invalidPrediction;
  const variant: CgaVariant = opts.cgaVariant;
  const samples = opts.bootstrap ?? 1000;
  const options: CgtOptions = {
    dsc: opts.mode,
    mean: opts.mean,
    prf1: opts.prf1,
    emptyGroup: opts.emptyGroup,
    bootstrap: samples === 0 ? false : { samples, seed: opts.seed ?? 0, confidence: opts.confidence ?? 0.95 },
  };

  // the run record hashes the group files from the bytes read here (no second read at the end)
  const digests = runRequested(opts) ? new FileDigests() : undefined;
  const settings = await readPredictions(dir, { invalidPrediction, onRead: digests?.onRead });
  let goldLabel = 'embedded';
  let cgaDir: string | undefined;
  let base: string | undefined;
  if (opts.gold !== undefined && opts.gold !== false) {
    base = await resolveResourceDir('cgt', {
      dir: typeof opts.gold === 'string' ? opts.gold : undefined,
      flag: '--gold',
    });
    cgaDir = await cgaDirFor(base, variant);
    goldLabel = `replayed from ${cgaDir}`;
    for (const s of settings) s.groups = await withReplayedGold(s.groups, cgaDir);
  }
  const results = settings.map((s) => evaluateSetting(s, options));

  let text: string;
  if (format === 'json') {
    text = formatReport(results, {
      extras: opts.details === true,
      meta: {
        options: new Map<string, string | null>([
          ['dsc', options.dsc!],
          ['mean', options.mean!],
          ['prf1', options.prf1!],
          ['empty_group', options.emptyGroup!],
          ['invalid_prediction', invalidPrediction],
          ['gold', cgaDir ? 'cga' : 'embedded'],
          ['cga_dir', cgaDir ?? null],
        ]),
      },
    });
  } else if (format === 'csv') text = csv(results);
  else if (format === 'reference') {
    // One setting: byte for byte the reference's stdout; several: each under a `==> name <==` header.
    text =
      results.length === 1
        ? formatReferenceOutput(results[0]!)
        : results.map((r) => `==> ${r.name} <==\n${formatReferenceOutput(r)}`).join('\n');
  } else text = table(results, goldLabel);
  await emit(text, opts.out);
  await writeCgtRuns(dir, opts, results, {
    invalidPrediction,
    format,
    gold: cgaDir && base ? { base, cgaDir, variant } : undefined,
    digests,
  });
}

/** A text as `emit` writes it (one final newline). */
const asEmitted = (text: string) => (text.endsWith('\n') ? text : `${text}\n`);

/** The CGA annotation files replayed for a setting, as a resource of the run (source, pinned commit of a fetched set, sha256 of the files). */
async function cgaResource(
  opts: CgtCommandOptions,
  s: SettingResult,
  gold: { base: string; cgaDir: string },
): Promise<RunResource> {
  const source = typeof opts.gold === 'string' ? 'option' : process.env[getResourceSet('cgt').envVar] ? 'env' : 'cache';
  const files = await Promise.all(
    s.groups.map(async (g) => {
      const file = join(gold.cgaDir, cgaFileName(g.id));
      return { path: relative(gold.base, file).split(sep).join('/'), sha256: sha256Hex(await readFile(file)) };
    }),
  );
  return {
    name: 'cgt',
    ...(source === 'cache' ? { commit: getResourceSet('cgt').commit } : {}),
    sha256: resourceFileListSha256(files),
    source,
  };
}

/**
 * Writes the run records when asked for (`--run`, `$DIALEVAL_RUNS`): one run per setting (with several settings,
 * `--run DIR` holds one run per setting in `DIR/<setting>`), with the group files, the CGA annotations when
 * replayed, every option that changes a number, the native output (`reference-output.txt`: the reference script's
 * stdout) and the files the command wrote, one item per group, the macro metrics. The JSON layout (`--format json`) is
 * not kept beside it: items.jsonl and run.json hold the same figures, and the `--out` file is listed when there is one.
 */
async function writeCgtRuns(
  input: string,
  opts: CgtCommandOptions,
  results: SettingResult[],
  ctx: {
    invalidPrediction: InvalidPredictionMode;
    format: string;
    gold?: { base: string; cgaDir: string; variant: CgaVariant };
    digests?: FileDigests;
  },
): Promise<void> {
  const several = results.length > 1;
  // the settings' runs are written side by side: their file writes wait for the disk together, not one after another
  await Promise.all(results.map((s) => writeCgtRun(input, opts, s, several, ctx)));
}

async function writeCgtRun(
  input: string,
  opts: CgtCommandOptions,
  s: SettingResult,
  several: boolean,
  ctx: {
    invalidPrediction: InvalidPredictionMode;
    format: string;
    gold?: { base: string; cgaDir: string; variant: CgaVariant };
    digests?: FileDigests;
  },
): Promise<void> {
  const o = s.options;
  const goldSource = ctx.gold ? (`cga-${ctx.gold.variant}` as const) : 'embedded';
  const options: Record<string, unknown> = {
    dsc: o.dsc,
    mean: o.mean,
    prf1: o.prf1,
    emptyGroup: o.emptyGroup,
    invalidPrediction: ctx.invalidPrediction,
    gold: goldSource,
    bootstrap: o.bootstrap
      ? { samples: o.bootstrap.samples, seed: o.bootstrap.seed, confidence: o.bootstrap.confidence }
      : false,
  };
  const flags = {
    run: opts.run !== undefined && several ? join(opts.run, s.name) : opts.run,
    system: opts.system !== undefined && several ? `${opts.system}/${s.name}` : opts.system,
  };
  const run = await openRun(flags, {
    benchmark: CGT_BENCHMARK,
    variant: cgtVariant(o, { gold: goldSource, invalidPrediction: ctx.invalidPrediction }),
    system: s.name,
    input,
    options,
  });
  if (!run) return;
  for (const g of s.groups) if (g.file) await run.addInput('predictions', g.file, ctx.digests);
  if (ctx.gold) run.addResource(await cgaResource(opts, s, ctx.gold));
  // written by finish, with the run's own files
  run.addArtifact(join(run.dir, 'reference-output.txt'), 'cgt-printout', asEmitted(formatReferenceOutput(s)));
  if (opts.out) run.addArtifact(opts.out, ctx.format === 'reference' ? 'cgt-printout' : `dialeval-cgt-${ctx.format}`);
  await run.finish({ items: cgtRunItems(s), metrics: cgtRunMetrics(s) });
}
