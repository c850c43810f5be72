import type { ConfidenceInterval } from '@eval/core';
import {
  type PyDict,
  PyInt,
  type PyValue,
  pythonJsonDumps,
  pythonJsonString,
  pythonRepr,
  pythonStrRepr,
} from '@eval/core/python';
import { type GroupResult, type PyNumber, type SettingResult, pyNumberRepr } from './evaluate';
import type { Prf1 } from './metrics';
import type { Weights } from './normalize';

/** The reference implementation reproduced by this package. */
export const REFERENCE = 'brandeis-llc/mmdp-cgt@d29394eecdfd97be16ce02cda0c0e230d92709cc cgqa/eval_cgqa_output.py';

const num = (x: PyNumber | number | null): PyValue => {
  if (x === null) return null;
  if (typeof x === 'number') return x;
  return x.int ? new PyInt(x.value) : x.value;
};
const prfNum = (x: Prf1, k: 'p' | 'r' | 'f1'): PyValue => num({ value: x[k], int: x.int });
const weights = (w: Weights): PyDict => new Map(w);

function ciToPy(ci: ConfidenceInterval): PyDict {
  return new Map<string, PyValue>([
    ['estimate', ci.estimate],
    ['lower', ci.lower],
    ['upper', ci.upper],
    ['confidence', ci.confidence],
    ['samples', new PyInt(ci.samples)],
    ['seed', new PyInt(ci.seed)],
  ]);
}

/** One group in the layout of `expected.json` (snake_case keys, Python ints and floats), plus optional extras. */
export function groupToPy(g: GroupResult, extras = false): PyDict {
  const out: PyDict = new Map<string, PyValue>([
    ['n_rows', new PyInt(g.nRows)],
    ['gold', g.gold.map(weights)],
    ['pred_normalized', g.pred.map(weights)],
    [
      'prf1_rows',
      g.prf1.rows.map(
        (r) =>
          new Map<string, PyValue>([
            ['row', new PyInt(r.row)],
            ['p', prfNum(r, 'p')],
            ['r', prfNum(r, 'r')],
            ['f1', prfNum(r, 'f1')],
          ]),
      ),
    ],
    ['dsc_strict_rows', g.dsc.strict.rows.map((r) => r.dsc)],
    ['dsc_lenient_rows', g.dsc.lenient.rows.map((r) => r.dsc)],
    ['mean_p', g.prf1.mean ? prfNum(g.prf1.mean, 'p') : null],
    ['mean_r', g.prf1.mean ? prfNum(g.prf1.mean, 'r') : null],
    ['mean_f1', g.prf1.mean ? prfNum(g.prf1.mean, 'f1') : null],
    [
      'final_prf1',
      g.prf1.final ? [prfNum(g.prf1.final, 'p'), prfNum(g.prf1.final, 'r'), prfNum(g.prf1.final, 'f1')] : null,
    ],
    ['mean_dsc_strict', g.dsc.strict.mean],
    ['mean_dsc_lenient', g.dsc.lenient.mean],
    ['final_dsc_strict', g.dsc.strict.final],
    ['final_dsc_lenient', g.dsc.lenient.final],
  ]);
  if (extras) {
    out.set('file', g.file ?? null);
    out.set('row_keys', [...g.keys]);
    out.set('invalid_predictions', new PyInt(g.invalidPredictions));
  }
  return out;
}

/**
 * One setting in the layout of `expected.json`: `groups`, `group_mean_dsc_<mode>`, `group_mean_f1`,
 * `macro_mean_dsc_<mode>`, `macro_mean_f1` and the printed lines; with `extras`, also P/R means, the macro DSC line,
 * the bootstrap intervals, the invalid-prediction count and skipped groups.
 */
export function settingToPy(s: SettingResult, extras = false): PyDict {
  const mode = s.options.dsc;
  const groups: PyDict = new Map(s.groups.map((g) => [g.id, groupToPy(g, extras)]));
  const out: PyDict = new Map<string, PyValue>([
    ['groups', groups],
    [`group_mean_dsc_${mode}`, s.groupMeanDsc.map(num)],
    ['group_mean_f1', s.groupMeanF1.map(num)],
    [`macro_mean_dsc_${mode}`, s.macro.dsc],
    ['macro_mean_f1', s.macro.f1],
    ['printed_dsc_line', s.printed.dsc],
    ['printed_f1_line', s.printed.f1],
    ['printed_dsc_latex', s.printed.dscLatex],
  ]);
  if (extras) {
    out.set('printed_macro_dsc', s.printed.macroDsc);
    out.set('group_mean_p', s.groupMeanP.map(num));
    out.set('group_mean_r', s.groupMeanR.map(num));
    out.set('macro_mean_p', s.macro.p);
    out.set('macro_mean_r', s.macro.r);
    out.set(
      'bootstrap',
      s.bootstrap
        ? new Map<string, PyValue>([
            [`macro_mean_dsc_${mode}`, ciToPy(s.bootstrap.dsc)],
            ['macro_mean_f1', ciToPy(s.bootstrap.f1)],
          ])
        : null,
    );
    out.set('invalid_predictions', new PyInt(s.invalidPredictions));
    out.set('skipped_groups', [...s.skippedGroups]);
  }
  return out;
}

export interface ReportOptions {
  /**
   * Add the fields beyond the reference layout (file names, row keys, P/R means, bootstrap intervals, counts, options).
   * Default false: exactly the layout and values of the reference driver's output.
   */
  extras?: boolean;
  /** With `extras`: top-level fields placed after `reference` (e.g. the options used). */
  meta?: Record<string, PyValue>;
  /** Indentation (default 1, as the reference's driver wrote `expected.json`). */
  indent?: number;
}

/**
 * Serialises results as JSON in the layout of `expected.json` (`{"reference", "settings": {name: {...}}}`), with
 * Python number formatting: floats as `repr` (`1.0`), ints bare (`0`). Without `extras` the output for the
 * reference fixtures is byte-identical to the reference values (`expected.json`, settings in the same order). Each
 * result's block is serialised once and reused by later calls (a result is a value: do not change it after
 * formatting it).
 */
export function formatReport(settings: readonly SettingResult[], options: ReportOptions = {}): string {
  const extras = options.extras ?? false;
  const top: PyDict = new Map<string, PyValue>([['reference', REFERENCE]]);
  if (extras) for (const [k, v] of Object.entries(options.meta ?? {})) top.set(k, v);
  if (extras && !options.meta?.options) {
    const o = settings[0]?.options;
    if (o) {
      top.set(
        'options',
        new Map<string, PyValue>([
          ['dsc', o.dsc],
          ['mean', o.mean],
          ['prf1', o.prf1],
          ['empty_group', o.emptyGroup],
        ]),
      );
    }
  }
  // `json.dumps(top, indent=...)` with each setting's block serialised once per result (the CLI writes every setting
  // both in its output and in the setting's run): a block nested n levels deep is the block dumped alone with n more
  // indents after each line break (JSON text has no raw line break inside a string)
  const indent = options.indent ?? 1;
  const pad = (level: number) => ' '.repeat(Math.max(0, indent) * level);
  const head = pythonJsonDumps(top, { indent });
  const blocks = settings.map(
    (s) => `\n${pad(2)}${pythonJsonString(s.name)}: ${settingBlock(s, extras, indent).replaceAll('\n', `\n${pad(2)}`)}`,
  );
  const settingsText = blocks.length === 0 ? '{}' : `{${blocks.join(',')}\n${pad(1)}}`;
  return `${head.slice(0, -2)},\n${pad(1)}"settings": ${settingsText}\n}`;
}

/** Each result's `json.dumps(settingToPy(s, extras), indent=indent)`, made once. */
const blockCache = new WeakMap<SettingResult, Map<string, string>>();

function settingBlock(s: SettingResult, extras: boolean, indent: number): string {
  let byOptions = blockCache.get(s);
  if (!byOptions) blockCache.set(s, (byOptions = new Map()));
  const key = `${extras}\u0000${indent}`;
  let text = byOptions.get(key);
  if (text === undefined) byOptions.set(key, (text = pythonJsonDumps(settingToPy(s, extras), { indent })));
  return text;
}

/** `print(p)` of a normalised prediction (a dict of str -> str): `pythonRepr(new Map(p))`, without the copy and the generic walk. */
function weightsRepr(w: Weights): string {
  let out = '';
  for (const [k, v] of w) {
    const kv = `${typeof k === 'string' ? pythonStrRepr(k) : pythonRepr(k)}: ${typeof v === 'string' ? pythonStrRepr(v) : pythonRepr(v)}`;
    out = out === '' ? kv : `${out}, ${kv}`;
  }
  return `{${out}}`;
}

/**
 * The complete standard output of the reference script (`python -m cgqa.eval_cgqa_output`) for a setting: per group
 * every normalised prediction (`print(p)`), `(mean_dsc, [dsc...])`, `(mean_f1, [f1...])` and a rule, then the four
 * summary lines. Groups skipped under `emptyGroup: 'skip'` are left out (the reference would crash on them).
 */
export function formatReferenceOutput(s: SettingResult): string {
  const mode = s.options.dsc;
  const lines: string[] = [];
  s.groups.forEach((g, i) => {
    if (s.groupMeanDsc[i] === null || s.groupMeanF1[i] === null) return;
    for (const p of g.pred) lines.push(weightsRepr(p));
    const dsc = g.dsc[mode];
    lines.push(`(${pythonRepr(dsc.mean)}, ${pythonRepr(dsc.rows.map((r) => r.dsc))})`);
    const f1 = g.prf1.rows.map((r) => prfNum(r, 'f1'));
    lines.push(`(${pyNumberRepr(s.groupMeanF1[i]!)}, ${pythonRepr(f1)})`);
    lines.push('='.repeat(36));
  });
  lines.push(s.printed.dsc, s.printed.f1, s.printed.dscLatex, s.printed.macroDsc);
  return `${lines.join('\n')}\n`;
}
