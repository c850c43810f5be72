import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  InputError,
  RUN_SCHEMA_VERSION,
  type RunComparison,
  type RunItem,
  type RunManifest,
  writeFileAtomic,
} from '@eval/core';
import { reportApp } from './client/app';
import { REPORT_CSS } from './style';

/**
 * One run as the report shows it. `manifest` is `null` for an unfinished run (a directory without `run.json`):
 * the report then shows a banner and whatever items were written, never the run as complete.
 */
export interface ReportRun {
  /** The run directory as given (shown as the run's label when the manifest has no system name). */
  path?: string;
  manifest: RunManifest | null;
  items: ReadonlyArray<RunItem>;
  /** For an unfinished run: what its start marker says (`benchmark`, `variant`, `system`, `createdAt`), if anything. */
  started?: { benchmark?: string; variant?: string; system?: string; createdAt?: string };
}

/** What {@link renderReport} shows. The report recomputes nothing: metrics come from the manifests, the comparison from `compareRuns`. */
export interface ReportInput {
  runs: ReadonlyArray<ReportRun>;
  /** The result of `compareRuns` (from `@eval/core`) for two or more runs, embedded and shown as given. */
  comparison?: RunComparison;
  title?: string;
  /** Shown as notices under the header (e.g. why several runs were not compared). */
  notes?: ReadonlyArray<string>;
  /** Shown in the header; defaults to the current time. */
  generatedAt?: string;
}

const LIBRARIES = [
  { name: 'd3', file: 'dist/d3.min.js' },
  { name: '@observablehq/plot', file: 'dist/plot.umd.min.js' },
] as const;

/** The installed package's directory (its `exports` map does not expose the UMD file, so walk up from its entry). */
function packageDir(require: NodeJS.Require, name: string): string {
  let dir = dirname(require.resolve(name));
  for (;;) {
    try {
      if ((JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string }).name === name) return dir;
    } catch {
      // no package.json here
    }
    const up = dirname(dir);
    if (up === dir) throw new Error(`@eval/report: cannot find the installed package ${name}`);
    dir = up;
  }
}

let libraryCache: string[] | undefined;

function libraries(): string[] {
  if (libraryCache) return libraryCache;
  // ESM (source, the ESM build) has import.meta.url; in the CJS build it is empty and __filename is this file.
  const url: string | undefined = import.meta.url;
  const require = createRequire(url ? fileURLToPath(url) : __filename);
  libraryCache = LIBRARIES.map(({ name, file }) => {
    const code = readFileSync(join(packageDir(require, name), file), 'utf8');
    if (/<\/script|<!--/i.test(code))
      throw new Error(`@eval/report: ${file} contains a sequence that cannot be inlined in <script>`);
    return code;
  });
  return libraryCache;
}

/** JSON that is safe inside `<script type="application/json">`: no `<` (so no `</script>` or `<!--`), no line separators. */
export function embedJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function sha256Base64(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('base64');
}

function runLabel(run: ReportRun, index: number): string {
  return run.manifest?.system || run.started?.system || run.path || `run ${index + 1}`;
}

/** Refuses what cannot be shown as one report: no run, runs of different benchmarks, a newer schema version. */
function checkRuns(runs: ReadonlyArray<ReportRun>): string {
  if (runs.length === 0) throw new InputError('report: no run given');
  for (const [i, run] of runs.entries()) {
    const version = (run.manifest as { schemaVersion?: unknown } | null)?.schemaVersion;
    if (run.manifest && version !== RUN_SCHEMA_VERSION) {
      throw new InputError(
        `run schemaVersion ${String(version)} is not supported by this version of @eval/report (it reads version ${RUN_SCHEMA_VERSION}); upgrade dialeval`,
        { file: run.path ? `${run.path}/run.json` : `run ${i + 1}`, field: ['schemaVersion'] },
      );
    }
  }
  const benchmarks = [
    ...new Set(
      runs.flatMap((r) => {
        const b = r.manifest?.benchmark ?? r.started?.benchmark;
        return b ? [b] : [];
      }),
    ),
  ];
  if (benchmarks.length > 1) {
    const list = runs
      .map((r, i) => `${r.path ?? runLabel(r, i)} (${r.manifest?.benchmark ?? 'unfinished'})`)
      .join(', ');
    throw new InputError(`report: runs of different benchmarks cannot be shown in one report: ${list}`);
  }
  return benchmarks[0] ?? 'unknown';
}

/**
 * Renders one self-contained HTML document: the data as one JSON script tag, Observable Plot and d3 inlined, a
 * Content-Security-Policy that allows only the page's own inline scripts (by hash) and no network of any kind.
 */
export function renderReport(input: ReportInput): string {
  const benchmark = checkRuns(input.runs);
  const title = input.title ?? defaultTitle(input.runs, benchmark);
  const labels = uniqueLabels(input.runs);
  const data = {
    title,
    benchmark,
    generatedAt: input.generatedAt ?? new Date().toISOString(),
    runs: input.runs.map((run, i) => ({
      label: labels[i],
      path: run.path ?? null,
      manifest: run.manifest,
      started: run.started ?? null,
      items: run.items,
    })),
    comparison: input.comparison ?? null,
    notes: input.notes ?? [],
  };
  // The app is embedded from its compiled function text; esbuild's keepNames (tsx, some bundlers) wraps named
  // functions in a `__name(fn, "name")` helper that lives outside the function, so the page defines an identity one.
  const app = `(function () {\nvar __name = function (fn) { return fn; };\n(${reportApp.toString()})();\n})();`;
  const scripts = [...libraries(), app];
  const csp = [
    "default-src 'none'",
    `script-src ${scripts.map((s) => `'sha256-${sha256Base64(s)}'`).join(' ')}`,
    "style-src 'unsafe-inline'",
    'img-src data: blob:',
    "font-src 'none'",
    "connect-src 'none'",
    "media-src 'none'",
    "object-src 'none'",
    "frame-src 'none'",
    "worker-src 'none'",
    "manifest-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${escapeHtml(csp)}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="color-scheme" content="light dark">',
    '<meta name="generator" content="@eval/report">',
    '<link rel="icon" href="data:,">',
    `<title>${escapeHtml(title)}</title>`,
    `<style>${REPORT_CSS}</style>`,
    '</head>',
    '<body>',
    `<noscript><p>This report needs JavaScript to draw its charts and tables; its data is embedded in this file as JSON (script id="report-data").</p></noscript>`,
    '<div id="app" aria-busy="true"></div>',
    `<script type="application/json" id="report-data">${embedJson(data)}</script>`,
    ...scripts.map((s) => `<script>${s}</script>`),
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

/** Run labels (system names) made unique by the run's position where two runs share a name. */
function uniqueLabels(runs: ReadonlyArray<ReportRun>): string[] {
  const base = runs.map((r, i) => runLabel(r, i));
  return base.map((l, i) => (base.filter((x) => x === l).length > 1 ? `${l} [${i + 1}]` : l));
}

function defaultTitle(runs: ReadonlyArray<ReportRun>, benchmark: string): string {
  const systems = runs.map((r, i) => runLabel(r, i));
  return runs.length === 1 ? `${benchmark}: ${systems[0]}` : `${benchmark}: ${systems.join(' vs ')}`;
}

/** {@link renderReport} written atomically to `file`. */
export async function writeReport(file: string, input: ReportInput): Promise<void> {
  await writeFileAtomic(file, renderReport(input));
}
