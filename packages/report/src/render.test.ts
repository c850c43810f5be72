import { createHash } from 'node:crypto';
import { type JudgeAgreement, RUN_SCHEMA_VERSION, type RunManifest, InputError } from '@eval/core';
import { describe, expect, it } from 'vitest';
import { type ReportRun, embedJson, renderReport } from './index';
import { reportData } from './render';

function manifest(over: Partial<RunManifest> = {}): RunManifest {
  return {
    schemaVersion: RUN_SCHEMA_VERSION,
    id: 'run-1',
    benchmark: 'llm-judge',
    variant: 'v',
    system: 'sys',
    createdAt: '2026-01-01T00:00:00.000Z',
    finishedAt: '2026-01-01T00:01:00.000Z',
    status: 'complete',
    tool: { packages: {}, node: 'v20', platform: 'linux' },
    command: [],
    inputs: [],
    resources: [],
    options: {},
    metrics: { TSA: { value: 0.5, n: 2 } },
    counts: { items: 2, evaluated: 2, failed: 0, skipped: 0 },
    failures: [],
    artifacts: [],
    ...over,
  };
}

const HOSTILE = 'He said </script><script>alert(1)</script> <!-- and \u2028 & </SCRIPT >';
const run: ReportRun = {
  path: 'runs/a',
  manifest: manifest(),
  items: [
    { id: 't-1', values: { judge: true }, detail: { explanation: HOSTILE } },
    { id: 't-2', values: { judge: false }, detail: { context: [{ speaker: 'user', text: HOSTILE }] } },
  ],
};

describe('renderReport', () => {
  it('embeds the data as one JSON script tag that no dialogue text can break out of', () => {
    const html = renderReport({ runs: [run], generatedAt: 'now' });
    // exactly two scripts (data, the page's bundled code), each closed once: the hostile text added no </script>, no <script
    expect(html.match(/<script\b/gi)).toHaveLength(2);
    expect(html.match(/<\/script/gi)).toHaveLength(2);
    expect(html).not.toContain('<!--');
    const m = /<script type="application\/json" id="report-data">([^<]*)<\/script>/.exec(html)!;
    const data = JSON.parse(m[1]!);
    expect(data.runs[0].items).toEqual(run.items); // the text survives exactly
    expect(data.runs[0].manifest).toEqual(run.manifest);
    expect(embedJson('</script>\u2028')).toBe('"\\u003c/script\\u003e\\u2028"');
  });

  it('forbids every network access by CSP and allows exactly its own inline scripts by hash', () => {
    const html = renderReport({ runs: [run] });
    const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(html)![1]!.replace(/&#39;/g, "'");
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("connect-src 'none'");
    const scripts = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((s) => s[1]!);
    expect(scripts).toHaveLength(1);
    const hashes = [...csp.matchAll(/'sha256-([^']+)'/g)].map((h) => h[1]);
    expect(hashes).toEqual(scripts.map((s) => createHash('sha256').update(s).digest('base64')));
    expect(html).not.toMatch(/<(script|link|img|iframe)[^>]+(src|href)="(?!data:)/i);
  });

  it('refuses runs of different benchmarks, a newer schema version, and no run (InputError)', () => {
    const other: ReportRun = { path: 'runs/b', manifest: manifest({ benchmark: 'memory' }), items: [] };
    expect(() => renderReport({ runs: [run, other] })).toThrow(InputError);
    expect(() => renderReport({ runs: [run, other] })).toThrow(
      /different benchmarks.*runs\/a \(llm-judge\), runs\/b \(memory\)/,
    );
    const future = {
      path: 'runs/c',
      manifest: { ...manifest(), schemaVersion: 2 } as unknown as RunManifest,
      items: [],
    };
    expect(() => renderReport({ runs: [future] })).toThrow(
      /runs\/c\/run\.json.*schemaVersion.*schemaVersion 2 is not supported/,
    );
    expect(() => renderReport({ runs: [] })).toThrow(/no run given/);
  });

  it('titles and labels: default title from benchmark and systems; two runs of one system get distinct labels', () => {
    const html = renderReport({ runs: [run, { ...run, path: 'runs/a2' }] });
    expect(html).toContain('<title>llm-judge: sys vs sys</title>');
    const data = JSON.parse(/id="report-data">([^<]*)</.exec(html)![1]!);
    expect(data.runs.map((r: { label: string }) => r.label)).toEqual(['sys [1]', 'sys [2]']);
    // two runs of one system in different variants are named by variant (as the verdict sentences name them)
    const other = { ...run, path: 'runs/b', manifest: manifest({ variant: 'cot' }) };
    const named = JSON.parse(/id="report-data">([^<]*)</.exec(renderReport({ runs: [run, other] }))![1]!);
    expect(named.runs.map((r: { label: string }) => r.label)).toEqual(['sys (v)', 'sys (cot)']);
  });

  it('writes every metric as run.json declares it (unit, digits), with its interval; breakdown figures keep their part', () => {
    const m = manifest({
      metrics: {
        Success: { value: 60.10101010101011, n: 1000, unit: '%', ci: [57.0000001, 63.19999] },
        TSA: { value: 0.5333333333333333, n: 42, unit: 'ratio' },
        'richness.num_trigrams': { value: 5843, n: 1000, unit: 'count' },
        'Success (attraction)': {
          value: 60.1,
          n: 396,
          unit: '%',
          part: { of: 'Success', by: 'domain', value: 'attraction' },
        },
      },
    });
    const data = reportData({ runs: [{ manifest: m, items: [] }] });
    const byName = Object.fromEntries(data.runs[0]!.metrics.map((x) => [x.name, x]));
    // hand-derived: 60.10... to one decimal; 0.5333 as 53.3%; 5843 with a separator; the interval ends to one decimal
    expect(byName.Success).toMatchObject({ text: '60.1', ciText: '57.0 to 63.2', scale: 'percent', part: null });
    expect(byName.TSA).toMatchObject({ text: '53.3%', scale: 'percent' });
    expect(byName.TSA!.scaled).toBeCloseTo(53.333, 3);
    expect(byName['richness.num_trigrams']).toMatchObject({ text: '5,843', scale: 'count' });
    expect(byName['Success (attraction)']!.part).toEqual({ of: 'Success', by: 'domain', value: 'attraction' });
  });

  it('writes the agreement of judges as text: alpha and kappa to 3 decimals, base rates in percent, the flip matrix, the shift', () => {
    // Hand-built: two judges of one system's 8 answers (in 3 users), A: 1 1 0 1 0 1 1 0, B: 1 0 0 1 0 1 1 1.
    // Both give true to 5 of 8 (62.5%, false 37.5%); they agree on 6 of 8 (75.0%): p_e = 0.625^2 + 0.375^2 = 34/64,
    // kappa = (48/64 - 34/64) / (30/64) = 7/15 = 0.4667 -> 0.467. Two judges: alpha = 1 - 15 * 4 / (2 * 6 * 10) = 0.5.
    // TSA (ratio, digits 1) under A and B: 5/8 and 5/8 -> 62.5% both, so the largest shift is 0 from A to B.
    const judges = ['gpt-4o', 'claude'];
    const rates = [
      { label: false, count: 3, share: 3 / 8 },
      { label: true, count: 5, share: 5 / 8 },
    ];
    const agreement: JudgeAgreement = {
      benchmark: 'llm-judge',
      value: 'judge',
      judges: judges.map((name) => ({ name, source: `runs/${name}`, judged: 8, baseRates: rates })),
      items: 8,
      pairable: 8,
      level: 'nominal',
      unit: 'dialogue',
      clusters: 3,
      resamples: 200,
      seed: 0,
      confidence: 0.95,
      alpha: { value: 0.5, ci: [0.04999999, 0.8125] },
      pairs: [
        {
          a: 0,
          b: 1,
          compared: 8,
          observed: 6 / 8,
          kappa: 7 / 15,
          baseRates: [rates, rates],
          flips: [
            { id: 't-2', a: true, b: false },
            { id: 't-8', a: false, b: true },
          ],
          changes: [
            { from: true, to: false, count: 1 },
            { from: false, to: true, count: 1 },
          ],
        },
      ],
      flipMatrix: [
        [0, 2],
        [2, 0],
      ],
      runs: judges.map((name) => ({
        dir: `runs/${name}`,
        id: name,
        system: 'sys',
        variant: 'v',
        model: name,
        status: 'complete',
      })),
      common: 8,
      metrics: [
        {
          name: 'TSA',
          values: [5 / 8, 5 / 8],
          shift: { from: 0, to: 1, delta: 0, ci: [-0.25, 0.25], ciMethod: 'percentile', pRandomization: 1 },
        },
      ],
      notes: ['a note'],
      methods: { alpha: 'how alpha', kappa: 'how kappa', flips: 'how flips', shift: 'how shift' },
    };
    const tsa = { value: 5 / 8, n: 8, unit: 'ratio' as const, digits: 1 };
    const runs: ReportRun[] = judges.map((name) => ({
      path: `runs/${name}`,
      manifest: manifest({ id: name, metrics: { TSA: tsa }, options: { judge: name } }),
      items: [],
    }));
    const a = reportData({ runs, agreement }).agreement!;
    expect(a.over).toBe('8 items in 3 dialogues');
    expect(a.alpha).toEqual({ value: '0.500', ci: '0.050 to 0.813', pairable: '8' });
    expect(a.judges.map((j) => [j.name, j.run, j.baseRates])).toEqual([
      ['gpt-4o', 0, 'false 37.5% / true 62.5%'],
      ['claude', 1, 'false 37.5% / true 62.5%'],
    ]);
    expect(a.pairs[0]).toMatchObject({
      compared: '8',
      observed: '75.0%',
      kappa: '0.467',
      baseRatesA: 'false 37.5% / true 62.5%',
      baseRatesB: 'false 37.5% / true 62.5%',
      flips: '2',
      changes: 'true → false: 1, false → true: 1',
      flipped: [
        { id: 't-2', a: 'true', b: 'false' },
        { id: 't-8', a: 'false', b: 'true' },
      ],
    });
    expect(a.flipMatrix).toEqual([
      ['—', '2'],
      ['2', '—'],
    ]);
    // the metric as run.json declares it (ratio, one digit); the shift in percentage points
    expect(a.metrics).toEqual([
      {
        name: 'TSA',
        values: ['62.5%', '62.5%'],
        shift: { from: 0, to: 1, delta: '0.0', ci: '-25.0 to +25.0', p: '1.00' },
      },
    ]);
    expect(a.notes).toEqual(['a note']);
    // without an agreement the page has none
    expect(reportData({ runs }).agreement).toBeNull();
  });
});
