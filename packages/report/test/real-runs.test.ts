import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { formatMetricValue, readRun } from '@eval/core';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeReport } from '../src/index';
import { findBrowser, launch, openReport } from './browser';
import { multiwozSubset21 } from '../../../test-support/multiwoz-subset21';
import { describeWithReferenceData, referencePath } from '../../../test-support/reference-data';

// Real runs: the `dialeval` CLI (from source, in child processes: this package depends on no metric package) writes
// run directories from the ../shared fixtures, `dialeval report` renders them, Chromium opens the reports.
const SHARED = referencePath('');
const DATA = ['multiwoz', 'memory', 'cgt', 'llm-judge', 'scorekeeping'];
const CLI = join(__dirname, '..', '..', '..', 'apps', 'cli');
const ARTIFACTS = join(__dirname, '..', 'test-artifacts');
const executable = findBrowser();
const required = process.env.DIALEVAL_REQUIRE_BROWSER === '1';
const work = mkdtempSync(join(tmpdir(), 'eval-report-real-'));
const env = { DIALEVAL_HOME: join(work, 'home'), DIALEVAL_RUNS: '', DIALEVAL_MULTIWOZ_DIR: '', CI: '1' };

function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--conditions=@eval/source', '--import', 'tsx', join(CLI, 'src', 'bin.ts'), ...args],
      {
        cwd: CLI,
        env: { ...process.env, ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? 1, stdout, stderr }));
  });
}
async function ok(args: string[]): Promise<void> {
  const r = await cli(args);
  if (r.code !== 0) throw new Error(`dialeval ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
}

/** mwzeval's data/ layout and the 21-dialogue subset's predictions (test-support/multiwoz-subset21). */
function multiwozInputs(): { data: string; predictions: (name: string) => string } {
  const mwz = multiwozSubset21(work);
  return { data: mwz.data, predictions: (name) => mwz.subset(name) };
}

/** Report name -> run directories (one run, or two compared). */
const reports: Record<string, string[]> = {};
let browser: Browser;

describeWithReferenceData(...DATA)('reports of real runs (dialeval on ../shared fixtures)', () => {
  describe.runIf(executable || required)('in headless Chromium', () => {
    beforeAll(async () => {
      if (!executable) throw new Error('DIALEVAL_REQUIRE_BROWSER=1 but no Chromium found');
      mkdirSync(ARTIFACTS, { recursive: true });
      const mwz = multiwozInputs();
      const runs = join(work, 'runs');
      const memoryRecords = join(work, 'memory-records.json');
      writeFileSync(
        memoryRecords,
        JSON.stringify(
          JSON.parse(readFileSync(join(SHARED, 'memory', 'aggregate_fixture_sessions0-11.json'), 'utf8')).records,
        ),
      );
      const sk = join(work, 'scorekeeping');
      await Promise.all([
        ok([
          'multiwoz',
          mwz.predictions('augpt'),
          '--data',
          mwz.data,
          '--bleu',
          '--success',
          '--richness',
          '--dst',
          '--run',
          join(runs, 'mwz-augpt'),
        ]).then(() =>
          ok([
            'multiwoz',
            mwz.predictions('ubar'),
            '--data',
            mwz.data,
            '--bleu',
            '--success',
            '--richness',
            '--dst',
            '--run',
            join(runs, 'mwz-ubar'),
          ]),
        ),
        ok(['cgt', join(SHARED, 'cgt', 'predictions'), '--run', join(runs, 'cgt'), '--bootstrap', '0']),
        ok([
          'llm-judge',
          'report',
          '--outputs',
          `direct=${join(SHARED, 'llm-judge', 'slice', 'direct_outputs.json')}`,
          '--outputs',
          `cot=${join(SHARED, 'llm-judge', 'slice', 'cot_outputs.json')}`,
          '--run',
          join(runs, 'llm-judge'),
        ]),
        ok([
          'memory',
          'aggregate',
          memoryRecords,
          '--write-stat',
          join(work, 'memory-stat.json'),
          '--run',
          join(runs, 'memory'),
        ]),
        ok([
          'scorekeeping',
          'play',
          '--player',
          'perfect',
          '--out',
          sk,
          '--experiments',
          'travel-booking,restaurant,letter-number',
          '--episodes',
          '0-3',
        ]).then(() =>
          ok([
            'scorekeeping',
            'play',
            '--player',
            'mock',
            '--out',
            sk,
            '--experiments',
            'travel-booking,restaurant,letter-number',
            '--episodes',
            '0-3',
          ]),
        ),
      ]);
      Object.assign(reports, {
        'real-multiwoz': [join(runs, 'mwz-augpt')],
        'real-multiwoz-compare': [join(runs, 'mwz-augpt'), join(runs, 'mwz-ubar')],
        'real-cgt': [join(runs, 'cgt', 'dp-gpt4o')],
        'real-llm-judge': [join(runs, 'llm-judge', 'cot')],
        'real-llm-judge-compare': [join(runs, 'llm-judge', 'direct'), join(runs, 'llm-judge', 'cot')],
        'real-memory': [join(runs, 'memory')],
        'real-scorekeeping': [join(sk, 'mock-t0.0--mock-t0.0')],
        'real-scorekeeping-compare': [join(sk, 'perfect-t0.0--perfect-t0.0'), join(sk, 'mock-t0.0--mock-t0.0')],
      });
      // one run: rendered here; several: `dialeval report` (the comparison needs the benchmark's own recompute function),
      // and scorekeeping's (its items keep each transcript by location: the package's runBenchmark.itemDetails reads it back)
      await Promise.all(
        Object.entries(reports).map(async ([name, dirs]) => {
          const file = join(work, `${name}.html`);
          if (dirs.length > 1 || name === 'real-scorekeeping')
            return ok(['report', ...dirs, '--out', file, '--resamples', '200', '--force']);
          const run = await readRun(dirs[0]!);
          return writeReport(file, { runs: [{ path: run.dir, manifest: run.manifest, items: run.items }] });
        }),
      );
      browser = await launch(executable);
    }, 240_000);
    afterAll(async () => {
      await browser?.close();
      rmSync(work, { recursive: true, force: true });
    });

    for (const name of [
      'real-multiwoz',
      'real-multiwoz-compare',
      'real-cgt',
      'real-llm-judge',
      'real-llm-judge-compare',
      'real-memory',
      'real-scorekeeping',
      'real-scorekeeping-compare',
    ]) {
      it(`${name}: no network, no console error, every figure as run.json declares it, the verdict as compare prints it, drill-down opens`, async () => {
        const dirs = reports[name]!;
        const { page, errors, network } = await openReport(browser, join(work, `${name}.html`));
        expect(errors).toEqual([]);
        expect(network).toEqual([]);
        const marks = await page.$$eval('figure.chart', (figs) =>
          figs.map((f) => {
            const mark = f.getAttribute('data-mark')!;
            return [
              Number(f.getAttribute('data-marks')),
              f.querySelectorAll(
                `svg g[aria-label="${mark}"] ${mark === 'line' ? 'path' : mark === 'dot' ? 'circle' : 'rect'}:not(marker *)`,
              ).length,
            ];
          }),
        );
        for (const [expected, drawn] of marks) expect(drawn).toBe(expected);
        for (const dir of dirs) {
          const run = await readRun(dir);
          // every figure of run.json (headline and breakdown) as the run declares it (unit, digits)
          for (const [metric, v] of Object.entries(run.manifest.metrics)) {
            const shown = await page.$$eval(`[data-metric="${metric.replace(/"/g, '\\"')}"]`, (cells) =>
              cells.map((c) => c.textContent),
            );
            expect(shown, `${dir} ${metric}`).toContain(v.value === null ? '—' : formatMetricValue(v.value, v));
          }
          // breakdowns are charted exactly when run.json records some
          if (Object.values(run.manifest.metrics).some((m) => m.part !== undefined))
            expect(await page.$$eval('#view figure.chart svg', (f) => f.length)).toBeGreaterThan(0);
        }
        // no float artefact in the page's text
        expect(
          await page.evaluate(
            () => document.getElementById('app')?.textContent?.match(/\d\.\d*?(0000|9999)\d+/g) ?? [],
          ),
        ).toEqual([]);
        if (dirs.length > 1) {
          // the verdict: the same sentences `dialeval compare` prints (same R and seed)
          const compare = await cli(['compare', ...dirs, '--resamples', '200', '--force']);
          expect(compare.code, compare.stderr).toBe(0);
          const sentences = await page.$$eval('#verdict li', (li) => li.map((x) => x.textContent ?? ''));
          expect(sentences.length).toBeGreaterThan(0);
          for (const v of sentences) expect(compare.stdout.split('\n')).toContain(v);
          // flipped items as a table that opens the item in both runs
          const flipped = await page.getAttribute('[data-table="flipped-0"] tbody tr[data-flipped]', 'data-flipped');
          if (flipped) {
            await page.click(`[data-table="flipped-0"] tbody tr[data-flipped="${flipped}"]`);
            await page.waitForSelector(`#item-detail[data-item="${flipped}"]`, { state: 'attached' });
            expect(await page.$$eval('#item-detail [data-detail-run]', (d) => d.length)).toBe(2);
          }
        }
        const first = await page.getAttribute('#items tbody tr[data-id]', 'data-id');
        await page.click(`#items tbody tr[data-id="${first}"]`);
        await page.waitForSelector(`#item-detail[data-item="${first}"]`, { state: 'attached' });
        if (name.startsWith('real-scorekeeping')) {
          // the episode's transcript and probes, read back from its interactions.json
          const detail = (await page.textContent('#item-detail')) ?? '';
          expect(detail).toMatch(/Transcript \(\d+ messages\)/);
          expect(detail).toContain('Probes');
          expect(detail).not.toContain('not found');
        }
        await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true, timeout: 60_000 });
        copyFileSync(join(work, `${name}.html`), join(ARTIFACTS, `${name}.html`));
        await page.context().close();
      });
    }
  });
});
