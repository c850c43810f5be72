import { createHash } from 'node:crypto';
import { RUN_SCHEMA_VERSION, type RunManifest, InputError } from '@eval/core';
import { describe, expect, it } from 'vitest';
import { type ReportRun, embedJson, renderReport } from './index';

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
    // exactly four scripts (data, d3, Plot, app), each closed once: the hostile text added no </script> and no <script
    expect(html.match(/<script\b/gi)).toHaveLength(4);
    expect(html.match(/<\/script/gi)).toHaveLength(4);
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
    expect(scripts).toHaveLength(3);
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
  });
});
