import { mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type LoadedRun,
  type RunManifest,
  compareRuns,
  displayScale,
  formatMetricValue,
  judgeAgreement,
  listRuns,
  meanOfValues,
  readRun,
  verdictSentences,
} from '@eval/core';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeLeaderboard, writeReport } from '../src/index';
import { findBrowser, launch, openReport } from './browser';
import { FIXTURES, llmJudgeRun, multiwozRun, scorekeepingRun } from './fixtures';

// End-to-end: reports built from synthetic runs (written with core's startRun, see fixtures.ts) opened in the system
// Chromium through playwright-core. Without a browser these tests skip with one line; DIALEVAL_REQUIRE_BROWSER=1
// (set by .ci/run) turns that skip into a failure.
const executable = findBrowser();
const required = process.env.DIALEVAL_REQUIRE_BROWSER === '1';
if (!executable && !required) {
  console.warn(
    '@eval/report browser tests SKIPPED: no Chromium found (set CHROME_PATH, or install one: apt-get install -y chromium); DIALEVAL_REQUIRE_BROWSER=1 makes this a failure',
  );
}

const ARTIFACTS = join(__dirname, '..', 'test-artifacts');
const tmp = mkdtempSync(join(tmpdir(), 'eval-report-'));
let browser: Browser;

async function report(
  name: string,
  runs: LoadedRun[],
  extra: {
    comparison?: ReturnType<typeof compareRuns>;
    agreement?: ReturnType<typeof judgeAgreement>;
    title?: string;
  } = {},
): Promise<string> {
  const file = join(tmp, `${name}.html`);
  await writeReport(file, { runs: runs.map((r) => ({ path: r.dir, manifest: r.manifest, items: r.items })), ...extra });
  return file;
}

/** The SVG element Plot draws one of per datum, per mark type. */
const MARK_ELEMENT: Record<string, string> = { line: 'path', dot: 'circle', bar: 'rect', rect: 'rect' };

/** Every chart: Plot drew as many marks as the chart has data rows, and its table has one row per data row. */
async function chartMarks(page: Page) {
  return page.$$eval(
    'figure.chart',
    (figs, MARK_ELEMENT) =>
      figs.map((f) => {
        const mark = f.getAttribute('data-mark')!;
        return {
          chart: f.getAttribute('data-chart'),
          expected: Number(f.getAttribute('data-marks')),
          drawn: f.querySelectorAll(`svg g[aria-label="${mark}"] ${MARK_ELEMENT[mark] ?? 'rect'}:not(marker *)`).length,
          tableRows: f.querySelectorAll('table[data-chart-table] tbody tr').length,
        };
      }),
    MARK_ELEMENT,
  );
}

async function countText(page: Page): Promise<number> {
  return Number(/^(\d+) of/.exec((await page.textContent('[data-count]')) ?? '')?.[1]);
}

/** Sets a filter control and waits until the list shows its result (the count line names the filter it applied). */
async function filterItems(page: Page, control: string, value: string, applied: string): Promise<number> {
  await page.selectOption(control, value);
  await page.waitForSelector(`[data-count]${applied}`, { state: 'attached' });
  return countText(page);
}

/** Clicks an item row and waits until its drill-down is the one shown. */
async function openItem(page: Page, selector: string, id: string): Promise<string> {
  await page.click(selector);
  await page.waitForSelector(`#item-detail[data-item="${id}"]`, { state: 'attached' });
  return (await page.textContent('#item-detail')) ?? '';
}

/** Numbers with a float artefact (6.800000000000011, 0.30000000000000004) in the visible text of the page. */
async function floatArtefacts(page: Page): Promise<string[]> {
  // the page's text (open or folded), not the embedded JSON data, which keeps the exact values
  return page.evaluate(() => document.getElementById('app')?.textContent?.match(/\d\.\d*?(0000|9999)\d+/g) ?? []);
}

/** Every figure of run.json as the page shows it: `[data-metric]` cells, written with the run's own declaration. */
async function expectFiguresOf(page: Page, manifest: RunManifest, label?: string): Promise<void> {
  for (const [name, metric] of Object.entries(manifest.metrics)) {
    const sel = `[data-metric="${name.replace(/"/g, '\\"')}"]${label ? `[data-run="${label}"]` : ''}`;
    const shown = await page.$$eval(sel, (cells) => cells.map((c) => c.textContent));
    expect(shown, name).toContain(metric.value === null ? '—' : formatMetricValue(metric.value, metric));
  }
}

describe.runIf(executable || required)('reports in headless Chromium', () => {
  beforeAll(async () => {
    if (!executable)
      throw new Error(
        'DIALEVAL_REQUIRE_BROWSER=1 but no Chromium found (CHROME_PATH, chromium, chromium-browser, google-chrome)',
      );
    browser = await launch(executable);
    mkdirSync(ARTIFACTS, { recursive: true });
  });
  afterAll(async () => {
    await browser?.close();
    rmSync(tmp, { recursive: true, force: true });
  });

  const sizes = { multiwoz: 40, 'llm-judge': 48, scorekeeping: 12, memory: 30, cgt: 6 } as const;
  for (const [benchmark, make] of Object.entries(FIXTURES)) {
    it(`${benchmark}: no network, no console error, every chart drawn, headline numbers equal run.json, drill-down and filters work`, async () => {
      const run = await readRun(await make(join(tmp, benchmark), sizes[benchmark as keyof typeof sizes]));
      const file = await report(benchmark, [run]);
      const { page, errors, network, requests } = await openReport(browser, file);
      expect(errors).toEqual([]);
      expect(network).toEqual([]);
      expect(requests.every((u) => u.startsWith('file:'))).toBe(true);

      const marks = await chartMarks(page);
      for (const m of marks) {
        expect(m.drawn, `chart ${m.chart}`).toBe(m.expected);
        expect(m.tableRows, `chart ${m.chart} table`).toBe(m.expected);
        expect(m.expected, `chart ${m.chart} is not empty`).toBeGreaterThan(0);
      }
      // the headline charts: one chart per scale, one bar per numeric headline metric that declares its unit, for
      // the scales with at least two different values (one bar, or equal bars, would chart a constant)
      const declared = Object.values(run.manifest.metrics).filter(
        (m) => typeof m.value === 'number' && m.unit !== undefined && m.part === undefined,
      );
      const scaleOf = (unit: string | undefined) => (unit === '%' || unit === 'ratio' ? 'percent' : unit);
      const charted = declared.filter((m) => {
        const same = declared.filter((x) => scaleOf(x.unit) === scaleOf(m.unit));
        return same.length > 1 && new Set(same.map((x) => displayScale(x.value!, x))).size > 1;
      });
      expect(marks.filter((m) => m.chart?.startsWith('metrics-')).reduce((s, m) => s + m.drawn, 0)).toBe(
        charted.length,
      );
      // the breakdowns are run.json's part figures (or the items' recorded curves): charted where there are any
      const parts = Object.values(run.manifest.metrics).some((m) => m.part !== undefined);
      if (parts || benchmark === 'cgt')
        expect(await page.$$eval('#view figure.chart svg', (f) => f.length)).toBeGreaterThan(0);
      else expect(await page.$('[data-no-breakdown]')).not.toBeNull();

      // every figure of run.json, headline and breakdown, as the run declares it; no float artefact anywhere
      await expectFiguresOf(page, run.manifest);
      expect(await floatArtefacts(page)).toEqual([]);
      const body = (await page.textContent('body')) ?? '';
      expect(body).toContain(run.manifest.id);
      expect(body).toContain(run.manifest.system);

      // click the first failing item (any item where the benchmark has no failing ones): its drill-down opens
      const failing = await filterItems(page, 'select[data-control="status"]', 'failing', '[data-status="failing"]');
      expect(failing).toBeLessThanOrEqual(run.items.length);
      if (failing === 0) await filterItems(page, 'select[data-control="status"]', '', '[data-status=""]');
      const first = await page.getAttribute('#items tbody tr[data-id]', 'data-id');
      expect(first).toBeTruthy();
      expect(await openItem(page, `#items tbody tr[data-id="${first}"]`, first!)).toContain(first!);

      // a search for one id narrows the list to it
      expect(await filterItems(page, 'select[data-control="status"]', '', '[data-status=""]')).toBe(run.items.length);
      const last = run.items[run.items.length - 1]!.id;
      await page.fill('input[data-control="search"]', last);
      await page.waitForSelector(`[data-count][data-query="${last.toLowerCase()}"]`, { state: 'attached' });
      expect(await countText(page)).toBeLessThan(run.items.length);

      await page.fill('input[data-control="search"]', '');
      await page.waitForFunction(
        (n) => document.querySelector('[data-count]')?.textContent?.startsWith(`${n} of`),
        run.items.length,
      );
      await page.screenshot({ path: join(ARTIFACTS, `${benchmark}.png`), fullPage: true });
      await page.context().close();
    });
  }

  it('multiwoz: the domain filter narrows the list to dialogues with that domain; the failing dialogue shows its reasons', async () => {
    const run = await readRun(await multiwozRun(join(tmp, 'mw-filter'), 60, { seed: 7 }));
    const { page, errors } = await openReport(browser, await report('mw-filter', [run]));
    const withHotel = run.items.filter((i) =>
      Object.keys((i.detail?.domains as object) ?? {}).includes('hotel'),
    ).length;
    expect(await filterItems(page, 'select[data-facet="domain"]', 'hotel', '[data-facets="domain=hotel"]')).toBe(
      withHotel,
    );
    expect(withHotel).toBeLessThan(run.items.length);
    const failing = run.items.find((i) => ((i.detail?.reasons ?? []) as string[]).length > 0)!;
    await filterItems(page, 'select[data-facet="domain"]', '', '[data-facets=""]');
    await page.fill('input[data-control="search"]', failing.id);
    // the search applies after a short debounce: wait until the list shows it, so the row clicked is not replaced
    await page.waitForSelector(`[data-count][data-query="${failing.id.toLowerCase()}"]`, { state: 'attached' });
    await page.waitForSelector(`#items tbody tr[data-id="${failing.id}"]`);
    const detail = await openItem(page, `#items tbody tr[data-id="${failing.id}"]`, failing.id);
    for (const reason of failing.detail!.reasons as string[]) expect(detail).toContain(reason);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it("multiwoz: a dialogue's goal is shown from its domains and their requested slots when the item does not repeat it", async () => {
    const run = await readRun(await multiwozRun(join(tmp, 'mw-goal'), 3, { seed: 5 }));
    const first = run.items[0]!;
    const { goal: _g, ...rest } = first.detail!;
    const domains = Object.fromEntries(
      Object.entries(rest.domains as Record<string, object>).map(([d, v], k) => [
        d,
        { ...v, requested: k === 0 ? ['phone', 'postcode'] : [] },
      ]),
    );
    const items = [{ ...first, detail: { ...rest, domains } }, ...run.items.slice(1)];
    const { page, errors } = await openReport(browser, await report('mw-goal', [{ ...run, items }]));
    const detail = await openItem(page, `#items tbody tr[data-id="${first.id}"]`, first.id);
    expect(detail).toContain('Goal');
    expect(detail).toContain('requestable');
    expect(detail).toContain('postcode');
    for (const d of Object.keys(domains)) expect(detail).toContain(d);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('scorekeeping: an episode whose transcript is kept by location and was not read back says where it was not found', async () => {
    const run = await readRun(await scorekeepingRun(join(tmp, 'sk-location'), 3));
    const strip = (i: (typeof run.items)[number], interactions: string) => {
      const { transcript: _t, probes: _p, ...small } = i.detail!;
      return { ...i, detail: { ...small, interactions } };
    };
    const items = [
      strip(run.items[0]!, '0_travel/episode_0/interactions.json'),
      strip(run.items[1]!, '/elsewhere/0_travel/episode_1/interactions.json'),
      run.items[2]!,
    ];
    const { page, errors } = await openReport(browser, await report('sk-location', [{ ...run, items }]));
    const detailOf = (id: string) => openItem(page, `#items tbody tr[data-id="${id}"]`, id);
    expect(await detailOf(items[0]!.id)).toContain(
      'Transcript not found at 0_travel/episode_0/interactions.json (relative to the run directory)',
    );
    const absolute = await detailOf(items[1]!.id);
    expect(absolute).toContain('Transcript not found at /elsewhere/0_travel/episode_1/interactions.json');
    expect(absolute).not.toContain('relative to the run directory');
    const embedded = await detailOf(items[2]!.id);
    expect(embedded).toContain('Transcript (2 messages)');
    expect(embedded).not.toContain('not found');
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('llm-judge: a disagreeing turn shows its context, predicted state and the explanation (with </script> kept as text)', async () => {
    const run = await readRun(await llmJudgeRun(join(tmp, 'lj-detail'), 24));
    const { page, errors } = await openReport(browser, await report('lj-detail', [run]));
    const disagreeing = run.items.filter((i) => i.detail?.disagree === true);
    expect(
      await filterItems(
        page,
        'select[data-facet="agreement"]',
        'judge and rules disagree',
        '[data-facets="agreement=judge and rules disagree"]',
      ),
    ).toBe(disagreeing.length);
    const turn = disagreeing[0]!;
    const detail = await openItem(page, `#items tbody tr[data-id="${turn.id}"]`, turn.id);
    expect(detail).toContain(String(turn.detail!.explanation));
    expect(detail).toContain((turn.detail!.context as Array<{ text: string }>)[0]!.text);
    // the predicted state beside the gold state, the slot where they differ marked
    expect(detail).toContain('restaurant-pricerange');
    const differing = turn.id.endsWith('-0') || Number(turn.id.split('-').pop()) % 2 === 0;
    expect(await page.$$eval('#item-detail tr.disputed[data-slot="restaurant-area"]', (r) => r.length)).toBe(
      differing ? 1 : 0,
    );
    expect(await page.$$eval('script', (s) => s.length)).toBe(2); // data + the page's code: nothing injected
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('items without the expected detail (missing or of another shape): the view still plots, nothing crashes', async () => {
    const { startRun } = await import('@eval/core');
    for (const benchmark of Object.keys(FIXTURES)) {
      const dir = join(tmp, `odd-${benchmark}`);
      const writer = await startRun(dir, { benchmark, variant: 'v', system: 'odd' });
      await writer.finish({
        items: [
          {
            id: 'a',
            values: { x: true, y: 0.5 },
            detail: {
              domains: 'oops',
              reasons: 7,
              probes: 5,
              curve: [{ step: 'one' }],
              context: null,
              judge: 3,
              kind: 9,
            },
          },
          { id: 'b', values: { x: false, y: null } },
        ],
        metrics: { X: { value: 0.5, n: 2 } },
      });
      const { page, errors } = await openReport(browser, await report(`odd-${benchmark}`, [await readRun(dir)]));
      expect(errors, benchmark).toEqual([]);
      expect(await page.$$eval('[data-broken]', (b) => b.length), benchmark).toBe(0);
      expect(await page.$('#view'), benchmark).not.toBeNull();
      await openItem(page, '#items tbody tr[data-id="a"]', 'a');
      await page.context().close();
    }
  });

  it('full-size reports (1,000 MultiWOZ dialogues, 732 llm-judge turns) weigh < 5 MB and become usable quickly', async () => {
    const timings: Record<string, number> = {};
    for (const [name, make, n] of [
      ['multiwoz-1000', multiwozRun, 1000],
      ['llm-judge-732', llmJudgeRun, 732],
    ] as const) {
      const run = await readRun(await make(join(tmp, name), n));
      const file = await report(name, [run]);
      expect(statSync(file).size).toBeLessThan(5 * 1024 * 1024);
      const { page, errors, network, readyMs } = await openReport(browser, file);
      const started = Date.now();
      await filterItems(page, 'select[data-control="status"]', 'failing', '[data-status="failing"]');
      const id = await page.getAttribute('#items tbody tr[data-id]', 'data-id');
      await openItem(page, `#items tbody tr[data-id="${id}"]`, id!);
      timings[name] = readyMs + (Date.now() - started);
      expect(errors).toEqual([]);
      expect(network).toEqual([]);
      // the list is rendered lazily: 200 rows, then 200 more per click
      expect(await page.$$eval('#items tbody tr[data-id]', (r) => r.length)).toBe(Math.min(200, await countText(page)));
      await filterItems(page, 'select[data-control="status"]', '', '[data-status=""]');
      expect(await page.$$eval('#items tbody tr[data-id]', (r) => r.length)).toBe(200);
      await page.click('button[data-control="more"]');
      await page.waitForFunction(() => document.querySelectorAll('#items tbody tr[data-id]').length === 400);
      await page.screenshot({ path: join(ARTIFACTS, `${name}.png`) });
      await page.context().close();
    }
    // Recorded, not a timed unit assertion: the < 2 s target is measured here and bounded with a generous factor
    // (this machine is shared), so only a pathological slowdown fails.
    console.log(`report open + first drill-down (ms): ${JSON.stringify(timings)}`);
    for (const ms of Object.values(timings)) expect(ms).toBeLessThan(2000 * 5);
  });

  it('a partial run shows a banner and its failure list; an unfinished run is never shown as complete', async () => {
    const run = await readRun(await FIXTURES.memory(join(tmp, 'partial'), 12, { failed: 2 }));
    expect(run.manifest.status).toBe('partial');
    const { page, errors } = await openReport(browser, await report('partial', [run]));
    expect(await page.textContent('[data-banner="partial"]')).toContain('Partial run');
    const failures = await page.$$eval('[data-banner="partial"] table tbody tr', (r) => r.map((x) => x.textContent));
    expect(failures).toHaveLength(run.manifest.failures.length);
    expect(errors).toEqual([]);
    await page.context().close();

    const dir = await FIXTURES.cgt(join(tmp, 'unfinished'), 3, { unfinished: true });
    const { readJsonl } = await import('@eval/core');
    const { runItemSchema } = await import('@eval/core/schemas');
    const items = [];
    for await (const { value } of readJsonl(join(dir, 'items.jsonl'), runItemSchema)) items.push(value);
    const file = join(tmp, 'unfinished.html');
    await writeReport(file, {
      runs: [{ path: dir, manifest: null, items, started: { benchmark: 'cgt', system: 'sys' } }],
      notes: ['Not compared: <b>an unfinished run</b>.'],
    });
    const opened = await openReport(browser, file);
    expect(await opened.page.textContent('[data-banner="note"]')).toBe('Not compared: <b>an unfinished run</b>.');
    expect(await opened.page.textContent('[data-banner="unfinished"]')).toContain('Unfinished run');
    expect(await opened.page.textContent('[data-table="evaluated"]')).toContain('unfinished (no run.json)');
    expect(opened.errors).toEqual([]);
    await opened.page.screenshot({ path: join(ARTIFACTS, 'unfinished.png') });
    await opened.page.context().close();
  });

  it('comparison of two runs: the compare table, side-by-side plots, flipped items opening both drill-downs; dark mode', async () => {
    const a = await readRun(await multiwozRun(join(tmp, 'cmp-a'), 50, { seed: 11, system: 'baseline' }));
    const b = await readRun(await multiwozRun(join(tmp, 'cmp-b'), 50, { seed: 12, system: 'candidate' }));
    const comparison = compareRuns([a, b], meanOfValues('multiwoz'), { resamples: 200, seed: 0 });
    const { page, errors, network } = await openReport(browser, await report('comparison', [a, b], { comparison }), {
      colorScheme: 'dark',
    });
    expect(errors).toEqual([]);
    expect(network).toEqual([]);
    const rows = await page.$$eval('[data-table="comparison-0"] tbody tr', (r) =>
      r.map((x) => x.querySelector('td')?.textContent),
    );
    expect(rows).toEqual(comparison.pairs[0]!.metrics.map((m) => m.name));
    for (const m of await chartMarks(page)) expect(m.drawn, `chart ${m.chart}`).toBe(m.expected);
    expect(await page.$('figure[data-chart="comparison-delta-0"]')).not.toBeNull();
    // the verdict opens the page: core's sentences, exactly as `dialeval compare` prints them
    expect(await page.$$eval('#verdict li', (li) => li.map((x) => x.textContent))).toEqual(
      verdictSentences(comparison, a.manifest.metrics),
    );
    expect(await page.$eval('#app > section', (s) => s.id)).toBe('verdict');
    // each run's figures, per domain too, as run.json declares them; the domains' runs side by side in one chart
    await expectFiguresOf(page, a.manifest, 'baseline');
    await expectFiguresOf(page, b.manifest, 'candidate');
    expect(await floatArtefacts(page)).toEqual([]);
    const charts = await chartMarks(page);
    const success = charts.find((m) => m.chart === 'breakdown-0-0-1');
    expect(success, JSON.stringify(charts.map((c) => c.chart))).toBeDefined();
    const domains = Object.values(a.manifest.metrics).filter((m) => m.part?.of === 'Success').length;
    expect(success.drawn).toBe(
      domains + Object.values(b.manifest.metrics).filter((m) => m.part?.of === 'Success').length,
    );

    // flipped items: a table with both runs' outcome and reason; a filter narrows it, a header sorts it
    const flipped = comparison.pairs[0]!.metrics.flatMap((m) => [
      ...(m.flipped?.oneToZero ?? []),
      ...(m.flipped?.zeroToOne ?? []),
    ]);
    expect(flipped.length).toBeGreaterThan(0);
    expect(await page.$$eval('[data-table="flipped-0"] tbody tr', (r) => r.length)).toBe(flipped.length);
    await page.fill('input[data-control="flipped-filter"]', flipped[0]!);
    await page.waitForSelector(
      `[data-flipped-count="0"]:text-matches("^${flipped.filter((id) => id.includes(flipped[0]!)).length} of")`,
    );
    await page.fill('input[data-control="flipped-filter"]', '');
    await page.click('[data-table="flipped-0"] thead th:first-child');
    await page.waitForSelector('[data-table="flipped-0"] thead th[aria-sort="ascending"]');
    const sorted = await page.$$eval('[data-table="flipped-0"] tbody tr', (r) =>
      r.map((x) => x.getAttribute('data-flipped')!),
    );
    expect(sorted).toEqual([...flipped].sort((x, y) => x.localeCompare(y)));
    const detail = await openItem(page, `[data-table="flipped-0"] tr[data-flipped="${sorted[0]}"]`, sorted[0]!);
    expect(detail).toContain('Per goal domain');
    expect(
      await page.$$eval('#item-detail [data-detail-run]', (d) => d.map((x) => x.getAttribute('data-detail-run'))),
    ).toEqual(['baseline', 'candidate']);
    expect(await filterItems(page, 'select[data-control="status"]', 'flipped', '[data-status="flipped"]')).toBe(
      new Set(flipped).size,
    );
    await page.screenshot({ path: join(ARTIFACTS, 'comparison-dark.png'), fullPage: true });
    // printed: no table is cut off (nothing scrolls inside its box), no control is printed
    await page.emulateMedia({ media: 'print', colorScheme: 'light' });
    const clipped = await page.$$eval(
      '.table-wrap, .item-list',
      (els) =>
        els.filter((e) => e.scrollHeight > e.clientHeight + 1 || getComputedStyle(e).overflowY !== 'visible').length,
    );
    expect(clipped).toBe(0);
    expect(await page.$$eval('.controls', (els) => els.every((e) => getComputedStyle(e).display === 'none'))).toBe(
      true,
    );
    await page.pdf({ path: join(ARTIFACTS, 'comparison.pdf') });
    await page.context().close();
  });

  it('two judges of one system: the agreement section after the verdict, kappa with base rates, a flipped item opens', async () => {
    const a = await readRun(await llmJudgeRun(join(tmp, 'judge-a'), 64, { seed: 31, system: 'assistant' }));
    const b = await readRun(await llmJudgeRun(join(tmp, 'judge-b'), 64, { seed: 32, system: 'assistant' }));
    const benchmark = meanOfValues('llm-judge');
    const agreement = judgeAgreement([a, b], benchmark, {
      value: 'judge',
      names: ['judge-a', 'judge-b'],
      resamples: 200,
    });
    const comparison = compareRuns([a, b], benchmark, { resamples: 200, seed: 0 });
    const { page, errors } = await openReport(browser, await report('agreement', [a, b], { comparison, agreement }));
    expect(errors).toEqual([]);
    // the section follows the verdict
    const order = await page.$$eval('#app > section', (s) => s.map((x) => x.id));
    expect(order.indexOf('agreement')).toBe(order.indexOf('verdict') + 1);
    const pair = agreement.pairs[0]!;
    const row = await page.$$eval('[data-table="agreement-kappa"] tbody td', (td) => td.map((x) => x.textContent));
    const shares = (r: (typeof pair.baseRates)[0]) =>
      r.map((x) => `${String(x.label)} ${(x.share * 100).toFixed(1)}%`).join(' / ');
    expect(row.slice(0, 8)).toEqual([
      'judge-a',
      'judge-b',
      String(pair.compared),
      `${(pair.observed! * 100).toFixed(1)}%`,
      pair.kappa!.toFixed(3),
      shares(pair.baseRates[0]),
      shares(pair.baseRates[1]),
      String(pair.flips.length),
    ]);
    expect(await page.textContent('[data-alpha]')).toContain(`(nominal): ${agreement.alpha.value!.toFixed(3)}`);
    const flipped = pair.flips[0]!.id;
    await page.click('#agreement summary:has-text("Flipped items")');
    const detail = await openItem(page, `[data-agreement-flip="${flipped}"]`, flipped);
    expect(detail).toContain(flipped);
    expect(await floatArtefacts(page)).toEqual([]);
    await page.locator('#agreement').screenshot({ path: join(ARTIFACTS, 'agreement.png') });
    await page.context().close();
  });

  for (const [benchmark, make] of Object.entries(FIXTURES)) {
    it(`${benchmark}: a comparison report opens with the verdict, shows no float artefact, and is screenshot`, async () => {
      const n = sizes[benchmark as keyof typeof sizes];
      const a = await readRun(await make(join(tmp, `${benchmark}-a`), n, { seed: 21, system: 'system-a' }));
      const b = await readRun(await make(join(tmp, `${benchmark}-b`), n, { seed: 22, system: 'system-b' }));
      const comparison = compareRuns([a, b], meanOfValues(benchmark), { resamples: 200, seed: 0 });
      const { page, errors } = await openReport(browser, await report(`${benchmark}-compare`, [a, b], { comparison }));
      expect(errors).toEqual([]);
      expect(await page.$$eval('#verdict li', (li) => li.map((x) => x.textContent))).toEqual(
        verdictSentences(comparison, a.manifest.metrics),
      );
      for (const m of await chartMarks(page)) expect(m.drawn, `chart ${m.chart}`).toBe(m.expected);
      expect(await floatArtefacts(page)).toEqual([]);
      const first = a.items[0]!.id;
      const detail = await openItem(page, `#items tbody tr[data-id="${first}"]`, first);
      expect(detail).toContain(first);
      await page.screenshot({ path: join(ARTIFACTS, `${benchmark}-compare.png`), fullPage: true, timeout: 60_000 });
      await page.context().close();
    });
  }

  it('the leaderboard of a directory of runs: one sortable table per benchmark, runs linked to their reports', async () => {
    const dir = join(tmp, 'board');
    const made = await Promise.all([
      FIXTURES.multiwoz(join(dir, 'mwz-a'), 12, { seed: 1, system: 'alpha' }),
      FIXTURES.multiwoz(join(dir, 'mwz-b'), 12, { seed: 2, system: 'beta' }),
      FIXTURES.memory(join(dir, 'mem'), 9, { system: 'gamma' }),
    ]);
    await writeReport(join(made[0], 'report.html'), { runs: [{ ...(await readRun(made[0])), path: made[0] }] });
    const rows = (await listRuns(dir)).map((r) => ({
      ...r,
      ...(r.dir === made[0] ? { report: join(made[0], 'report.html') } : {}),
    }));
    const file = join(tmp, 'board.html');
    await writeLeaderboard(file, { runs: rows, title: 'Runs' });
    const { page, errors, network } = await openReport(browser, file);
    expect(errors).toEqual([]);
    expect(network).toEqual([]);
    expect(await page.$$eval('section[data-benchmark]', (s) => s.map((x) => x.getAttribute('data-benchmark')))).toEqual(
      ['memory', 'multiwoz'],
    );
    // Success as the runs declare it; sorting by it puts the higher first on the second click
    const success = await Promise.all(made.slice(0, 2).map(async (d) => (await readRun(d)).manifest.metrics.Success!));
    const header = '[data-table="runs-multiwoz"] thead th:has-text("Success")';
    await page.click(header);
    await page.click(header);
    await page.waitForSelector(`${header}[aria-sort="descending"]`);
    const shown = await page.$$eval('[data-table="runs-multiwoz"] tbody td[data-metric="Success"]', (c) =>
      c.map((x) => x.textContent),
    );
    expect(shown).toEqual([...success].sort((x, y) => y.value! - x.value!).map((m) => formatMetricValue(m.value, m)));
    expect(await page.getAttribute(`a[data-report="${made[0]}"]`, 'href')).toBe(join(made[0], 'report.html'));
    await page.screenshot({ path: join(ARTIFACTS, 'leaderboard.png'), fullPage: true });
    await page.context().close();
  });
});
